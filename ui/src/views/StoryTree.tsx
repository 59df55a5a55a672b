// The whole story as an indented list: every turn under the one it
// follows, the turns of the branch played now marked, the branches' heads
// named, and how many versions a turn's narration has.

import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asAppError, type AppError, type SessionView, type StoryTree, type TreeTurn } from "../api";

interface Props {
  session: SessionView;
  busy: boolean;
  /** Starts a branch after turn `turn` of the branch played now. */
  onBranchHere: (turn: number) => void;
  onError: (e: AppError) => void;
}

function excerpt(text: string, max = 80): string {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function StoryTreeView({ session, busy, onBranchHere, onError }: Props) {
  const { t } = useTranslation();
  const [tree, setTree] = useState<StoryTree | null>(null);
  const id = session.session.id;
  useEffect(() => {
    api.tree(id).then(setTree, (e) => onError(asAppError(e)));
  }, [id, session, onError]);

  const children = useMemo(() => {
    const by = new Map<string | null, TreeTurn[]>();
    for (const t of tree?.turns ?? []) {
      const key = t.parent ?? null;
      by.set(key, [...(by.get(key) ?? []), t]);
    }
    return by;
  }, [tree]);
  const onPath = useMemo(() => new Set(session.turns.map((t) => t.id)), [session]);
  const heads = useMemo(() => {
    const by = new Map<string, string[]>();
    for (const b of tree?.branches ?? []) {
      if (b.head) by.set(b.head, [...(by.get(b.head) ?? []), b.name]);
    }
    return by;
  }, [tree]);

  if (!tree) return null;
  const render = (parent: string | null) => {
    const turns = children.get(parent) ?? [];
    if (turns.length === 0) return null;
    return (
      <ul className="tree-level">
        {turns.map((turn) => {
          const here = onPath.has(turn.id);
          return (
            <li key={turn.id} className={here ? "on-path" : ""} data-testid="tree-turn" data-on-path={here}>
              <span className="turn-no">{t("tree.turnNumber", { n: turn.number })}</span>{" "}
              <span className="tree-input">{turn.input}</span>
              <span className="muted"> — {excerpt(turn.narrative)}</span>
              {turn.narrations.length > 1 && (
                <span className="badge">{t("tree.versions", { count: turn.narrations.length })}</span>
              )}
              {(heads.get(turn.id) ?? []).map((name) => (
                <span key={name} className="badge branch-head">
                  {name}
                </span>
              ))}
              {here && (
                <button
                  type="button"
                  className="link"
                  disabled={busy}
                  onClick={() => onBranchHere(turn.number)}
                  aria-label={t("tree.branchHereLabel", { turn: turn.number, input: turn.input })}
                  data-testid={`tree-branch-here-${turn.number}`}
                >
                  {t("tree.branchHere")}
                </button>
              )}
              {render(turn.id)}
            </li>
          );
        })}
      </ul>
    );
  };
  return (
    <section className="story-tree" aria-labelledby="tree-title" data-testid="story-tree">
      <h3 id="tree-title">{t("tree.title")}</h3>
      {tree.turns.length === 0 ? <p className="muted">{t("tree.empty")}</p> : render(null)}
    </section>
  );
}
