// Inspector: the turn's plan as a DAG (tools by dependency depth), each tool
// coloured by its live state with time and retries; a selected tool's
// events; the lore its narration was told; the narrator's transcript; every
// replan attempt; the turn's trace as a span tree on one time line, and a
// button that saves the turn's run folder for a bug report.

import { useEffect, useMemo, useState } from "react";
import { api, asAppError } from "../api";
import type { AppError, Correction, LoreUse, Routing, RunExported, Span, TraceRecord } from "../api";
import { sentenceOf } from "../errors";
import type { AttemptView, ToolView, TurnModel } from "../turn";

const NODE_W = 170;
const NODE_H = 54;
const GAP_X = 60;
const GAP_Y = 22;

/** Column of each tool: the longest dependency chain leading to it. */
export function depths(tools: ToolView[]): Map<string, number> {
  const byId = new Map(tools.map((t) => [t.toolId, t]));
  const memo = new Map<string, number>();
  const visit = (id: string, seen: Set<string>): number => {
    if (memo.has(id)) return memo.get(id)!;
    if (seen.has(id)) return 0; // a cycle: the engine rejects it; draw it flat
    seen.add(id);
    const deps = byId.get(id)?.dependencies.filter((d) => byId.has(d)) ?? [];
    const d = deps.length ? 1 + Math.max(...deps.map((x) => visit(x, seen))) : 0;
    memo.set(id, d);
    return d;
  };
  tools.forEach((t) => visit(t.toolId, new Set()));
  return memo;
}

