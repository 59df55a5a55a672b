// Model: the models in use — the one that plans the mechanics and the one
// that writes the prose, and where each runs — a progress bar while they
// load, and the player's models: the installed ones with their size,
// writer's profile and how they run here (write with, plan with, remove),
// this machine and the catalog's models judged against it (download with
// progress, the recommended one marked), a GGUF file from a Hugging Face
// link, and any GGUF file added from disk (docs/models.md, "Roles", "What
// this machine can run").

import { useCallback, useEffect, useState } from "react";
import {
  api,
  asAppError,
  type AppError,
  type CatalogEntry,
  type DownloadProgress,
  type InstalledModel,
  type ModelInfo,
  type ModelView,
  type ModelsView,
} from "../api";
import { sentenceOf } from "../errors";
import { humanCount, humanSize } from "../models";
import { CatalogRow, FitLine, MachineLine } from "./ModelCatalog";
import { HubAdd } from "./HubAdd";
import { ServersPanel } from "./ServersPanel";

/** What the writer is, in one line: its file, size, context and profile. */
function writerLine(m: ModelInfo): string {
  if (m.writer === "none") return "none: the storyteller tells the turn without a model";
  const facts = [
    m.writerParameters ? `${humanCount(m.writerParameters)} parameters` : null,
    m.writerContext ? `${m.writerContext} tokens of context` : null,
  ].filter(Boolean);
  const same = m.shared ? " (the planner's model)" : "";
  return `${m.writer}${same}${facts.length ? ` — ${facts.join(", ")}` : ""}`;
}

interface Props {
  model: ModelView | null;
  onError: (e: AppError) => void;
  onRefresh: () => void;
}

export function ModelPanel({ model, onError, onRefresh }: Props) {
  const [folders, setFolders] = useState<{ skillRoots: string[]; sessionDb: string; skillsState: string } | null>(null);
  useEffect(() => {
    api.folders().then(setFolders, (e) => onError(asAppError(e)));
  }, [onError]);

  const [library, setLibrary] = useState<ModelsView | null>(null);
  const [downloads, setDownloads] = useState<Record<string, DownloadProgress>>({});
  const [busy, setBusy] = useState<string | null>(null);
  const refreshLibrary = useCallback(() => {
    api.models().then(setLibrary, (e) => onError(asAppError(e)));
  }, [onError]);
  const narrating = model?.model.path ?? null;
  const loadingNow = model?.loading.active ?? false;
  useEffect(() => {
    refreshLibrary();
  }, [refreshLibrary, narrating, loadingNow]);

  const act = async (what: string, work: () => Promise<unknown>) => {
    setBusy(what);
    try {
      await work();
    } catch (e) {
      onError(asAppError(e));
    } finally {
      setBusy(null);
      refreshLibrary();
      onRefresh();
    }
  };

  /** Adds a GGUF file from disk to the models folder and narrates with it. */
  const add = () =>
    act("add", async () => {
      const path = await api.chooseModelFile();
      if (typeof path !== "string") return;
      const added = await api.addModel(path);
      await api.useModel(added.name);
    });

  const download = async (entry: CatalogEntry) => {
    setDownloads((d) => ({ ...d, [entry.name]: { done: 0, total: entry.size ?? null } }));
    try {
      await api.downloadModel(entry.name, (p) => setDownloads((d) => ({ ...d, [entry.name]: p })));
    } catch (e) {
      onError(asAppError(e));
    } finally {
      setDownloads((d) => {
        const { [entry.name]: _, ...rest } = d;
        return rest;
      });
      refreshLibrary();
    }
  };

  if (!model) return <p className="muted">…</p>;
  const pct = Math.round((model.loading.progress ?? 0) * 100);
  return (
    <section className="model" aria-label="Model">
      <dl className="facts">
        <dt>Plans the mechanics</dt>
        <dd data-testid="model-planner">
          {model.model.planner === "rules"
            ? "rule-based planner (no model loaded)"
            : `${model.model.planner}${model.model.plannerParameters ? ` — ${humanCount(model.model.plannerParameters)} parameters` : ""}`}
          {model.model.plannerRunsOn && (
            <span className="muted" data-testid="model-planner-runs-on">
              {" "}
              · runs {model.model.plannerRunsOn}
            </span>
          )}
        </dd>
        <dt>Writes the prose</dt>
        <dd data-testid="model-writer">
          {writerLine(model.model)}
          {model.model.writerRunsOn && (
            <span className="muted" data-testid="model-writer-runs-on">
              {" "}
              · runs {model.model.writerRunsOn}
            </span>
          )}
        </dd>
        {model.model.writerProfile && (
          <>
            <dt>Writer's profile</dt>
            <dd data-testid="model-writer-profile">{model.model.writerProfile}</dd>
          </>
        )}
        <dt>Model files</dt>
        <dd>
          {model.model.path ?? "—"}
          {!model.model.shared && model.model.writerPath ? ` · ${model.model.writerPath}` : ""}
        </dd>
        <dt>Default model</dt>
        <dd>{model.model.defaultPath}</dd>
      </dl>
      {model.loading.active && (
        <div className="progress-block">
          <p>Loading {model.loading.path ?? "the default model"}…</p>
          <progress max={100} value={pct} data-testid="model-progress" />
          <span> {pct}%</span>
        </div>
      )}
      {model.loading.error && (
        <p className="error-text" role="alert" data-testid="model-error">
          Could not load the model. {sentenceOf(model.loading.error)}{" "}
          <span className="error-message">{model.loading.error.message}</span>
        </p>
      )}
      {library && <MachineLine machine={library.machine} recommended={library.recommended ?? null} />}
      <h2>Your models</h2>
      {library?.catalogProblem && (
        <p className="error-text" role="alert" data-testid="catalog-problem">
          The model catalog file was left out: {library.catalogProblem}
        </p>
      )}
      {library && (
        <table className="models" data-testid="models-installed">
          <thead>
            <tr>
              <th>Name</th>
              <th>Size</th>
              <th>Parameters</th>
              <th>Kind</th>
              <th>Role</th>
              <th>Here</th>
              <th>Where</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {library.installed.map((m) => (
              <InstalledRow
                key={m.path}
                m={m}
                recommended={library.recommended === m.name}
                busy={busy !== null || model.loading.active}
                onUse={(role) => act(`use ${m.name} ${role}`, () => api.useModel(m.name, role))}
                onRemove={() => act(`remove ${m.name}`, () => api.removeModel(m.name))}
              />
            ))}
          </tbody>
        </table>
      )}
      <button onClick={add} disabled={busy !== null || model.loading.active} data-testid="model-add">
        Add a GGUF file…
      </button>{" "}
      {(!model.model.shared || model.model.planner !== DEFAULT_NAME) && (
        <button
          onClick={() => act("use default", () => api.useModel("default", "both"))}
          disabled={busy !== null || model.loading.active}
          data-testid="model-use-default"
        >
          Use the default model for both
        </button>
      )}
      {library && library.available.length > 0 && (
        <>
          <h2>Models to download</h2>
          <ul className="catalog" data-testid="models-available">
            {library.available.map((e) => (
              <CatalogRow
                key={e.name}
                e={e}
                recommended={library.recommended === e.name}
                progress={downloads[e.name]}
                onDownload={() => download(e)}
              />
            ))}
          </ul>
        </>
      )}
      <ServersPanel model={model} onChanged={onRefresh} />
      <HubAdd
        onAdded={() => {
          refreshLibrary();
        }}
      />
      {library && (
        <p className="muted small">
          Models folder: <span data-testid="models-dir">{library.modelsDir}</span>
        </p>
      )}
      {folders && (
        <>
          <h2>Folders</h2>
          <dl className="facts small">
            <dt>Skills</dt>
            <dd>{folders.skillRoots.join(" · ")}</dd>
            <dt>Sessions</dt>
            <dd>{folders.sessionDb}</dd>
            <dt>Skill choices</dt>
            <dd>{folders.skillsState}</dd>
          </dl>
        </>
      )}
    </section>
  );
}

