// The story's branches: the one played now marked, switch to another,
// rename or delete one, or start a new one where the story stands
// (docs/stories.md). Nothing here moves while a turn runs.

import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asAppError, type AppError, type BranchInfo, type SessionView } from "../api";
import { ConfirmButton } from "./Confirm";
import { RenameButton } from "./Rename";

interface Props {
  session: SessionView;
  busy: boolean;
  /** A move about the tree; the story is shown where it lands. */
  onMove: (f: () => Promise<SessionView | null | undefined>) => void;
  onError: (e: AppError) => void;
}

export function Branches({ session, busy, onMove, onError }: Props) {
  const { t } = useTranslation();
  const id = session.session.id;
  const [branches, setBranches] = useState<BranchInfo[]>([]);
  useEffect(() => {
    api.branches(id).then(setBranches, (e) => onError(asAppError(e)));
  }, [id, session, onError]);

  return (
    <section className="branches" aria-labelledby="branches-title">
      <h3 id="branches-title">{t("branches.title")}</h3>
      <ul className="list" data-testid="branch-list">
        {branches.map((b) => (
          <li
            key={b.name}
            className={b.current ? "current" : ""}
            aria-current={b.current ? "true" : undefined}
            data-testid={`branch-${b.name}`}
            data-current={b.current}
          >
            <span className="branch-name">{b.name}</span>
            <span className="muted">
              {" "}
              {t("branches.turns", { count: b.turns })}
            </span>
            {b.current ? (
              <span className="badge">{t("common.current")}</span>
            ) : (
              <button
                type="button"
                className="link"
                disabled={busy}
                onClick={() => onMove(() => api.switchBranch(id, b.name))}
                aria-label={t("branches.switchLabel", { name: b.name })}
                data-testid={`branch-switch-${b.name}`}
              >
                {t("branches.switch")}
              </button>
            )}
            <RenameButton
              current={b.name}
              what={t("branches.what", { name: b.name })}
              disabled={busy}
              testId={`branch-rename-${b.name}`}
              onRename={(to) =>
                onMove(async () => {
                  await api.renameBranch(id, b.name, to);
                  return undefined;
                })
              }
            />
            {branches.length > 1 && (
              <ConfirmButton
                label={t("common.delete")}
                ariaLabel={t("branches.deleteLabel", { name: b.name })}
                disabled={busy}
                testId={`branch-delete-${b.name}`}
                onConfirm={() => onMove(() => api.deleteBranch(id, b.name))}
              />
            )}
          </li>
        ))}
      </ul>
      <button
        type="button"
        disabled={busy}
        onClick={() =>
          onMove(async () => {
            await api.branch(id, session.turns.length, null);
            return undefined;
          })
        }
        data-testid="branch-new"
      >
        {t("branches.new")}
      </button>
    </section>
  );
}
