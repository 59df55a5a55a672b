// External servers: the player gives the planner's or the writer's role to
// an OpenAI-compatible server they run (Ollama, LM Studio, llama-server,
// KoboldCpp): what plays each role now, a form to list a server's models,
// check the connection and use it, and a way to give each role back to the
// models in the app (docs/models.md, "External servers").

import { useCallback, useEffect, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { api, asAppError, type AppError, type ModelView, type ServerChoice, type ServerRole, type Servers } from "../api";
import { sentenceOf } from "../errors";
import i18n from "../i18n";
import { formatMs } from "../i18n/format";

const ROLES = [
  { role: "planner", label: "model.plans" },
  { role: "writer", label: "model.writes" },
] as const;

/** "MODEL at ENDPOINT". */
function serverLine(s: ServerChoice): string {
  return s.apiKeyEnv
    ? i18n.t("servers.lineKey", { model: s.model, endpoint: s.endpoint, variable: s.apiKeyEnv })
    : i18n.t("servers.line", { model: s.model, endpoint: s.endpoint });
}

export function ServersPanel({ model, onChanged }: { model: ModelView | null; onChanged: () => void }) {
  const { t } = useTranslation();
  const [servers, setServers] = useState<Servers | null>(null);
  const [endpoint, setEndpoint] = useState("");
  const [keyEnv, setKeyEnv] = useState("");
  const [models, setModels] = useState<string[] | null>(null);
  const [picked, setPicked] = useState("");
  const [role, setRole] = useState<ServerRole>("writer");
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  const [done, setDone] = useState<string | null>(null);

  const refresh = useCallback(() => {
    api.servers().then(setServers, (e) => setError(asAppError(e)));
  }, []);
  useEffect(() => {
    refresh();
  }, [refresh]);

  const run = async (what: string, work: () => Promise<void>) => {
    setBusy(what);
    setError(null);
    setDone(null);
    try {
      await work();
    } catch (e) {
      setError(asAppError(e));
    } finally {
      setBusy(null);
    }
  };

  const list = (e: FormEvent) => {
    e.preventDefault();
    const address = endpoint.trim();
    if (!address) return;
    return run("list", async () => {
      setModels(null);
      const listed = await api.serverModels(address, keyEnv.trim() || null);
      setModels(listed);
      setPicked((p) => (listed.includes(p) ? p : (listed[0] ?? "")));
    });
  };

  const use = () =>
    run("use", async () => {
      const address = endpoint.trim();
      const check = await api.setServer(role, address, picked, keyEnv.trim() || null);
      setDone(t(`servers.done.${role}`, { model: picked, address, ms: formatMs(check.roundTripMs) }));
      refresh();
      onChanged();
    });

  const giveBack = (r: "planner" | "writer") =>
    run(`clear ${r}`, async () => {
      await api.clearServer(r);
      setDone(r === "planner" ? t("servers.plannerBack") : t("servers.writerBack"));
      refresh();
      onChanged();
    });

  const inProcess = (r: "planner" | "writer") => {
    if (!model) return t("common.ellipsis");
    if (r === "planner") {
      return model.model.planner === "rules" ? t("servers.rulesPlanner") : t("servers.inApp", { model: model.model.planner });
    }
    return model.model.writer === "none" ? t("servers.noWriter") : t("servers.inApp", { model: model.model.writer });
  };

  return (
    <section className="servers" aria-label={t("servers.title")} data-testid="servers">
      <h2>{t("servers.title")}</h2>
      <p className="muted small">{t("servers.intro")}</p>
      <dl className="facts">
        {ROLES.map(({ role: r, label }) => {
          const server = servers?.[r] ?? null;
          return (
            <div key={r} style={{ display: "contents" }} data-testid={`server-role-${r}`} data-on-server={server ? "true" : "false"}>
              <dt>{t(label)}</dt>
              <dd data-testid={`server-status-${r}`}>
                {server ? serverLine(server) : inProcess(r)}{" "}
                {server && (
                  <button onClick={() => giveBack(r)} disabled={busy !== null} data-testid={`server-clear-${r}`}>
                    {t("servers.useApp")}
                  </button>
                )}
              </dd>
            </div>
          );
        })}
      </dl>
      <form className="row" onSubmit={list}>
        <input
          type="text"
          value={endpoint}
          onChange={(e) => {
            setEndpoint(e.target.value);
            setModels(null);
          }}
          placeholder="http://127.0.0.1:11434/v1"
          aria-label={t("servers.addressLabel")}
          disabled={busy !== null}
          data-testid="server-endpoint"
        />
        <input
          type="text"
          value={keyEnv}
          onChange={(e) => setKeyEnv(e.target.value)}
          placeholder={t("servers.keyPlaceholder")}
          aria-label={t("servers.keyLabel")}
          disabled={busy !== null}
          data-testid="server-key-env"
        />
        <button type="submit" disabled={busy !== null || !endpoint.trim()} data-testid="server-list">
          {busy === "list" ? t("servers.asking") : t("servers.list")}
        </button>
      </form>
      {models && (
        <div className="row">
          <label>
            {t("servers.model")}{" "}
            <select value={picked} onChange={(e) => setPicked(e.target.value)} disabled={busy !== null} data-testid="server-model">
              {models.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </label>{" "}
          <label>
            {t("servers.role")}{" "}
            <select value={role} onChange={(e) => setRole(e.target.value as ServerRole)} disabled={busy !== null} data-testid="server-role">
              <option value="writer">{t("servers.roles.writer")}</option>
              <option value="planner">{t("servers.roles.planner")}</option>
              <option value="both">{t("servers.roles.both")}</option>
            </select>
          </label>{" "}
          <button onClick={use} disabled={busy !== null || !picked} data-testid="server-use">
            {busy === "use" ? t("servers.checking") : t("servers.use")}
          </button>
        </div>
      )}
      {models && models.length === 0 && <p className="muted">{t("servers.noModels")}</p>}
      {done && (
        <p role="status" data-testid="server-done">
          {done}
        </p>
      )}
      {error && (
        <p className="error-text" role="alert" data-testid="server-error" data-code={error.code}>
          {sentenceOf(error)} <span className="error-message">{error.message}</span>
        </p>
      )}
    </section>
  );
}
