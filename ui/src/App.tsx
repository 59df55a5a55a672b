// The window: a tab bar (Alt+1…6), the current view, and the state the views
// share — the open session, the turn being played and the skills.

import { useCallback, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import {
  api,
  asAppError,
  events,
  type Alternative,
  type AppError,
  type SessionView,
  type SkillChange,
  type SkillsView,
  type ModelView,
  type PanicNote,
  type TurnEvent,
  type TurnView,
} from "./api";
import { sentenceOf } from "./errors";
import { applyEvent, fromRecord, startTurn, type TurnModel } from "./turn";
import { PlayView } from "./views/Play";
import { SessionsView } from "./views/Sessions";
import { SkillsList } from "./views/Skills";
import { SettingsView } from "./views/Settings";
import { InspectorView } from "./views/Inspector";
import { ModelPanel } from "./views/Model";
import { ModelStatusBar } from "./views/ModelStatus";
import { ModelOffer } from "./views/ModelOffer";
import { NewStoryDialog } from "./views/NewStory";
import { DeveloperToggle, useDeveloperTools } from "./views/DeveloperToggle";
import { LanguageSetting } from "./views/LanguageSetting";
import type { TurnActions } from "./views/TurnControls";

const TABS = ["play", "sessions", "skills", "settings", "inspector", "model"] as const;
export type Tab = (typeof TABS)[number];

export function App() {
  const { t } = useTranslation();
  const [tab, setTab] = useState<Tab>("play");
  const [session, setSession] = useState<SessionView | null>(null);
  const [live, setLive] = useState<TurnModel | null>(null);
  const [busy, setBusy] = useState(false);
  const [stopping, setStopping] = useState(false);
  const [alternatives, setAlternatives] = useState<Alternative[]>([]);
  const [error, setError] = useState<AppError | null>(null);
  // A panic inside the app: what failed and where the log is.
  const [panic, setPanic] = useState<PanicNote | null>(null);
  const [skills, setSkills] = useState<SkillsView | null>(null);
  const [changes, setChanges] = useState<SkillChange[]>([]);
  const [model, setModel] = useState<ModelView | null>(null);
  const liveRef = useRef<TurnModel | null>(null);
  const [developer, setDeveloper] = useDeveloperTools();
  const [newStory, setNewStory] = useState(false);
  // The Inspector is a tab only with developer tools on.
  const tabs = TABS.filter((name) => name !== "inspector" || developer);

  const refreshSkills = useCallback(() => {
    api.skills().then(setSkills, (e) => setError(asAppError(e)));
  }, []);
  const refreshModel = useCallback(() => {
    api.modelStatus().then(setModel, (e) => setError(asAppError(e)));
  }, []);

  useEffect(() => {
    api.currentSession().then(setSession, (e) => setError(asAppError(e)));
    refreshSkills();
    refreshModel();
    const offs = [
      events.skillChanged((c) => {
        setChanges((prev) => [c, ...prev].slice(0, 20));
        refreshSkills();
      }),
      events.modelProgress((p) =>
        setModel((m) => (m ? { ...m, loading: { ...m.loading, active: true, path: p.path, progress: p.progress } } : m)),
      ),
      events.modelLoaded(() => refreshModel()),
      events.modelFailed(() => refreshModel()),
      events.panicked(setPanic),
    ];
    return () => offs.forEach((p) => p.then((off) => off()));
  }, [refreshSkills, refreshModel]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey && e.key >= "1" && e.key <= String(tabs.length)) {
        setTab(tabs[Number(e.key) - 1]);
        e.preventDefault();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [tabs.length, developer]);

  useEffect(() => {
    if (!developer && tab === "inspector") setTab("play");
  }, [developer, tab]);

  /**
   * Runs something that plays or tells a turn, showing its live events as
   * the turn being played: a played turn stays shown, a retold one is shown
   * in the story it changed.
   */
  const runTurn = useCallback(
    async (input: string, run: (onEvent: (e: TurnEvent) => void) => Promise<TurnView | SessionView>) => {
      setBusy(true);
      setStopping(false);
      setError(null);
      liveRef.current = startTurn(input);
      setLive(liveRef.current);
      try {
        const out = await run((ev) => {
          liveRef.current = applyEvent(liveRef.current ?? startTurn(input), ev);
          setLive(liveRef.current);
        });
        if ("turn" in out) {
          const done = fromRecord(out.turn, liveRef.current ?? undefined);
          liveRef.current = done;
          setLive(done);
          setSession(await api.currentSession());
        } else {
          liveRef.current = null;
          setLive(null);
          setSession(out);
        }
      } catch (e) {
        setError(asAppError(e));
        setLive((m) => (m ? { ...m, phase: "failed" } : m));
      } finally {
        setBusy(false);
        setStopping(false);
        refreshSkills();
      }
    },
    [refreshSkills],
  );

  const play = useCallback((input: string) => runTurn(input, (on) => api.play(input, on)), [runTurn]);

  const stop = useCallback(() => {
    if (!busy || !session) return;
    setStopping(true);
    api.stopTurn(session.session.id).catch((e) => setError(asAppError(e)));
  }, [busy, session]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && busy) {
        stop();
        e.preventDefault();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [busy, stop]);

  const showSession = useCallback((v: SessionView) => {
    setSession(v);
    liveRef.current = null;
    setLive(null);
  }, []);

  /** A move about the story's tree; shows the story where it lands. */
  const move = useCallback(
    async (f: () => Promise<SessionView | null | undefined>) => {
      setError(null);
      try {
        const v = await f();
        showSession(v ?? (await api.currentSession()));
      } catch (e) {
        setError(asAppError(e));
      }
    },
    [showSession],
  );

  // The last turn's versions, read again whenever the story changes.
  useEffect(() => {
    if (!session || busy || session.turns.length === 0) {
      setAlternatives([]);
      return;
    }
    let current = true;
    api.alternatives(session.session.id).then(
      (all) => current && setAlternatives(all),
      () => current && setAlternatives([]),
    );
    return () => {
      current = false;
    };
  }, [session, busy]);

  const id = session?.session.id;
  const lastInput = session?.turns[session.turns.length - 1]?.input ?? "";
  const actions: TurnActions = {
    regenerateNarration: () => id && runTurn(lastInput, (on) => api.regenerateNarration(id, on)),
    regenerateTurn: () => id && runTurn(lastInput, (on) => api.regenerateTurn(id, on)),
    continueNarration: () => id && runTurn(lastInput, (on) => api.continueNarration(id, on)),
    swipe: (number) => id && move(() => api.swipe(id, number)),
    editInput: (turn, input) => id && runTurn(input, (on) => api.editTurn(id, turn, input, on)),
    correct: (change) => id && runTurn(lastInput, (on) => api.correctTurn(id, change, on)),
    editNarration: (turn, text) => id && move(() => api.editNarration(id, turn, text)),
    branchHere: (turn) =>
      id &&
      move(async () => {
        await api.branch(id, turn, null);
        return undefined;
      }),
  };
  const undo = () => id && move(() => api.undo(id));
  const redo = () => id && move(() => api.redo(id));

  const rewind = useCallback(
    async (turn: number) => {
      if (!session) return;
      try {
        showSession(await api.rewind(session.session.id, turn));
      } catch (e) {
        setError(asAppError(e));
      }
    },
    [session, showSession],
  );

  // The Inspector shows the turn being played, else the session's last turn.
  const lastSaved = session?.turns[session.turns.length - 1];
  const inspected = live ?? (lastSaved ? fromRecord(lastSaved) : null);
  const status = busy
    ? stopping
      ? t("app.status.stopping")
      : live?.phase === "running"
        ? t("app.status.running")
        : t("app.status.thinking")
    : t("app.status.ready");

  return (
    <div className="app">
      <header className="topbar">
        <span className="brand">Narratoria</span>
        <nav role="tablist" aria-label={t("app.views")}>
          {tabs.map((name, i) => (
            <button
              key={name}
              role="tab"
              id={`tab-${name}`}
              aria-selected={tab === name}
              className={tab === name ? "tab active" : "tab"}
              title={t("app.tabShortcut", { n: i + 1 })}
              onClick={() => setTab(name)}
            >
              {t(`app.tabs.${name}`)}
            </button>
          ))}
        </nav>
        <button className="new-story-button" onClick={() => setNewStory(true)} disabled={busy} data-testid="new-story">
          {t("app.newStory")}
        </button>
        <span className={busy ? "status busy" : "status"} role="status" data-testid="status">
          {busy && <span className="spinner" aria-hidden />}
          {status}
        </span>
        <ModelStatusBar model={model} />
      </header>
      {error && (
        <div className="banner error" role="alert" data-testid="error-banner">
          <strong data-code={error.code}>{sentenceOf(error)}</strong>
          <span className="error-message">{error.message}</span>
          <button className="link" onClick={() => setError(null)} aria-label={t("common.dismiss")}>
            ×
          </button>
        </div>
      )}
      {panic && (
        <div className="banner error" role="alert" data-testid="panic-banner">
          <strong>{t("app.panic.title")}</strong>
          <span className="error-message">{t("app.panic.detail", { message: panic.message, logDir: panic.logDir })}</span>
          <button className="link" onClick={() => api.openLogFolder().catch(() => undefined)}>
            {t("app.panic.openLog")}
          </button>
          <button className="link" onClick={() => setPanic(null)} aria-label={t("common.dismiss")}>
            ×
          </button>
        </div>
      )}
      <ModelOffer
        refreshKey={`${tab}|${model?.model.writerPath ?? ""}|${model?.loading.active ? "loading" : ""}`}
        onChosen={refreshModel}
      />
      <main>
        {tab === "play" && (
          <PlayView
            session={session}
            live={live}
            busy={busy}
            stopping={stopping}
            alternatives={alternatives}
            actions={actions}
            onPlay={play}
            onRewind={rewind}
            onStop={stop}
            onUndo={undo}
            onRedo={redo}
          />
        )}
        {tab === "sessions" && (
          <SessionsView
            session={session}
            busy={busy}
            onShow={showSession}
            onMove={move}
            onRewind={rewind}
            onError={setError}
          />
        )}
        {tab === "skills" && (
          <SkillsList skills={skills} changes={changes} onSkills={setSkills} onError={setError} />
        )}
        {tab === "settings" && (
          <>
            <LanguageSetting />
            <DeveloperToggle on={developer} onChange={setDeveloper} />
            <SettingsView skills={skills} onSaved={refreshSkills} />
          </>
        )}
        {tab === "inspector" && developer && <InspectorView turn={inspected} sessionId={id} />}
        {tab === "model" && <ModelPanel model={model} onError={setError} onRefresh={refreshModel} />}
      </main>
      {newStory && (
        <NewStoryDialog
          current={session}
          onClose={() => setNewStory(false)}
          onStory={showSession}
          onError={setError}
        />
      )}
    </div>
  );
}
