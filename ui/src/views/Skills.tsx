// Skills: every skill with description, health and an enable switch, and
// how its script runs fared (runs, failures by code, p50/p95 per script);
// broken folders with their problem; recent changes seen on disk.

import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import {
  api,
  asAppError,
  type AppError,
  type RunStats,
  type SkillChange,
  type SkillRunStats,
  type SkillStats,
  type SkillsView,
} from "../api";
import i18n from "../i18n";
import { formatMs, formatNumber } from "../i18n/format";

interface Props {
  skills: SkillsView | null;
  changes: SkillChange[];
  onSkills: (v: SkillsView) => void;
  onError: (e: AppError) => void;
}

/** A skill's health as its badge's class names it. */
const HEALTH: Record<string, "healthy" | "degraded" | "failing" | "broken"> = {
  healthy: "healthy",
  degraded: "degraded",
  temporary_failure: "failing",
  temporaryFailure: "failing",
  permanent_failure: "broken",
  permanentFailure: "broken",
};

const CHANGES = ["added", "updated", "removed", "broken"] as const;

/** "TIMEOUT 2, VALIDATION_ERROR 1", or "–" when nothing failed. */
function byCode(stats: RunStats): string {
  const codes = Object.entries(stats.failuresByCode).map(([code, n]) => `${code} ${formatNumber(n)}`);
  return codes.length > 0 ? codes.join(", ") : i18n.t("skills.nothingFailed");
}

/** A skill's runs in all, then a compact table of its scripts. */
function SkillRuns({ name, stats }: { name: string; stats: SkillRunStats | undefined }) {
  const { t } = useTranslation();
  if (!stats) {
    return (
      <p className="muted small" data-testid={`skill-stats-${name}`}>
        {t("skills.noRuns")}
      </p>
    );
  }
  return (
    <div className="skill-stats" data-testid={`skill-stats-${name}`}>
      <p className="small">
        {t("skills.runs", { count: stats.runs })} · {t("skills.failed", { count: stats.failures })}
        {stats.failures > 0 && <span className="muted"> ({byCode(stats)})</span>} ·{" "}
        {t("skills.mean", { ms: formatMs(stats.meanMs) })}
      </p>
      <table className="models skill-stats small">
        <thead>
          <tr>
            <th>{t("skills.column.script")}</th>
            <th>{t("skills.column.runs")}</th>
            <th>{t("skills.column.failed")}</th>
            <th>{t("skills.column.byCode")}</th>
            <th>{t("skills.column.p50")}</th>
            <th>{t("skills.column.p95")}</th>
          </tr>
        </thead>
        <tbody>
          {stats.scripts.map((s) => (
            <tr key={s.script} data-testid={`skill-stats-${name}-${s.script}`}>
              <td>{s.script}</td>
              <td>{formatNumber(s.runs)}</td>
              <td>{formatNumber(s.failures)}</td>
              <td>{byCode(s)}</td>
              <td>{formatMs(s.p50Ms)}</td>
              <td>{formatMs(s.p95Ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function SkillsList({ skills, changes, onSkills, onError }: Props) {
  const { t } = useTranslation();
  const [stats, setStats] = useState<SkillStats | null>(null);
  useEffect(() => {
    api.skillStats().then(setStats, (err) => onError(asAppError(err)));
  }, [onError]);
  if (!skills) return <p className="muted">{t("skills.loading")}</p>;
  const health = (state: string) => {
    const known = HEALTH[state];
    return known ? t(`skills.health.${known}`) : state;
  };
  const change = (kind: string) => {
    const known = CHANGES.find((c) => c === kind);
    return known ? t(`skills.change.${known}`) : kind;
  };
  return (
    <section className="skills" aria-label={t("skills.label")}>
      <ul className="cards" data-testid="skill-list">
        {skills.skills.map((s) => (
          <li key={s.name} className={s.enabled ? "card" : "card off"} data-testid="skill" data-skill={s.name}>
            <div className="card-head">
              <h2>{s.displayName || s.name}</h2>
              <span className="muted">{t("skills.version", { version: s.version })}</span>
              <span className={`badge health-${HEALTH[s.errorState] ?? s.errorState}`} data-testid="health">
                {health(s.errorState)}
              </span>
              <label className="switch">
                <input
                  type="checkbox"
                  role="switch"
                  aria-label={t("skills.enable", { name: s.name })}
                  data-testid={`toggle-${s.name}`}
                  checked={s.enabled}
                  onChange={(e) => api.setSkillEnabled(s.name, e.target.checked).then(onSkills, (err) => onError(asAppError(err)))}
                />
                <span className="slider" aria-hidden />
                <span className="switch-label">{s.enabled ? t("common.on") : t("common.off")}</span>
              </label>
            </div>
            <p>{s.description}</p>
            <p className="muted small">
              {s.scripts.map((x) => x.name).join(", ") || t("skills.noScripts")} · {s.path}
            </p>
            {stats && <SkillRuns name={s.name} stats={stats.skills.find((x) => x.skill === s.name)} />}
          </li>
        ))}
      </ul>
      {skills.problems.length > 0 && (
        <>
          <h2>{t("skills.problems")}</h2>
          <ul className="list problems" data-testid="skill-problems">
            {skills.problems.map((p) => (
              <li key={p.path}>
                <code>{p.path}</code>: {p.reason}
              </li>
            ))}
          </ul>
        </>
      )}
      {changes.length > 0 && (
        <>
          <h2>{t("skills.changes")}</h2>
          <ul className="list small" data-testid="skill-changes">
            {changes.map((c, i) => (
              <li key={i}>
                <span className={`badge change-${c.kind}`}>{change(c.kind)}</span> {c.name ?? c.path}
                {c.problem && <span className="error-text"> — {c.problem}</span>}
                {c.keptLastGood && <span className="muted"> {t("skills.keptLastGood")}</span>}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
