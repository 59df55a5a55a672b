// The game master's table beside the story (docs/game-master.md, "The
// player at the table"): the scene (where, who is with the player, the
// tension), the story's threads, the people met with what they want and
// how they regard the player, and the facts the story settled or the
// player pinned. The player closes, reopens or renames a thread, adds one,
// and pins a fact; each change is kept with the branch being played. The
// table follows the branch: it is read again whenever the story changes.

import { useEffect, useState } from "react";
import { api, asAppError, type AppError, type SessionView, type StoryTable, type TableChange } from "../api";
import { sentenceOf } from "../errors";

interface Props {
  session: SessionView | null;
  /** While a turn runs, nothing is changed. */
  busy: boolean;
}

export function TablePanel({ session, busy }: Props) {
  const [table, setTable] = useState<StoryTable | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  const [renaming, setRenaming] = useState<number | null>(null);
  const [title, setTitle] = useState("");
  const [newThread, setNewThread] = useState("");
  const [fact, setFact] = useState("");
  const id = session?.session.id ?? null;

  // Read again when the story moves: a turn, a rewind, another branch.
  useEffect(() => {
    setError(null);
    if (!id) return;
    let current = true;
    api.storyTable(id).then(
      (t) => current && setTable(t),
      (e) => current && setError(asAppError(e)),
    );
    return () => {
      current = false;
    };
  }, [id, session]);

  const change = (c: TableChange, done?: () => void) => {
    if (!id) return;
    api.changeTable(id, c).then(
      (t) => {
        setTable(t);
        setError(null);
        done?.();
      },
      (e) => setError(asAppError(e)),
    );
  };

  if (!table || table.tension === 0) {
    return error ? <p role="alert" className="error">{sentenceOf(error)}</p> : null;
  }
  const present = table.scene.present.length ? table.scene.present.join(", ") : "no one";
  return (
    <aside className="table-panel" aria-label="The table" data-testid="table-panel">
      <section aria-label="Scene" data-testid="table-scene">
        <h2>Scene {Math.max(table.scene.number, 1)}</h2>
        {table.scene.where && <p>{table.scene.where}</p>}
        <p>
          With you: <span data-testid="table-present">{present}</span>
        </p>
        {table.scene.goal && <p data-testid="table-goal">After: {table.scene.goal}</p>}
        <p>
          Tension <meter min={1} max={9} value={table.tension} aria-label="Tension" /> {table.tension} of 9
        </p>
      </section>
      <section aria-label="Threads">
        <h2>Threads</h2>
        <ol data-testid="table-threads">
          {table.threads.map((t, i) => (
            <li key={i} data-testid={`thread-${i + 1}`} data-closed={t.closed}>
              {renaming === i + 1 ? (
                <form
                  onSubmit={(e) => {
                    e.preventDefault();
                    change({ kind: "renameThread", thread: i + 1, title }, () => setRenaming(null));
                  }}
                >
                  <input aria-label="New title" data-testid={`thread-title-${i + 1}`} value={title} maxLength={200} onChange={(e) => setTitle(e.target.value)} />
                  <button type="submit" disabled={busy}>Save</button>
                  <button type="button" onClick={() => setRenaming(null)}>Cancel</button>
                </form>
              ) : (
                <>
                  <span className={t.closed ? "muted closed" : ""}>{t.title}</span>{" "}
                  <span className="muted">{t.closed ? "(closed)" : `(${t.progress} of ${t.steps})`}</span>{" "}
                  <button
                    type="button"
                    disabled={busy}
                    data-testid={`thread-toggle-${i + 1}`}
                    onClick={() => change(t.closed ? { kind: "reopenThread", thread: i + 1 } : { kind: "closeThread", thread: i + 1 })}
                  >
                    {t.closed ? "Reopen" : "Close"}
                  </button>
                  <button
                    type="button"
                    disabled={busy}
                    data-testid={`thread-rename-${i + 1}`}
                    onClick={() => {
                      setRenaming(i + 1);
                      setTitle(t.title);
                    }}
                  >
                    Rename
                  </button>
                </>
              )}
            </li>
          ))}
        </ol>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            change({ kind: "addThread", title: newThread }, () => setNewThread(""));
          }}
        >
          <input aria-label="A new thread" placeholder="A new thread" data-testid="thread-new" value={newThread} maxLength={200} onChange={(e) => setNewThread(e.target.value)} />
          <button type="submit" disabled={busy || !newThread.trim()}>Add</button>
        </form>
      </section>
      <section aria-label="People">
        <h2>People</h2>
        <ul data-testid="table-people">
          {table.people.map((p) => (
            <li key={p.name} data-attitude={p.attitude} data-met={p.met}>
              <strong>{p.name}</strong> <span className="muted">({p.attitude}{p.met ? "" : ", not met yet"})</span>
              {p.wants && <div className="muted">wants {p.wants}</div>}
            </li>
          ))}
        </ul>
      </section>
      <section aria-label="Facts">
        <h2>Facts</h2>
        <ul data-testid="table-facts">
          {table.facts.map((f, i) => (
            <li key={i} data-pinned={f.pinned}>
              {f.pinned && <span className="badge">pinned</span>}{" "}
              {f.text}{" "}
              {f.pinned && (
                <button type="button" disabled={busy} onClick={() => change({ kind: "unpinFact", fact: i + 1 })}>
                  Unpin
                </button>
              )}
            </li>
          ))}
        </ul>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            change({ kind: "pinFact", text: fact }, () => setFact(""));
          }}
        >
          <input aria-label="A fact to pin" placeholder="A fact to pin" data-testid="fact-new" value={fact} maxLength={500} onChange={(e) => setFact(e.target.value)} />
          <button type="submit" disabled={busy || !fact.trim()} data-testid="fact-pin">Pin</button>
        </form>
      </section>
      {error && (
        <p role="alert" className="error" data-testid="table-error">
          {sentenceOf(error)} {error.message}
        </p>
      )}
    </aside>
  );
}
