// The "New story" dialog: start from a built-in or saved scenario in one
// click, start around a character card, or add a card or a lorebook to the
// story being played (docs/scenarios.md).

import { useEffect, useRef, useState } from "react";
import { api, asAppError, type AppError, type SessionView } from "../api";
import { stories, type CardRole, type ScenarioSummary } from "../stories";

interface Props {
  /** The story being played, which cards and lorebooks can join. */
  current: SessionView | null;
  onClose: () => void;
  /** A story was started or changed; show it. */
  onStory: (v: SessionView) => void;
  onError: (e: AppError) => void;
}

export function NewStoryDialog({ current, onClose, onStory, onError }: Props) {
  const [scenarios, setScenarios] = useState<ScenarioSummary[] | null>(null);
  const [role, setRole] = useState<CardRole>("npc");
  const [working, setWorking] = useState(false);
  const [note, setNote] = useState("");
  const dialogRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    stories.scenarios().then(
      (list) => {
        setScenarios(list.scenarios);
        if (list.unreadable.length > 0) {
          setNote(`${list.unreadable.length} saved scenario file(s) could not be read: ${list.unreadable.map((u) => u.problem).join("; ")}`);
        }
      },
      (e) => onError(asAppError(e)),
    );
  }, [onError]);

  useEffect(() => {
    dialogRef.current?.querySelector<HTMLButtonElement>("button.start")?.focus();
  }, [scenarios]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);

  const run = async (f: () => Promise<void>) => {
    setWorking(true);
    try {
      await f();
    } catch (e) {
      onError(asAppError(e));
    } finally {
      setWorking(false);
    }
  };

  const start = (name: string) =>
    run(async () => {
      onStory(await stories.newStory(name));
      onClose();
    });

  const importCard = (into: string | null) =>
    run(async () => {
      // The shell's own dialog: only a file chosen there can be imported.
      const path = await api.chooseImportFile("card");
      if (!path) return;
      const done = await stories.importCard(path, role, into);
      onStory(done.session);
      onClose();
    });

  const importLore = () =>
    run(async () => {
      if (!current) return;
      const path = await api.chooseImportFile("lore");
      if (!path) return;
      const done = await stories.importLore(path, { session: current.session.id });
      const skipped = done.skipped.length ? ` (${done.skipped.length} left out)` : "";
      setNote(`Added ${done.entries} lore entr${done.entries === 1 ? "y" : "ies"} to this story${skipped}.`);
      onStory(await api.currentSession());
    });

  return (
    <div className="dialog-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={dialogRef}
        className="dialog new-story"
        role="dialog"
        aria-modal="true"
        aria-labelledby="new-story-title"
        data-testid="new-story-dialog"
      >
        <header className="dialog-header">
          <h2 id="new-story-title">New story</h2>
          <button className="link" onClick={onClose} aria-label="Close">
            ×
          </button>
        </header>
        <h3>Start from a scenario</h3>
        {scenarios === null ? (
          <p className="hint">Loading scenarios…</p>
        ) : (
          <ul className="scenario-list">
            {scenarios.map((s) => (
              <li key={s.name} className="scenario" data-testid={`scenario-${s.name}`}>
                <div>
                  <strong>{s.title}</strong> {!s.builtin && <span className="badge">saved</span>}
                  <p className="premise">{s.premise}</p>
                </div>
                <button className="start" disabled={working} onClick={() => start(s.name)}>
                  Start
                </button>
              </li>
            ))}
          </ul>
        )}
        <h3>Character cards and lorebooks</h3>
        <fieldset className="role" disabled={working}>
          <legend>A card's character is</legend>
          <label>
            <input type="radio" name="card-role" checked={role === "npc"} onChange={() => setRole("npc")} /> someone you meet
          </label>
          <label>
            <input type="radio" name="card-role" checked={role === "player"} onChange={() => setRole("player")} /> your own character
          </label>
        </fieldset>
        <div className="dialog-actions">
          <button disabled={working} onClick={() => importCard(null)} data-testid="import-card-new">
            New story from a character card…
          </button>
          {current && (
            <button disabled={working} onClick={() => importCard(current.session.id)} data-testid="import-card-current">
              Add a card to this story…
            </button>
          )}
          {current && (
            <button disabled={working} onClick={importLore} data-testid="import-lore">
              Add a lorebook to this story…
            </button>
          )}
        </div>
        {note && (
          <p className="note" role="status">
            {note}
          </p>
        )}
      </div>
    </div>
  );
}
