// Model: the models in use — the one that plans the mechanics and the one
// that writes the prose — a progress bar while they load, and the player's
// models: the installed ones with their size and writer's profile (write
// with, plan with, remove), the catalog's (download with progress) and any
// GGUF file added from disk (docs/models.md, "Roles").

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

/** "97.8 MB", as a file manager says it. */
export function humanSize(bytes: number): string {
  const units = ["B", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** "135M", "1.5B": parameters as model names say them. */
export function humanCount(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return `${Math.round(n / 1e6)}M`;
  if (n >= 1e3) return `${Math.round(n / 1e3)}K`;
  return `${n}`;
}

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
        </dd>
        <dt>Writes the prose</dt>
        <dd data-testid="model-writer">{writerLine(model.model)}</dd>
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
              <th>Where</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {library.installed.map((m) => (
              <InstalledRow
                key={m.path}
                m={m}
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
              <CatalogRow key={e.name} e={e} progress={downloads[e.name]} onDownload={() => download(e)} />
            ))}
          </ul>
        </>
      )}
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
  busy,
  onUse,
  onRemove,
}: {
  m: InstalledModel;
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
    >
      <td>
        {m.name}
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

function CatalogRow({
  e,
  progress,
  onDownload,
}: {
  e: CatalogEntry;
  progress: DownloadProgress | undefined;
  onDownload: () => void;
}) {
  const total = progress?.total ?? e.size ?? null;
  const pct = progress && total ? Math.min(100, Math.round((progress.done / total) * 100)) : 0;
  return (
    <li data-testid="catalog-row" data-name={e.name}>
      <strong>{e.name}</strong> — {e.description}
      <div className="muted small">
        {e.size ? `${humanSize(e.size)} download` : "size unknown"}
        {e.ram ? ` · needs about ${humanSize(e.ram)} of memory` : ""} · {e.license}
        {e.notes ? ` · ${e.notes}` : ""}
      </div>
      {progress ? (
        <div className="progress-block">
          <progress max={100} value={pct} data-testid="download-progress" />
          <span>
            {" "}
            {humanSize(progress.done)}
            {total ? ` of ${humanSize(total)}` : ""}
          </span>
        </div>
      ) : (
        <button onClick={onDownload} data-testid="model-download">
          Download
        </button>
      )}
    </li>
  );
}
