// Play: the story so far (the scenario's opening, then each turn's
// narration as sanitised Markdown), the turn being played (streamed
// narration, dice, images and sounds), and the input box (Enter sends).
// New narration is announced politely to screen readers. While a turn
// runs, Stop (or Escape) stops it; otherwise each turn can be edited or
// branched from, and the last one told again, played again or flipped
// between its versions; undo and redo move along the branch. Above the
// story, the author's note and the story's language (AuthorNote), and
// the game master's table: scene, threads, people, facts (Table).

import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { convertFileSrc } from "@tauri-apps/api/core";
import { useTranslation } from "react-i18next";
import { events, type Alternative, type ServerWait, type SessionView } from "../api";
import { fromRecord, mechanicsOf, type AssetView, type DiceRoll, type TurnModel } from "../turn";
import { openingOf } from "../stories";
import { Prose } from "./Prose";
import { Standings } from "./Standings";
import { TablePanel } from "./Table";
import { AuthorNote } from "./AuthorNote";
import { LastTurnControls, TurnEditButtons, type TurnActions } from "./TurnControls";
import { ACTION_CHARS } from "../bounds";
import i18n from "../i18n";

interface Props {
  session: SessionView | null;
  live: TurnModel | null;
  busy: boolean;
  /** Stop was pressed and the turn is winding down. */
  stopping: boolean;
  /** The last turn's versions. */
  alternatives: Alternative[];
  actions: TurnActions;
  onPlay: (input: string) => void;
  onRewind: (turn: number) => void;
  onStop: () => void;
  onUndo: () => void;
  onRedo: () => void;
}

export function PlayView({
  session,
  live,
  busy,
  stopping,
  alternatives,
  actions,
  onPlay,
  onRewind,
  onStop,
  onUndo,
  onRedo,
}: Props) {
  const { t } = useTranslation();
  const [input, setInput] = useState("");
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const endRef = useRef<HTMLDivElement>(null);
  const past = useMemo(() => (session?.turns ?? []).map((t) => fromRecord(t)), [session]);
  const liveIsSaved = live?.number !== undefined && past.some((t) => t.number === live.number);
  const opening = openingOf(session);

  useEffect(() => {
    if (!busy) inputRef.current?.focus();
  }, [busy]);
  const wait = useServerWait(busy);
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
    <section className="play" aria-label={t("play.label")}>
      <header className="play-header">
        <h1 className="session-title">{session?.session.title ?? t("common.ellipsis")}</h1>
        <div className="row" role="toolbar" aria-label={t("play.storyToolbar")}>
          {session?.session.branch && (
            <span className="badge" data-testid="current-branch" title={t("play.branchTitle")}>
              {t("play.branch", { name: session.session.branch })}
            </span>
          )}
          <button type="button" onClick={onUndo} disabled={busy || !session?.turns.length} data-testid="undo" aria-label={t("play.undoLabel")}>
            {t("play.undo")}
          </button>
          <button type="button" onClick={onRedo} disabled={busy || !session} data-testid="redo" aria-label={t("play.redoLabel")}>
            {t("play.redo")}
          </button>
        </div>
      </header>
      <Standings state={session?.state} />
      <AuthorNote session={session?.session.id ?? null} busy={busy} />
      <div className="play-body">
      <div className="story" data-testid="story" aria-live="polite" aria-relevant="additions text">
        {opening && <Prose className="opening" text={opening} testId="opening" />}
        {past.length === 0 && !live && (
          <p className="hint">{t("play.hint")}</p>
        )}
        {past.map((turn, i) => (
          <TurnBlock
            key={turn.number}
            turn={turn}
            onRewind={busy ? undefined : () => onRewind(turn.number!)}
            streamed={liveIsSaved && live?.number === turn.number ? live : null}
            controls={
              <>
                <TurnEditButtons
                  turn={turn.number!}
                  input={turn.input}
                  narrative={turn.narrative ?? ""}
                  actions={actions}
                  disabled={busy}
                />
                {i === past.length - 1 && (
                  <LastTurnControls alternatives={alternatives} mechanics={mechanicsOf(turn)} actions={actions} disabled={busy} />
                )}
              </>
            }
          />
        ))}
        {live && !liveIsSaved && <TurnBlock turn={live} live />}
        <div ref={endRef} />
      </div>
      <TablePanel session={session} busy={busy} />
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
          aria-label={t("play.inputLabel")}
          placeholder={t("play.inputPlaceholder")}
          value={input}
          rows={2}
          maxLength={ACTION_CHARS}
          disabled={busy}
          onChange={(e) => setInput(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              send();
            }
          }}
        />
        {wait && (
          <p className="muted small server-wait" role="status" data-testid="server-wait" data-role={wait.role}>
            {serverWaitWords(wait)}
          </p>
        )}
        {busy ? (
          <button
            type="button"
            className="stop"
            onClick={onStop}
            disabled={stopping}
            data-testid="stop-turn"
            aria-label={t("play.stopLabel")}
            title={t("play.escapeKey")}
          >
            {stopping ? t("app.status.stopping") : t("play.stop")}
          </button>
        ) : (
          <button type="submit" disabled={!input.trim()} data-testid="play-send">
            {t("play.send")}
          </button>
        )}
      </form>
    </section>
  );
}

