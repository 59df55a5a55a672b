// Model: the models in use — the one that plans the mechanics and the one
// that writes the prose, and where each runs — a progress bar while they
// load, and the player's models: the installed ones with their size,
// writer's profile and how they run here (write with, plan with, remove),
// this machine and the catalog's models judged against it (download with
// progress, the recommended one marked), a GGUF file from a Hugging Face
// link, and any GGUF file added from disk (docs/models.md, "Roles", "What
// this machine can run").

import { useCallback, useEffect, useState } from "react";
import { Trans, useTranslation } from "react-i18next";
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
import { humanCount, humanSize, whereWords } from "../models";
import i18n from "../i18n";
import { formatNumber, formatPercent } from "../i18n/format";
import { CatalogRow, FitLine, MachineLine } from "./ModelCatalog";
import { HubAdd } from "./HubAdd";
import { ServersPanel } from "./ServersPanel";

/** What the writer is, in one line: its file, size, context and profile. */
function writerLine(m: ModelInfo): string {
  const t = i18n.t;
  if (m.writer === "none") return t("model.writerNone");
  const facts = [
    m.writerParameters ? t("model.parameters", { value: humanCount(m.writerParameters) }) : null,
    m.writerContext ? t("model.contextTokens", { tokens: formatNumber(m.writerContext) }) : null,
  ].filter(Boolean);
  const name = m.shared ? t("model.sharedWriter", { model: m.writer }) : m.writer;
  return `${name}${facts.length ? ` — ${facts.join(", ")}` : ""}`;
}

interface Props {
  model: ModelView | null;
  onError: (e: AppError) => void;
  onRefresh: () => void;
}

