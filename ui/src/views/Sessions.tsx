// Sessions: start, open, rename and delete stories; the story being played
// with its branches (switch, rename, delete, new) and its whole tree;
// rewind to any turn; export Markdown/JSON. Nothing moves while a turn runs.

import { useEffect, useState } from "react";
import { api, asAppError, type AppError, type SessionInfo, type SessionView } from "../api";
import { Branches } from "./Branches";
import { ConfirmButton } from "./Confirm";
import { RenameButton } from "./Rename";
import { StoryTreeView } from "./StoryTree";

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
      const name = `${session.session.title.replace(/[^\w-]+/g, "-") || "story"}.${format}`;
      const path = await api.chooseExportFile(format, name);
      if (!path) return;
      const done = await api.exportSession(session.session.id, format, path);
      setNote(`Saved ${done.bytes} bytes to ${done.path}`);
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
    <section className="sessions" aria-label="Sessions">
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
        <input aria-label="New story title" placeholder="Title of a new story" value={title} onChange={(e) => setTitle(e.target.value)} data-testid="new-session-title" />
        <button type="submit" disabled={busy} data-testid="new-session">New story</button>
      </form>
      <div className="columns">
        <div>
          <h2>Stories</h2>
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
                  {s.turns} turns · {new Date(s.updatedAt).toLocaleString()}
                </span>
                {s.id === session?.session.id && <span className="badge">current</span>}
                <RenameButton current={s.title} what={`the story ${s.title}`} disabled={busy} testId="session-rename" onRename={(to) => rename(s, to)} />
                <ConfirmButton
                  label="delete"
                  ariaLabel={`Delete the story ${s.title} with all its turns and branches`}
                  disabled={busy}
                  testId="session-delete"
                  onConfirm={() => remove(s)}
                />
              </li>
            ))}
          </ul>
        </div>
        <div>
          <h2>{session?.session.title ?? "No story"}</h2>
          <div className="row">
            <button onClick={() => exportAs("md")} disabled={!session}>Export Markdown…</button>
            <button onClick={() => exportAs("json")} disabled={!session}>Export JSON…</button>
            <button onClick={() => onRewind(0)} disabled={busy || !session?.turns.length}>Rewind to the start</button>
          </div>
          {note && <p className="muted" role="status">{note}</p>}
          <ol className="turn-list" data-testid="session-turns">
            {session?.turns.map((t) => (
              <li key={t.number}>
                <span className="turn-no">{t.number}.</span> {t.input}
                <button className="link" disabled={busy} onClick={() => onRewind(t.number)} data-testid={`sessions-rewind-${t.number}`}>
                  rewind here
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
