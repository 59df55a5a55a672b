// The player's standing with each faction of the story, as the story's
// state holds it now (`reputation.<faction>` = {score, standing}); it
// follows the branch being played.

import { useTranslation } from "react-i18next";
import type { JsonObject } from "../api";
import { formatSigned } from "../i18n/format";

interface Standing {
  id: string;
  name: string;
  score: number;
  standing: string;
}

/** The standings in a story's state, with the factions' names when known. */
export function standingsOf(state: JsonObject | undefined): Standing[] {
  const reputation = state?.reputation;
  if (!reputation || typeof reputation !== "object" || Array.isArray(reputation)) return [];
  const names = new Map<string, string>();
  const factions = state?.factions;
  if (Array.isArray(factions)) {
    for (const f of factions) {
      if (f && typeof f === "object" && !Array.isArray(f) && typeof f.id === "string" && typeof f.name === "string") {
        names.set(f.id, f.name);
      }
    }
  }
  return Object.entries(reputation).flatMap(([id, entry]) => {
    if (!entry || typeof entry !== "object" || Array.isArray(entry) || typeof entry.score !== "number") return [];
    const standing = typeof entry.standing === "string" ? entry.standing : "";
    return [{ id, name: names.get(id) ?? id, score: entry.score, standing }];
  });
}

export function Standings({ state }: { state: JsonObject | undefined }) {
  const { t } = useTranslation();
  const all = standingsOf(state);
  if (all.length === 0) return null;
  return (
    <section className="standings" aria-label={t("standings.label")} data-testid="standings">
      <ul>
        {all.map((s) => (
          <li key={s.id} data-testid={`standing-${s.id}`} data-score={s.score}>
            <span className="faction">{s.name}</span>{" "}
            <strong className="score">{formatSigned(s.score)}</strong>
            {s.standing && <span className="muted"> ({s.standing})</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}