/** The default model's file, which the page names as the builder does. */
const DEFAULT_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf";

/** "plans and writes", "plans", "writes" or "—". */
function roleWords(m: InstalledModel): string {
  const plans = m.roles.includes("planner");
  const writes = m.roles.includes("writer");
  return plans && writes ? "plans and writes" : plans ? "plans" : writes ? "writes" : "—";
}

function InstalledRow({
  m,
  recommended,
  busy,
  onUse,
  onRemove,
}: {
  m: InstalledModel;
  recommended: boolean;
  busy: boolean;
  onUse: (role: "writer" | "planner") => void;
  onRemove: () => void;
}) {
  const narrator = m.kind === "narrator";
  const plans = m.roles.includes("planner");
  const writes = m.roles.includes("writer");
  return (
    <tr
      data-testid="model-row"
      data-name={m.name}
      data-in-use={m.inUse ? "true" : "false"}
      data-roles={m.roles.join(" ")}
      data-recommended={recommended ? "true" : "false"}
    >
      <td>
        {m.name}
        {recommended && (
          <span className="badge recommended-badge" data-testid="recommended">
            recommended for this machine
          </span>
        )}
        {m.problem && <span className="error-text"> — cannot be used: {m.problem}</span>}
        {narrator && m.profile && (
          <div className="muted small" data-testid="model-profile">
            {m.profile}
            {m.writerContext ? ` · writes in ${m.writerContext} tokens of context` : ""}
          </div>
        )}
      </td>
      <td>{humanSize(m.size)}</td>
      <td data-testid="model-parameters">{narrator && m.parameters ? humanCount(m.parameters) : "—"}</td>
      <td>{narrator ? `narrator${m.quantization ? `, ${m.quantization}` : ""}` : "memory embedder"}</td>
      <td data-testid="model-role">{narrator ? roleWords(m) : "—"}</td>
      <td className="small">{m.fit ? <FitLine fit={m.fit} /> : "—"}</td>
      <td title={m.path}>{m.readOnly ? "bundled" : "yours"}</td>
      <td className="row-actions">
        {narrator && !writes && !m.problem && (
          <button onClick={() => onUse("writer")} disabled={busy} data-testid="model-use" title="Write the story's prose with this model">
            Write with
          </button>
        )}
        {narrator && !plans && !m.problem && (
          <button onClick={() => onUse("planner")} disabled={busy} data-testid="model-use-planner" title="Plan each turn's mechanics with this model">
            Plan with
          </button>
        )}
        {!m.readOnly && (
          <button onClick={onRemove} disabled={busy} data-testid="model-remove">
            Remove
          </button>
        )}
      </td>
    </tr>
  );
}
