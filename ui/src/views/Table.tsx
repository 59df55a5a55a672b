// The game master's table beside the story (docs/game-master.md, "The
// player at the table"): the scene (where, who is with the player, the
// tension), the story's threads, the people met with what they want and
// how they regard the player, and the facts the story settled or the
// player pinned. The player closes, reopens or renames a thread, adds one,
// and pins a fact; each change is kept with the branch being played. The
// table follows the branch: it is read again whenever the story changes.

import { useEffect, useState } from "react";
import { Trans, useTranslation } from "react-i18next";
import { api, asAppError, type AppError, type SessionView, type StoryTable, type TableChange } from "../api";
import { sentenceOf } from "../errors";
import { formatNumber } from "../i18n/format";

const ATTITUDES = ["hostile", "wary", "neutral", "friendly", "loyal"] as const;

interface Props {
  session: SessionView | null;
  /** While a turn runs, nothing is changed. */
  busy: boolean;
}

export function TablePanel({ session, busy }: Props) {
  const { t } = useTranslation();
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
  const present = table.scene.present.length ? table.scene.present.join(", ") : t("table.noOne");
  /** A person's attitude in the window's language (the backend sends one of a few English words). */
  const attitude = (word: string) => {
    const known = ATTITUDES.find((a) => a === word);
    return known ? t(`table.attitudes.${known}`) : word;
  };
  return (
    <aside className="table-panel" aria-label={t("table.label")} data-testid="table-panel">
      <section aria-label={t("table.scene")} data-testid="table-scene">
        <h2>{t("table.sceneNumber", { n: formatNumber(Math.max(table.scene.number, 1)) })}</h2>
        {table.scene.where && <p>{table.scene.where}</p>}
        <p>
          <Trans
            i18nKey="table.withYou"
            values={{ names: present }}
            components={{ present: <span data-testid="table-present" /> }}
          />
        </p>
        {table.scene.goal && <p data-testid="table-goal">{t("table.after", { goal: table.scene.goal })}</p>}
        <p>
          {t("table.tension")} <meter min={1} max={9} value={table.tension} aria-label={t("table.tension")} />{" "}
          {t("table.tensionOf", { value: formatNumber(table.tension), max: formatNumber(9) })}
        </p>
      </section>
      <section aria-label={t("table.threads")}>
        <h2>{t("table.threads")}</h2>
        <ol data-testid="table-threads">
          {table.threads.map((thread, i) => (
            <li key={i} data-testid={`thread-${i + 1}`} data-closed={thread.closed}>
              {renaming === i + 1 ? (
                <form
                  onSubmit={(e) => {
                    e.preventDefault();
                    change({ kind: "renameThread", thread: i + 1, title }, () => setRenaming(null));
                  }}
                >
                  <input
                    aria-label={t("table.newTitle")}
                    data-testid={`thread-title-${i + 1}`}
                    value={title}
                    maxLength={200}
                    onChange={(e) => setTitle(e.target.value)}
                  />
                  <button type="submit" disabled={busy}>
                    {t("common.save")}
                  </button>
                  <button type="button" onClick={() => setRenaming(null)}>
                    {t("common.cancel")}
                  </button>
                </form>
              ) : (
                <>
                  <span className={thread.closed ? "muted closed" : ""}>{thread.title}</span>{" "}
                  <span className="muted">
                    {thread.closed
                      ? t("table.closed")
                      : t("table.progress", { progress: formatNumber(thread.progress), steps: formatNumber(thread.steps) })}
                  </span>{" "}
                  <button
                    type="button"
                    disabled={busy}
                    data-testid={`thread-toggle-${i + 1}`}
                    onClick={() =>
                      change(thread.closed ? { kind: "reopenThread", thread: i + 1 } : { kind: "closeThread", thread: i + 1 })
                    }
                  >
                    {thread.closed ? t("table.reopen") : t("table.close")}
                  </button>
                  <button
                    type="button"
                    disabled={busy}
                    data-testid={`thread-rename-${i + 1}`}
                    onClick={() => {
                      setRenaming(i + 1);
                      setTitle(thread.title);
                    }}
                  >
                    {t("table.rename")}
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
          <input
            aria-label={t("table.newThread")}
            placeholder={t("table.newThread")}
            data-testid="thread-new"
            value={newThread}
            maxLength={200}
            onChange={(e) => setNewThread(e.target.value)}
          />
          <button type="submit" disabled={busy || !newThread.trim()}>
            {t("table.add")}
          </button>
        </form>
      </section>
      <section aria-label={t("table.people")}>
        <h2>{t("table.people")}</h2>
        <ul data-testid="table-people">
          {table.people.map((p) => (
            <li key={p.name} data-attitude={p.attitude} data-met={p.met}>
              <strong>{p.name}</strong>{" "}
              <span className="muted">
                {t(p.met ? "table.attitude" : "table.attitudeNotMet", { attitude: attitude(p.attitude) })}
              </span>
              {p.wants && <div className="muted">{t("table.wants", { wants: p.wants })}</div>}
            </li>
          ))}
        </ul>
      </section>
      <section aria-label={t("table.facts")}>
        <h2>{t("table.facts")}</h2>
        <ul data-testid="table-facts">
          {table.facts.map((f, i) => (
            <li key={i} data-pinned={f.pinned}>
              {f.pinned && <span className="badge">{t("table.pinned")}</span>}{" "}
              {f.text}{" "}
              {f.pinned && (
                <button type="button" disabled={busy} onClick={() => change({ kind: "unpinFact", fact: i + 1 })}>
                  {t("table.unpin")}
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
          <input
            aria-label={t("table.factToPin")}
            placeholder={t("table.factToPin")}
            data-testid="fact-new"
            value={fact}
            maxLength={500}
            onChange={(e) => setFact(e.target.value)}
          />
          <button type="submit" disabled={busy || !fact.trim()} data-testid="fact-pin">
            {t("table.pin")}
          </button>
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