function PlanGraph({ attempt, selected, onSelect }: { attempt: AttemptView; selected?: string; onSelect: (id: string) => void }) {
  const layout = useMemo(() => {
    const d = depths(attempt.tools);
    const rows = new Map<number, number>();
    const pos = new Map<string, { x: number; y: number }>();
    for (const t of attempt.tools) {
      const col = d.get(t.toolId) ?? 0;
      const row = rows.get(col) ?? 0;
      rows.set(col, row + 1);
      pos.set(t.toolId, { x: 10 + col * (NODE_W + GAP_X), y: 10 + row * (NODE_H + GAP_Y) });
    }
    const cols = Math.max(1, ...[...rows.keys()].map((c) => c + 1));
    const maxRows = Math.max(1, ...rows.values());
    return { pos, width: 20 + cols * (NODE_W + GAP_X) - GAP_X, height: 20 + maxRows * (NODE_H + GAP_Y) - GAP_Y };
  }, [attempt.tools]);

  if (!attempt.tools.length) return <p className="muted">This plan calls no tools.</p>;
  return (
    <svg className="dag" width={layout.width} height={layout.height} role="img" aria-label="Plan graph" data-testid="plan-graph">
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" className="arrowhead" />
        </marker>
      </defs>
      {attempt.tools.flatMap((t) =>
        t.dependencies.map((dep) => {
          const a = layout.pos.get(dep);
          const b = layout.pos.get(t.toolId);
          if (!a || !b) return null;
          const x1 = a.x + NODE_W, y1 = a.y + NODE_H / 2, x2 = b.x, y2 = b.y + NODE_H / 2;
          const mx = (x1 + x2) / 2;
          return <path key={`${dep}->${t.toolId}`} className="edge" d={`M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`} markerEnd="url(#arrow)" />;
        }),
      )}
      {attempt.tools.map((t) => {
        const p = layout.pos.get(t.toolId)!;
        return (
          <g
            key={t.toolId}
            className={`node state-${t.state}${selected === t.toolId ? " selected" : ""}`}
            transform={`translate(${p.x},${p.y})`}
            onClick={() => onSelect(t.toolId)}
            tabIndex={0}
            role="button"
            aria-label={`${t.toolId}: ${t.state}`}
            data-testid="plan-node"
            data-state={t.state}
            onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && onSelect(t.toolId)}
          >
            <rect width={NODE_W} height={NODE_H} rx={8} />
            <text x={10} y={20} className="node-title">{t.toolId.length > 20 ? t.toolId.slice(0, 19) + "…" : t.toolId}</text>
            <text x={10} y={40} className="node-sub">
              {t.state}
              {t.timeMs !== undefined ? ` · ${t.timeMs} ms` : ""}
              {t.retryCount ? ` · ${t.retryCount} retr${t.retryCount === 1 ? "y" : "ies"}` : ""}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

const WHY: Record<LoreUse["by"], string> = { constant: "always told", keys: "its keys", meaning: "its meaning" };

/** The lore entries a plan's narration was told, each with why. */
function LoreTold({ lore }: { lore: LoreUse[] }) {
  if (!lore.length) return <p className="muted small">No lore entry was told.</p>;
  return (
    <ul className="lore-told" data-testid="lore-told">
      {lore.map((u) => (
        <li key={u.name} data-by={u.by}>
          {u.name} <span className="muted small">— {WHY[u.by]}{u.similarity !== undefined ? ` · likeness ${u.similarity.toFixed(2)}` : ""}</span>
        </li>
      ))}
    </ul>
  );
}

/** Why the plan uses its skills: each skill's scores and the thresholds. */
/**
 * What the story's routing learned from the player's corrections, each
 * removable (docs/narrator.md, "The player corrects").
 */
function CorrectionsKept({ sessionId, turn }: { sessionId?: string; turn: TurnModel }) {
  const [kept, setKept] = useState<Correction[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!sessionId) return;
    let current = true;
    api.corrections(sessionId).then(
      (all) => current && setKept(all),
      (e) => current && setError(asAppError(e).message),
    );
    return () => {
      current = false;
    };
  }, [sessionId, turn.number, turn.phase]);
  if (!sessionId || kept === null) return error ? <p className="error-text">{error}</p> : null;
  const remove = (c: Correction) =>
    api.removeCorrection(sessionId, c.id).then(setKept, (e) => setError(asAppError(e).message));
  const skills = (c: Correction) => c.needed.map((p) => p.split("/")[0]);
  return (
    <div data-testid="corrections">
      {error && <p className="error-text">{error}</p>}
      {kept.length === 0 ? (
        <p className="muted small">None yet: after a turn, “Needed a roll”, “No roll needed” or “Wrong skills…” plays it again and teaches this story.</p>
      ) : (
        <ul className="corrections-kept">
          {kept.map((c) => (
            <li key={c.id} data-testid="correction">
              “{c.input}” needs {skills(c).length ? skills(c).join(" and ") : "no skill"}
              {c.unneeded.length > 0 && <>, not {c.unneeded.join(" or ")}</>}{" "}
              <button type="button" className="link" onClick={() => remove(c)} aria-label={`Forget the correction of “${c.input}”`} data-testid="correction-remove">
                remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function SkillsChosen({ routing }: { routing?: Routing | null }) {
  if (!routing) return <p className="muted small">Skills were not chosen by the router for this plan.</p>;
  const n = (x: number) => x.toFixed(2);
  return (
    <div data-testid="skills-chosen">
      <table className="routing">
        <thead>
          <tr>
            <th scope="col">Skill</th>
            <th scope="col" title="Likeness to the script's examples">Meaning</th>
            <th scope="col" title="Rare words shared with the script's texts">Keywords</th>
            <th scope="col" title="The skill's classifier, fitted on the examples">Model</th>
            <th scope="col">Score</th>
          </tr>
        </thead>
        <tbody>
          {routing.skills.map((s) => (
            <tr key={s.skill} data-chosen={s.chosen}>
              <td>
                {s.chosen ? "✓ " : ""}
                {s.skill}/{s.script}
              </td>
              <td>{n(s.meaning)}</td>
              <td>{n(s.keywords)}</td>
              <td>{n(s.model)}</td>
              <td>{n(s.score)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small">
        Used from {n(routing.threshold)} (a second skill from {n(routing.furtherThreshold)}); score = model + weight × (meaning + keywords).
      </p>
      {routing.narration != null && routing.narrationMargin != null && (
        <p className="muted small" data-testid="narration-only-score">
          Narration only scores {n(routing.narration)}: the best skill is used only from{" "}
          {n(routing.narration + routing.narrationMargin)}.
        </p>
      )}
      {routing.byPlayer && (
        <p className="muted small" data-testid="chosen-by-player">
          The skills ticked are your correction, not the router's choice.
        </p>
      )}
    </div>
  );
}

/** The spans in tree order (a span, then its children by start), each with its depth; a span whose parent is missing is a root. */
export function spanRows(trace: TraceRecord): { span: Span; depth: number }[] {
  const ids = new Set(trace.spans.map((s) => s.spanId));
  const children = new Map<string, Span[]>();
  const roots: Span[] = [];
  for (const s of [...trace.spans].sort((a, b) => a.startMs - b.startMs)) {
    const parent = s.parentSpanId && ids.has(s.parentSpanId) ? s.parentSpanId : null;
    if (parent) children.set(parent, [...(children.get(parent) ?? []), s]);
    else roots.push(s);
  }
  const rows: { span: Span; depth: number }[] = [];
  const seen = new Set<string>();
  const visit = (s: Span, depth: number) => {
    if (seen.has(s.spanId)) return;
    seen.add(s.spanId);
    rows.push({ span: s, depth });
    for (const c of children.get(s.spanId) ?? []) visit(c, depth + 1);
  };
  roots.forEach((r) => visit(r, 0));
  // Spans caught in a cycle of parents: shown flat at the end.
  trace.spans.forEach((s) => visit(s, 0));
  return rows;
}

const BAR_COLOUR: Record<Span["status"], string> = { ok: "var(--ok)", error: "var(--bad)", skipped: "var(--muted)" };

/** The turn's trace: its id (copyable) and every span, indented by depth, with a bar on the turn's time line. */
function TraceView({ trace }: { trace: TraceRecord }) {
  const rows = useMemo(() => spanRows(trace), [trace]);
  const [copied, setCopied] = useState(false);
  useEffect(() => setCopied(false), [trace.traceId]);
  const total = Math.max(1, ...trace.spans.map((s) => s.endMs));
  const pct = (ms: number) => `${((100 * ms) / total).toFixed(2)}%`;
  const copy = () => {
    navigator.clipboard?.writeText(trace.traceId).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <div data-testid="trace">
      <p className="small">
        Trace <code data-testid="trace-id">{trace.traceId}</code>{" "}
        <button onClick={copy} data-testid="copy-trace-id" title="Copy the trace id: the log's lines of this turn carry it">
          {copied ? "Copied" : "Copy"}
        </button>{" "}
        <span className="muted">· {total} ms · {trace.spans.length} spans</span>
      </p>
      <table className="routing" data-testid="span-tree" style={{ width: "100%" }}>
        <thead>
          <tr>
            <th scope="col">Span</th>
            <th scope="col">Kind</th>
            <th scope="col">ms</th>
            <th scope="col">Status</th>
            <th scope="col" style={{ width: "40%" }}>
              0 – {total} ms
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ span, depth }) => (
            <tr key={span.spanId} data-testid="span-row" data-kind={span.kind} data-status={span.status} data-depth={depth}>
              <td style={{ paddingLeft: 4 + depth * 14 }} title={span.spanId}>
                {span.name}
              </td>
              <td className="muted small">{span.kind}</td>
              <td>{span.endMs - span.startMs}</td>
              <td className={span.status === "error" ? "error-text" : undefined}>{span.status}</td>
              <td>
                <div style={{ position: "relative", height: 10 }}>
                  <div
                    data-testid="span-bar"
                    style={{
                      position: "absolute",
                      left: pct(span.startMs),
                      width: `max(2px, ${pct(span.endMs - span.startMs)})`,
                      height: "100%",
                      borderRadius: 2,
                      background: BAR_COLOUR[span.status],
                    }}
                  />
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** "Save this turn for a bug report": writes the turn's run folder and says where. */
function SaveForBugReport({ sessionId, turn }: { sessionId?: string; turn?: number }) {
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<RunExported | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  useEffect(() => {
    setSaved(null);
    setError(null);
  }, [sessionId, turn]);
  const save = () => {
    if (!sessionId || !turn) return;
    setBusy(true);
    setError(null);
    api
      .exportRun(sessionId, turn)
      .then(setSaved, (e) => setError(asAppError(e)))
      .finally(() => setBusy(false));
  };
  return (
    <div className="row" data-testid="run-folder">
      <button onClick={save} disabled={!sessionId || !turn || busy} data-testid="export-run" title="Writes the turn's trace, events, model calls and result to a folder, secret settings left out">
        {busy ? "Saving…" : "Save this turn for a bug report"}
      </button>
      {saved && (
        <span className="small" data-testid="export-run-path">
          Saved to <code>{saved.path}</code>
        </span>
      )}
      {error && (
        <span className="error-text" role="alert" data-testid="export-run-error" data-code={error.code}>
          {sentenceOf(error)} <span className="error-message">{error.message}</span>
        </span>
      )}
    </div>
  );
}

export function InspectorView({ turn, sessionId }: { turn: TurnModel | null; sessionId?: string }) {
  const [attemptNo, setAttemptNo] = useState<number | null>(null);
  const [toolId, setToolId] = useState<string | undefined>();
  const attempts = turn?.attempts ?? [];
  const current = attempts.find((a) => a.attempt === attemptNo) ?? attempts[attempts.length - 1];
  useEffect(() => setAttemptNo(null), [turn?.number, turn?.input]);
  if (!turn) return <p className="muted">Play a turn to see its plan here.</p>;
  const tool = current?.tools.find((t) => t.toolId === toolId);

  return (
    <section className="inspector" aria-label="Inspector">
      <h2>
        {turn.number ? `Turn ${turn.number}` : "This turn"}: <span className="muted">{turn.input}</span>
      </h2>
      <div className="row" role="tablist" aria-label="Plan attempts">
        {attempts.map((a) => (
          <button
            key={a.attempt}
            role="tab"
            aria-selected={a === current}
            className={a === current ? "tab active" : "tab"}
            onClick={() => setAttemptNo(a.attempt)}
            data-testid="attempt-tab"
          >
            Plan {a.attempt}
            {a.failure ? " ✗" : ""}
          </button>
        ))}
        {turn.fallback && <span className="badge health-broken">fallback narration</span>}
      </div>
      {turn.phase === "done" && turn.number ? <SaveForBugReport sessionId={sessionId} turn={turn.number} /> : null}
      {current && (
        <>
          {current.failure && <p className="error-text">This plan failed: {current.failure}</p>}
          {current.disabledSkills.length > 0 && <p className="muted">Left out: {current.disabledSkills.join(", ")}</p>}
          <div className="graph-wrap">
            <PlanGraph attempt={current} selected={toolId} onSelect={setToolId} />
          </div>
          <div className="columns">
            <div>
              <h3>{tool ? `Tool ${tool.toolId}` : "Select a tool"}</h3>
              {tool && (
                <div data-testid="tool-detail">
                  <p className="muted small">
                    {tool.toolPath} · {tool.state}
                    {tool.timeMs !== undefined && ` · ${tool.timeMs} ms`} · retries {tool.retryCount}
                  </p>
                  {tool.error && <p className="error-text">{tool.error}</p>}
                  <pre className="log">{tool.events.map((e) => JSON.stringify(e)).join("\n") || "(no events)"}</pre>
                </div>
              )}
            </div>
            <div>
              <h3>Skills chosen</h3>
              <SkillsChosen routing={current.routing} />
              <h3>Corrections this story learned</h3>
              <CorrectionsKept sessionId={sessionId} turn={turn} />
              <h3>Lore told</h3>
              <LoreTold lore={current.lore} />
              <h3>Narrator</h3>
              {current.transcript ? (
                <div data-testid="transcript">
                  <p className="muted small">
                    {current.transcript.planner} · {current.transcript.promptTokens} prompt tokens ({current.transcript.cachedTokens} cached) ·{" "}
                    {current.transcript.completionTokens} written · first token {current.transcript.timeToFirstTokenMs} ms · {current.transcript.totalMs} ms
                  </p>
                  <details>
                    <summary>Prompt</summary>
                    <pre className="log">{current.transcript.prompt}</pre>
                  </details>
                  <h4>Response</h4>
                  <pre className="log">{current.transcript.response}</pre>
                </div>
              ) : (
                <pre className="log">{current.plannerText || (current.plan ? JSON.stringify(current.plan, null, 2) : "(planning…)")}</pre>
              )}
            </div>
          </div>
        </>
      )}
      {turn.trace && (
        <>
          <h3>Trace</h3>
          <TraceView trace={turn.trace} />
        </>
      )}
    </section>
  );
}
