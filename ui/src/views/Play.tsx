// Play: the story so far (the scenario's opening, then each turn's
// narration as sanitised Markdown), the turn being played (streamed
// narration, dice, images and sounds), and the input box (Enter sends).
// New narration is announced politely to screen readers.

import { useEffect, useMemo, useRef, useState } from "react";
import { convertFileSrc } from "@tauri-apps/api/core";
import type { SessionView } from "../api";
import { fromRecord, type AssetView, type DiceRoll, type TurnModel } from "../turn";
import { openingOf } from "../stories";
import { Prose } from "./Prose";

interface Props {
  session: SessionView | null;
  live: TurnModel | null;
  busy: boolean;
  onPlay: (input: string) => void;
  onRewind: (turn: number) => void;
}

export function PlayView({ session, live, busy, onPlay, onRewind }: Props) {
  const [input, setInput] = useState("");
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const endRef = useRef<HTMLDivElement>(null);
  const past = useMemo(() => (session?.turns ?? []).map((t) => fromRecord(t)), [session]);
  const liveIsSaved = live?.number !== undefined && past.some((t) => t.number === live.number);
  const opening = openingOf(session);

  useEffect(() => {
    if (!busy) inputRef.current?.focus();
  }, [busy]);
  useEffect(() => {
    endRef.current?.scrollIntoView?.({ block: "end" });
  }, [past.length, live]);

  const send = () => {
    const text = input.trim();
    if (!text || busy) return;
    setInput("");
    onPlay(text);
  };

  return (
    <section className="play" aria-label="Play">
      <h1 className="session-title">{session?.session.title ?? "…"}</h1>
      <div className="story" data-testid="story" aria-live="polite" aria-relevant="additions text">
        {opening && <Prose className="opening" text={opening} testId="opening" />}
        {past.length === 0 && !live && (
          <p className="hint">Type what your character does and press Enter.</p>
        )}
        {past.map((t) => (
          <TurnBlock
            key={t.number}
            turn={t}
            onRewind={busy ? undefined : () => onRewind(t.number!)}
            streamed={liveIsSaved && live?.number === t.number ? live : null}
          />
        ))}
        {live && !liveIsSaved && <TurnBlock turn={live} live />}
        <div ref={endRef} />
      </div>
      <form
        className="composer"
        onSubmit={(e) => {
          e.preventDefault();
          send();
        }}
      >
        <textarea
          ref={inputRef}
          data-testid="play-input"
          aria-label="What does your character do?"
          placeholder="What does your character do? (Enter sends, Shift+Enter for a new line)"
          value={input}
          rows={2}
          disabled={busy}
          onChange={(e) => setInput(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              send();
            }
          }}
        />
        <button type="submit" disabled={busy || !input.trim()} data-testid="play-send">
          Send
        </button>
      </form>
    </section>
  );
}

function TurnBlock({
  turn,
  live,
  onRewind,
  streamed,
}: {
  turn: TurnModel;
  live?: boolean;
  onRewind?: () => void;
  streamed?: TurnModel | null;
}) {
  const text = turn.narrative ?? (turn.streamed || turn.attempts[turn.attempts.length - 1]?.plannerText || "");
  const dice = streamed?.dice.length ? streamed.dice : turn.dice;
  return (
    <article className={live ? "turn live" : "turn"} data-testid="turn" data-turn={turn.number ?? "live"}>
      <p className="player-input">
        <span aria-hidden>›</span> {turn.input}
        {onRewind && (
          <button
            type="button"
            className="link rewind"
            onClick={onRewind}
            title="Rewind the story to just after this turn"
            aria-label={`Rewind the story to just after turn ${turn.number}`}
            data-testid={`rewind-${turn.number}`}
          >
            rewind here
          </button>
        )}
      </p>
      {live && turn.phase !== "done" && (
        <p className="phase" data-testid="phase">
          <span className="spinner" aria-hidden /> {turn.phase === "planning" ? "Thinking…" : "Running skills…"}
          {turn.attempts.length > 1 && ` (plan ${turn.attempts.length})`}
        </p>
      )}
      {dice.length > 0 && (
        <div className="dice-row">
          {dice.map((d) => (
            <Dice key={d.key} roll={d} />
          ))}
        </div>
      )}
      {turn.assets.map((a) => (
        <Asset key={a.key} asset={a} />
      ))}
      {text && <Prose className={turn.fallback ? "narration fallback" : "narration"} text={text} testId="narration" />}
    </article>
  );
}

/** A roll drawn as dice with their faces, and the total. */
export function Dice({ roll }: { roll: DiceRoll }) {
  return (
    <figure className="dice" data-testid="dice-roll" aria-label={`${roll.formula} rolled ${roll.total}`}>
      {roll.showIndividualRolls && (
        <div className="faces">
          {roll.rolls.map((r, i) => (
            <span className="die" key={i} data-testid="die-face">
              {r}
            </span>
          ))}
        </div>
      )}
      <figcaption>
        {roll.reason ? `${roll.reason}: ` : ""}
        <code>{roll.formula}</code> = <strong data-testid="dice-total">{roll.total}</strong>
      </figcaption>
    </figure>
  );
}

function Asset({ asset }: { asset: AssetView }) {
  if (!asset.path || !asset.path.startsWith("/")) {
    return <p className="asset-missing">[{asset.kind}: {asset.assetId}]</p>;
  }
  // Served by the shell's narratoria-asset protocol: only images and sounds
  // inside their own skill's folders, judged when read.
  const src = convertFileSrc(asset.path, "narratoria-asset");
  if (asset.kind === "image") return <img className="asset" src={src} alt={asset.assetId} data-testid="asset-image" />;
  if (asset.kind === "audio") return <audio className="asset" src={src} controls data-testid="asset-audio" />;
  return <p className="asset-missing">[{asset.kind}: {asset.assetId}]</p>;
}
