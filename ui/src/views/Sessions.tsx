// Sessions: start, open, rename and delete stories; the story being played
// with its branches (switch, rename, delete, new) and its whole tree;
// rewind to any turn; export Markdown/JSON. Nothing moves while a turn runs.

import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asAppError, type AppError, type SessionInfo, type SessionView } from "../api";
import { Branches } from "./Branches";
import { ConfirmButton } from "./Confirm";
import { RenameButton } from "./Rename";
import { StoryTreeView } from "./StoryTree";
import { formatDateTime } from "../i18n/format";
import { humanSize } from "../models";

interface Props {
  session: SessionView | null;
  /** A turn is running: the buttons that change stories wait. */
  busy: boolean;
  onShow: (v: SessionView) => void;
  /** A move about the current story's tree; it is shown where it lands. */
  onMove: (f: () => Promise<SessionView | null | undefined>) => void;
  onRewind: (turn: number) => void;
  onError: (e: AppError) => void;
}

export function SessionsView({ session, busy, onShow, onMove, onRewind, onError }: Props) {
  const { t } = useTranslation();
  const [list, setList] = useState<SessionInfo[]>([]);
  const [title, setTitle] = useState("");
  const [note, setNote] = useState("");
  const [listed, setListed] = useState(0);

  useEffect(() => {
    api.sessions().then(setList, (e) => onError(asAppError(e)));
  }, [session, onError, listed]);

  const run = async (f: () => Promise<void>) => {
    try {
      await f();
    } catch (e) {
      onError(asAppError(e));
    }
  };

  const exportAs = (format: "md" | "json") =>
    run(async () => {
      if (!session) return;
      const name = `${session.session.title.replace(/[^\w-]+/g, "-") || t("sessions.defaultFileName")}.${format}`;
      const path = await api.chooseExportFile(format, name);
      if (!path) return;
      const done = await api.exportSession(session.session.id, format, path);
      setNote(t("sessions.exported", { size: humanSize(done.bytes), path: done.path ?? "" }));
    });

  const rename = (s: SessionInfo, to: string) =>
    run(async () => {
      await api.renameSession(s.id, to);
      if (s.id === session?.session.id) onShow(await api.currentSession());
      else setListed((n) => n + 1);
    });

  const remove = (s: SessionInfo) =>
    run(async () => {
      await api.deleteSession(s.id);
      if (s.id === session?.session.id) onShow(await api.currentSession());
      else setListed((n) => n + 1);
    });

  return (
    <section className="sessions" aria-label={t("sessions.label")}>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          run(async () => {
            onShow(await api.newSession(title));
            setTitle("");
          });
        }}
      >
        <input
          aria-label={t("sessions.newTitleLabel")}
          placeholder={t("sessions.newTitlePlaceholder")}
          value={title}
          onChange={(e) => setTitle(e.target.value)}
          data-testid="new-session-title"
        />
        <button type="submit" disabled={busy} data-testid="new-session">
          {t("sessions.newStory")}
        </button>
      </form>
      <div className="columns">
        <div>
          <h2>{t("sessions.stories")}</h2>
          <ul className="list" data-testid="session-list">
            {list.map((s) => (
              <li key={s.id} className={s.id === session?.session.id ? "current" : ""} data-testid={`session-${s.id}`}>
                <button
                  className="link"
                  disabled={busy}
                  onClick={() => run(async () => onShow(await api.openSession(s.id)))}
                  data-testid="session-open"
                >
                  {s.title}
                </button>
                <span className="muted">
                  {t("sessions.turns", { count: s.turns })} · {formatDateTime(s.updatedAt)}
                </span>
                {s.id === session?.session.id && <span className="badge">{t("common.current")}</span>}
                <RenameButton
                  current={s.title}
                  what={t("sessions.storyWhat", { title: s.title })}
                  disabled={busy}
                  testId="session-rename"
                  onRename={(to) => rename(s, to)}
                />
                <ConfirmButton
                  label={t("common.delete")}
                  ariaLabel={t("sessions.deleteLabel", { title: s.title })}
                  disabled={busy}
                  testId="session-delete"
                  onConfirm={() => remove(s)}
                />
              </li>
            ))}
          </ul>
        </div>
        <div>
          <h2>{session?.session.title ?? t("sessions.noStory")}</h2>
          <div className="row">
            <button onClick={() => exportAs("md")} disabled={!session}>
              {t("sessions.exportMarkdown")}
            </button>
            <button onClick={() => exportAs("json")} disabled={!session}>
              {t("sessions.exportJson")}
            </button>
            <button onClick={() => onRewind(0)} disabled={busy || !session?.turns.length}>
              {t("sessions.rewindToStart")}
            </button>
          </div>
          {note && <p className="muted" role="status">{note}</p>}
          <ol className="turn-list" data-testid="session-turns">
            {session?.turns.map((turn) => (
              <li key={turn.number}>
                <span className="turn-no">{t("tree.turnNumber", { n: turn.number })}</span> {turn.input}
                <button
                  className="link"
                  disabled={busy}
                  onClick={() => onRewind(turn.number)}
                  data-testid={`sessions-rewind-${turn.number}`}
                >
                  {t("play.rewind")}
                </button>
              </li>
            ))}
          </ol>
          {session && <Branches session={session} busy={busy} onMove={onMove} onError={onError} />}
          {session && (
            <StoryTreeView
              session={session}
              busy={busy}
              onError={onError}
              onBranchHere={(turn) =>
                onMove(async () => {
                  await api.branch(session.session.id, turn, null);
                  return undefined;
                })
              }
            />
          )}
        </div>
      </div>
    </section>
  );
}
