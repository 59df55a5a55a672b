// Skills: every skill with description, health and an enable switch; broken
// folders with their problem; recent changes seen on disk.

import { api, asAppError, type AppError, type SkillChange, type SkillsView } from "../api";

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

export function SkillsList({ skills, changes, onSkills, onError }: Props) {
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