export function ModelPanel({ model, onError, onRefresh }: Props) {
  const { t } = useTranslation();
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

  if (!model) return <p className="muted">{t("common.ellipsis")}</p>;
  const share = model.loading.progress ?? 0;
  const pct = Math.round(share * 100);
  return (
    <section className="model" aria-label={t("model.label")}>
      <dl className="facts">
        <dt>{t("model.plans")}</dt>
        <dd data-testid="model-planner">
          {model.model.planner === "rules"
            ? t("model.rulesPlanner")
            : model.model.plannerParameters
              ? t("model.withParameters", {
                  model: model.model.planner,
                  parameters: humanCount(model.model.plannerParameters),
                })
              : model.model.planner}
          {model.model.plannerRunsOn && (
            <span className="muted" data-testid="model-planner-runs-on">
              {" "}
              {t("model.runs", { where: whereWords(model.model.plannerRunsOn) })}
            </span>
          )}
        </dd>
        <dt>{t("model.writes")}</dt>
        <dd data-testid="model-writer">
          {writerLine(model.model)}
          {model.model.writerRunsOn && (
            <span className="muted" data-testid="model-writer-runs-on">
              {" "}
              {t("model.runs", { where: whereWords(model.model.writerRunsOn) })}
            </span>
          )}
        </dd>
        {model.model.writerProfile && (
          <>
            <dt>{t("model.writerProfile")}</dt>
            <dd data-testid="model-writer-profile">{model.model.writerProfile}</dd>
          </>
        )}
        <dt>{t("model.files")}</dt>
        <dd>
          {model.model.path ?? t("common.none")}
          {!model.model.shared && model.model.writerPath ? ` · ${model.model.writerPath}` : ""}
        </dd>
        <dt>{t("model.defaultModel")}</dt>
        <dd>{model.model.defaultPath}</dd>
      </dl>
      {model.loading.active && (
        <div className="progress-block">
          <p>{model.loading.path ? t("model.loading", { path: model.loading.path }) : t("model.loadingDefault")}</p>
          <progress max={100} value={pct} data-testid="model-progress" />
          <span> {formatPercent(share)}</span>
        </div>
      )}
      {model.loading.error && (
        <p className="error-text" role="alert" data-testid="model-error">
          {t("model.loadFailed")} {sentenceOf(model.loading.error)}{" "}
          <span className="error-message">{model.loading.error.message}</span>
        </p>
      )}
      {library && <MachineLine machine={library.machine} recommended={library.recommended ?? null} />}
      <h2>{t("model.yourModels")}</h2>
      {library?.catalogProblem && (
        <p className="error-text" role="alert" data-testid="catalog-problem">
          {t("model.catalogProblem", { problem: library.catalogProblem })}
        </p>
      )}
      {library && (
        <table className="models" data-testid="models-installed">
          <thead>
            <tr>
              <th>{t("model.column.name")}</th>
              <th>{t("model.column.size")}</th>
              <th>{t("model.column.parameters")}</th>
              <th>{t("model.column.kind")}</th>
              <th>{t("model.column.role")}</th>
              <th>{t("model.column.here")}</th>
              <th>{t("model.column.where")}</th>
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
        {t("model.addFile")}
      </button>{" "}
      {(!model.model.shared || model.model.planner !== DEFAULT_NAME) && (
        <button
          onClick={() => act("use default", () => api.useModel("default", "both"))}
          disabled={busy !== null || model.loading.active}
          data-testid="model-use-default"
        >
          {t("model.useDefault")}
        </button>
      )}
      {library && library.available.length > 0 && (
        <>
          <h2>{t("model.toDownload")}</h2>
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
          <Trans
            i18nKey="model.modelsFolder"
            values={{ path: library.modelsDir }}
            components={{ dir: <span data-testid="models-dir" /> }}
          />
        </p>
      )}
      {folders && (
        <>
          <h2>{t("model.folders")}</h2>
          <dl className="facts small">
            <dt>{t("model.skillsFolder")}</dt>
            <dd>{folders.skillRoots.join(" · ")}</dd>
            <dt>{t("model.sessionsFolder")}</dt>
            <dd>{folders.sessionDb}</dd>
            <dt>{t("model.skillChoices")}</dt>
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
  return i18n.t(plans && writes ? "model.role.both" : plans ? "model.role.planner" : writes ? "model.role.writer" : "common.none");
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
  const { t } = useTranslation();
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
            {t("model.recommended")}
          </span>
        )}
        {m.problem && <span className="error-text"> {t("model.unusable", { problem: m.problem })}</span>}
        {narrator && m.profile && (
          <div className="muted small" data-testid="model-profile">
            {m.profile}
            {m.writerContext ? <> {t("model.writesIn", { tokens: formatNumber(m.writerContext) })}</> : null}
          </div>
        )}
      </td>
      <td>{humanSize(m.size)}</td>
      <td data-testid="model-parameters">{narrator && m.parameters ? humanCount(m.parameters) : t("common.none")}</td>
      <td>
        {narrator
          ? m.quantization
            ? t("model.narratorQuantized", { quantization: m.quantization })
            : t("model.narrator")
          : t("model.embedder")}
      </td>
      <td data-testid="model-role">{narrator ? roleWords(m) : t("common.none")}</td>
      <td className="small">{m.fit ? <FitLine fit={m.fit} /> : t("common.none")}</td>
      <td title={m.path}>{m.readOnly ? t("model.bundled") : t("model.yours")}</td>
      <td className="row-actions">
        {narrator && !writes && !m.problem && (
          <button onClick={() => onUse("writer")} disabled={busy} data-testid="model-use" title={t("model.writeWithTitle")}>
            {t("model.writeWith")}
          </button>
        )}
        {narrator && !plans && !m.problem && (
          <button onClick={() => onUse("planner")} disabled={busy} data-testid="model-use-planner" title={t("model.planWithTitle")}>
            {t("model.planWith")}
          </button>
        )}
        {!m.readOnly && (
          <button onClick={onRemove} disabled={busy} data-testid="model-remove">
            {t("model.remove")}
          </button>
        )}
      </td>
    </tr>
  );
}
