// Sessions: start, open, continue; rewind to any turn; export Markdown/JSON.

import { useEffect, useState } from "react";
import { api, asAppError, type AppError, type SessionInfo, type SessionView } from "../api";

interface Props {
  session: SessionView | null;
  onShow: (v: SessionView) => void;
  onRewind: (turn: number) => void;
  onError: (e: AppError) => void;
}

export function SessionsView({ session, onShow, onRewind, onError }: Props) {
  const [list, setList] = useState<SessionInfo[]>([]);
  const [title, setTitle] = useState("");
  const [note, setNote] = useState("");

  useEffect(() => {
    api.sessions().then(setList, (e) => onError(asAppError(e)));
  }, [session, onError]);

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
        <button type="submit" data-testid="new-session">New story</button>
      </form>
      <div className="columns">
        <div>
          <h2>Stories</h2>
          <ul className="list" data-testid="session-list">
            {list.map((s) => (
              <li key={s.id} className={s.id === session?.session.id ? "current" : ""}>
                <button className="link" onClick={() => run(async () => onShow(await api.openSession(s.id)))}>
                  {s.title}
                </button>
                <span className="muted">
                  {s.turns} turns · {new Date(s.updatedAt).toLocaleString()}
                </span>
                {s.id === session?.session.id && <span className="badge">current</span>}
              </li>
            ))}
          </ul>
        </div>
        <div>
          <h2>{session?.session.title ?? "No story"}</h2>
          <div className="row">
            <button onClick={() => exportAs("md")} disabled={!session}>Export Markdown…</button>
            <button onClick={() => exportAs("json")} disabled={!session}>Export JSON…</button>
            <button onClick={() => onRewind(0)} disabled={!session?.turns.length}>Rewind to the start</button>
          </div>
          {note && <p className="muted" role="status">{note}</p>}
          <ol className="turn-list" data-testid="session-turns">
            {session?.turns.map((t) => (
              <li key={t.number}>
                <span className="turn-no">{t.number}.</span> {t.input}
                <button className="link" onClick={() => onRewind(t.number)} data-testid={`sessions-rewind-${t.number}`}>
                  rewind here
                </button>
              </li>
            ))}
          </ol>
        </div>
      </div>
    </section>
  );
}
