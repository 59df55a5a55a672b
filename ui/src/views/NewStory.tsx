// The "New story" dialog: start from a built-in or saved scenario in one
// click, start around a character card, or add a card or a lorebook to the
// story being played (docs/scenarios.md).

import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
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
  const { t } = useTranslation();
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
          setNote(
            t("newStory.unreadable", {
              count: list.unreadable.length,
              problems: list.unreadable.map((u) => u.problem).join("; "),
            }),
          );
        }
      },
      (e) => onError(asAppError(e)),
    );
  }, [onError, t]);

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
      setNote(
        done.skipped.length
          ? t("newStory.loreAddedSkipped", { count: done.entries, skipped: done.skipped.length })
          : t("newStory.loreAdded", { count: done.entries }),
      );
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
          <h2 id="new-story-title">{t("newStory.title")}</h2>
          <button className="link" onClick={onClose} aria-label={t("common.close")}>
            ×
          </button>
        </header>
        <h3>{t("newStory.fromScenario")}</h3>
        {scenarios === null ? (
          <p className="hint">{t("newStory.loadingScenarios")}</p>
        ) : (
          <ul className="scenario-list">
            {scenarios.map((s) => (
              <li key={s.name} className="scenario" data-testid={`scenario-${s.name}`}>
                <div>
                  <strong>{s.title}</strong> {!s.builtin && <span className="badge">{t("newStory.saved")}</span>}
                  <p className="premise">{s.premise}</p>
                </div>
                <button className="start" disabled={working} onClick={() => start(s.name)}>
                  {t("newStory.start")}
                </button>
              </li>
            ))}
          </ul>
        )}
        <h3>{t("newStory.cardsAndLore")}</h3>
        <fieldset className="role" disabled={working}>
          <legend>{t("newStory.cardRole")}</legend>
          <label>
            <input type="radio" name="card-role" checked={role === "npc"} onChange={() => setRole("npc")} /> {t("newStory.npc")}
          </label>
          <label>
            <input type="radio" name="card-role" checked={role === "player"} onChange={() => setRole("player")} /> {t("newStory.player")}
          </label>
        </fieldset>
        <div className="dialog-actions">
          <button disabled={working} onClick={() => importCard(null)} data-testid="import-card-new">
            {t("newStory.fromCard")}
          </button>
          {current && (
            <button disabled={working} onClick={() => importCard(current.session.id)} data-testid="import-card-current">
              {t("newStory.addCard")}
            </button>
          )}
          {current && (
            <button disabled={working} onClick={importLore} data-testid="import-lore">
              {t("newStory.addLore")}
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