/**
 * What the window says while a server keeps the turn waiting, from the
 * wait's own fields (the backend's `message` is English): the server's
 * program when its label names one ("Ollama at HOST"), else "the server".
 */
function serverWaitWords(wait: ServerWait): string {
  const named = /^(.+) at \S+$/.exec(wait.server)?.[1];
  const server = named && named !== "the server" ? named : null;
  const key = wait.cold
    ? server
      ? "play.serverWait.coldNamed"
      : "play.serverWait.cold"
    : server
      ? "play.serverWait.warmNamed"
      : "play.serverWait.warm";
  return i18n.t(key, { server, model: wait.model });
}

/** The external server the turn is waiting on, while it waits; cleared
 *  when it answers or the turn ends. */
function useServerWait(busy: boolean): ServerWait | null {
  const [wait, setWait] = useState<ServerWait | null>(null);
  useEffect(() => {
    const unlisten = events.serverWait((w) => setWait(w.answered ? null : w));
    return () => {
      unlisten.then((f) => f()).catch(() => undefined);
    };
  }, []);
  useEffect(() => {
    if (!busy) setWait(null);
  }, [busy]);
  return busy ? wait : null;
}

function TurnBlock({
  turn,
  live,
  onRewind,
  streamed,
  controls,
}: {
  turn: TurnModel;
  live?: boolean;
  onRewind?: () => void;
  streamed?: TurnModel | null;
  controls?: ReactNode;
}) {
  const { t } = useTranslation();
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
            title={t("play.rewindTitle")}
            aria-label={t("play.rewindLabel", { turn: turn.number })}
            data-testid={`rewind-${turn.number}`}
          >
            {t("play.rewind")}
          </button>
        )}
      </p>
      {live && turn.phase !== "done" && (
        <p className="phase" data-testid="phase">
          <span className="spinner" aria-hidden /> {turn.phase === "planning" ? t("app.status.thinking") : t("app.status.running")}
          {turn.attempts.length > 1 && <> {t("play.planAttempt", { n: turn.attempts.length })}</>}
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
      {controls && <div className="turn-actions">{controls}</div>}
    </article>
  );
}

/** A roll drawn as dice with their faces, and the total. */
export function Dice({ roll }: { roll: DiceRoll }) {
  const { t } = useTranslation();
  return (
    <figure className="dice" data-testid="dice-roll" aria-label={t("play.diceLabel", { formula: roll.formula, total: roll.total })}>
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
        {roll.reason ? <>{t("play.diceReason", { reason: roll.reason })} </> : null}
        <code>{roll.formula}</code> = <strong data-testid="dice-total">{roll.total}</strong>
      </figcaption>
    </figure>
  );
}

function Asset({ asset }: { asset: AssetView }) {
  const { t } = useTranslation();
  const missing = <p className="asset-missing">{t("play.assetMissing", { kind: asset.kind, id: asset.assetId })}</p>;
  if (!asset.path || !asset.path.startsWith("/")) return missing;
  // Served by the shell's narratoria-asset protocol: only images and sounds
  // inside their own skill's folders, judged when read.
  const src = convertFileSrc(asset.path, "narratoria-asset");
  if (asset.kind === "image") return <img className="asset" src={src} alt={asset.assetId} data-testid="asset-image" />;
  if (asset.kind === "audio") return <audio className="asset" src={src} controls data-testid="asset-audio" />;
  return missing;
}
