// Skills: every skill with description, health and an enable switch, and
// how its script runs fared (runs, failures by code, p50/p95 per script);
// broken folders with their problem; recent changes seen on disk.

import { useEffect, useState } from "react";
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

interface Props {
  skills: SkillsView | null;
  changes: SkillChange[];
  onSkills: (v: SkillsView) => void;
  onError: (e: AppError) => void;
}

const HEALTH: Record<string, string> = {
  healthy: "healthy",
  degraded: "degraded",
  temporary_failure: "failing",
  temporaryFailure: "failing",
  permanent_failure: "broken",
  permanentFailure: "broken",
};

/** "TIMEOUT 2, VALIDATION_ERROR 1", or "–" when nothing failed. */
function byCode(stats: RunStats): string {
  const codes = Object.entries(stats.failuresByCode).map(([code, n]) => `${code} ${n}`);
  return codes.length > 0 ? codes.join(", ") : "–";
}

/** A skill's runs in all, then a compact table of its scripts. */
function SkillRuns({ name, stats }: { name: string; stats: SkillRunStats | undefined }) {
  if (!stats) {
    return (
      <p className="muted small" data-testid={`skill-stats-${name}`}>
        No runs recorded yet.
      </p>
    );
  }
  return (
    <div className="skill-stats" data-testid={`skill-stats-${name}`}>
      <p className="small">
        {stats.runs} run{stats.runs === 1 ? "" : "s"} · {stats.failures} failed
        {stats.failures > 0 && <span className="muted"> ({byCode(stats)})</span>} · mean {Math.round(stats.meanMs)} ms
      </p>
      <table className="models skill-stats small">
        <thead>
          <tr>
            <th>script</th>
            <th>runs</th>
            <th>failed</th>
            <th>by code</th>
            <th>p50</th>
            <th>p95</th>
          </tr>
        </thead>
        <tbody>
          {stats.scripts.map((s) => (
            <tr key={s.script} data-testid={`skill-stats-${name}-${s.script}`}>
              <td>{s.script}</td>
              <td>{s.runs}</td>
              <td>{s.failures}</td>
              <td>{byCode(s)}</td>
              <td>{s.p50Ms} ms</td>
              <td>{s.p95Ms} ms</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function SkillsList({ skills, changes, onSkills, onError }: Props) {
  const [stats, setStats] = useState<SkillStats | null>(null);
  useEffect(() => {
    api.skillStats().then(setStats, (err) => onError(asAppError(err)));
  }, [onError]);
  if (!skills) return <p className="muted">Loading skills…</p>;
  return (
    <section className="skills" aria-label="Skills">
      <ul className="cards" data-testid="skill-list">
        {skills.skills.map((s) => (
          <li key={s.name} className={s.enabled ? "card" : "card off"} data-testid="skill" data-skill={s.name}>
            <div className="card-head">
              <h2>{s.displayName || s.name}</h2>
              <span className="muted">v{s.version}</span>
              <span className={`badge health-${HEALTH[s.errorState] ?? s.errorState}`} data-testid="health">
                {HEALTH[s.errorState] ?? s.errorState}
              </span>
              <label className="switch">
                <input
                  type="checkbox"
                  role="switch"
                  aria-label={`Enable ${s.name}`}
                  data-testid={`toggle-${s.name}`}
                  checked={s.enabled}
                  onChange={(e) => api.setSkillEnabled(s.name, e.target.checked).then(onSkills, (err) => onError(asAppError(err)))}
                />
                <span className="slider" aria-hidden />
                <span className="switch-label">{s.enabled ? "on" : "off"}</span>
              </label>
            </div>
            <p>{s.description}</p>
            <p className="muted small">
              {s.scripts.map((x) => x.name).join(", ") || "no scripts"} · {s.path}
            </p>
            {stats && <SkillRuns name={s.name} stats={stats.skills.find((x) => x.skill === s.name)} />}
          </li>
        ))}
      </ul>
      {skills.problems.length > 0 && (
        <>
          <h2>Folders that are not usable skills</h2>
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
          <h2>Recent changes on disk</h2>
          <ul className="list small" data-testid="skill-changes">
            {changes.map((c, i) => (
              <li key={i}>
                <span className={`badge change-${c.kind}`}>{c.kind}</span> {c.name ?? c.path}
                {c.problem && <span className="error-text"> — {c.problem}</span>}
                {c.keptLastGood && <span className="muted"> (still using the last good version)</span>}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
