// The controls of a story's turns: on the last turn, tell it again, play
// it again, tell more and flip between its versions ("2/3"); on any turn,
// edit its words (played again on a new branch) or its narration (in
// place), and start a branch after it (docs/stories.md).

import { useEffect, useRef, useState, type MouseEvent } from "react";
import { useTranslation } from "react-i18next";
import type { Alternative, MechanicsChange } from "../api";
import { ROLL_SKILL } from "../turn";
import { ACTION_CHARS } from "../bounds";

/** A skill the last turn could have used, and whether it did. */
export interface Mechanic {
  skill: string;
  used: boolean;
}

/** What the player can do to the story's turns. */
export interface TurnActions {
  regenerateNarration: () => void;
  regenerateTurn: () => void;
  continueNarration: () => void;
  /** Makes version `number` (1-based) of the last turn the one the story reads. */
  swipe: (number: number) => void;
  editInput: (turn: number, input: string) => void;
  editNarration: (turn: number, text: string) => void;
  branchHere: (turn: number) => void;
  /** Plays the last turn again with its mechanics corrected, and remembers it. */
  correct: (change: MechanicsChange) => void;
}

/** The last turn's controls: its versions and telling it again. */
export function LastTurnControls({
  alternatives,
  mechanics,
  actions,
  disabled,
}: {
  alternatives: Alternative[];
  /** The skills the turn could have used; empty hides the corrections. */
  mechanics: Mechanic[];
  actions: TurnActions;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  const count = alternatives.length;
  const active = alternatives.find((a) => a.active)?.number ?? count;
  const step = (by: number) => actions.swipe(((active - 1 + by + count) % count) + 1);
  return (
    <div className="turn-controls" role="group" aria-label={t("turn.versions")} data-testid="last-turn-controls">
      <button type="button" onClick={actions.regenerateNarration} disabled={disabled} data-testid="regen-narration" aria-label={t("turn.tellAgainLabel")}>
        {t("turn.tellAgain")}
      </button>
      <button type="button" onClick={actions.regenerateTurn} disabled={disabled} data-testid="regen-turn" aria-label={t("turn.playAgainLabel")}>
        {t("turn.playAgain")}
      </button>
      <button type="button" onClick={actions.continueNarration} disabled={disabled} data-testid="continue-narration" aria-label={t("turn.continueLabel")}>
        {t("turn.continue")}
      </button>
      <Corrections mechanics={mechanics} actions={actions} disabled={disabled} />
      {count > 1 && (
        <span className="swipes">
          <button type="button" className="link" onClick={() => step(-1)} disabled={disabled} data-testid="swipe-prev" aria-label={t("turn.previousVersion")}>
            ‹
          </button>
          <span data-testid="swipe-count" aria-label={t("turn.versionOf", { active, count })}>
            {active}/{count}
          </span>
          <button type="button" className="link" onClick={() => step(1)} disabled={disabled} data-testid="swipe-next" aria-label={t("turn.nextVersion")}>
            ›
          </button>
        </span>
      )}
    </div>
  );
}

/**
 * The player's corrections of the last turn's mechanics: it needed a roll
 * it did not get (or got one it did not need), or another skill. The turn
 * is played again so, and the story's routing remembers it.
 */
function Corrections({ mechanics, actions, disabled }: { mechanics: Mechanic[]; actions: TurnActions; disabled: boolean }) {
  const { t } = useTranslation();
  if (mechanics.length === 0) return null;
  const roll = mechanics.find((m) => m.skill === ROLL_SKILL);
  const others = mechanics.filter((m) => m.skill !== ROLL_SKILL);
  return (
    <span className="corrections" role="group" aria-label={t("turn.correct.group")}>
      {roll && (
        <button
          type="button"
          onClick={() => actions.correct({ kind: roll.used ? "needless" : "needed", skill: ROLL_SKILL })}
          disabled={disabled}
          data-testid="correct-roll"
          aria-label={roll.used ? t("turn.correct.noRollLabel") : t("turn.correct.rollLabel")}
        >
          {roll.used ? t("turn.correct.noRoll") : t("turn.correct.roll")}
        </button>
      )}
      {others.length > 0 && (
        <select
          value=""
          disabled={disabled}
          aria-label={t("turn.correct.skillsLabel")}
          data-testid="correct-skill"
          onChange={(e) => {
            const [kind, skill] = e.target.value.split(":");
            if (skill) actions.correct({ kind: kind as MechanicsChange["kind"], skill });
          }}
        >
          <option value="">{t("turn.correct.wrongSkills")}</option>
          {others.map((m) =>
            m.used ? (
              <option key={m.skill} value={`needless:${m.skill}`}>
                {t("turn.correct.needless", { skill: m.skill })}
              </option>
            ) : (
              <option key={m.skill} value={`needed:${m.skill}`}>
                {t("turn.correct.needed", { skill: m.skill })}
              </option>
            ),
          )}
        </select>
      )}
    </span>
  );
}

/** Any turn's controls: edit its words or its narration, branch after it. */
export function TurnEditButtons({
  turn,
  input,
  narrative,
  actions,
  disabled,
}: {
  turn: number;
  input: string;
  narrative: string;
  actions: TurnActions;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<"input" | "narration" | null>(null);
  const [text, setText] = useState("");
  const fieldRef = useRef<HTMLTextAreaElement>(null);
  const opener = useRef<HTMLButtonElement | null>(null);

  useEffect(() => {
    if (editing) fieldRef.current?.focus();
  }, [editing]);

  const open = (what: "input" | "narration", e: MouseEvent<HTMLButtonElement>) => {
    opener.current = e.currentTarget;
    setText(what === "input" ? input : narrative);
    setEditing(what);
  };
  const close = () => {
    setEditing(null);
    opener.current?.focus();
  };
  const save = () => {
    const value = text.trim();
    if (!value || disabled) return;
    if (editing === "input") actions.editInput(turn, value);
    else if (editing === "narration") actions.editNarration(turn, value);
    setEditing(null);
  };

  if (editing) {
    const label =
      editing === "input" ? t("turn.edit.inputLabel", { turn }) : t("turn.edit.narrationLabel", { turn });
    return (
      <form
        className="turn-editor"
        data-testid={`editor-${editing}-${turn}`}
        onSubmit={(e) => {
          e.preventDefault();
          save();
        }}
      >
        <textarea
          ref={fieldRef}
          aria-label={label}
          value={text}
          rows={editing === "input" ? 2 : 6}
          maxLength={editing === "input" ? ACTION_CHARS : undefined}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.preventDefault();
              e.stopPropagation();
              close();
            }
          }}
          data-testid={`edit-${editing}-text`}
        />
        <div className="row">
          <button type="submit" disabled={disabled || !text.trim()} data-testid={`edit-${editing}-save`}>
            {editing === "input" ? t("turn.edit.playFromHere") : t("turn.edit.saveNarration")}
          </button>
          <button type="button" onClick={close}>
            {t("common.cancel")}
          </button>
        </div>
      </form>
    );
  }
  return (
    <span className="turn-edit-buttons">
      <button
        type="button"
        className="link"
        onClick={(e) => open("input", e)}
        disabled={disabled}
        aria-label={t("turn.edit.wordsLabel", { turn })}
        data-testid={`edit-input-${turn}`}
      >
        {t("turn.edit.words")}
      </button>
      <button
        type="button"
        className="link"
        onClick={(e) => open("narration", e)}
        disabled={disabled}
        aria-label={t("turn.edit.narrationButtonLabel", { turn })}
        data-testid={`edit-narration-${turn}`}
      >
        {t("turn.edit.narration")}
      </button>
      <button
        type="button"
        className="link"
        onClick={() => actions.branchHere(turn)}
        disabled={disabled}
        aria-label={t("turn.edit.branchHereLabel", { turn })}
        data-testid={`branch-here-${turn}`}
      >
        {t("turn.edit.branchHere")}
      </button>
    </span>
  );
}
