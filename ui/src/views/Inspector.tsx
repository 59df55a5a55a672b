// Inspector: the turn's plan as a DAG (tools by dependency depth), each tool
// coloured by its live state with time and retries; a selected tool's
// events; the lore its narration was told; the narrator's transcript; every
// replan attempt; the turn's trace as a span tree on one time line, and a
// button that saves the turn's run folder for a bug report.

import { useEffect, useMemo, useState } from "react";
import { Trans, useTranslation } from "react-i18next";
import { api, asAppError } from "../api";
import type { AppError, Correction, LoreUse, Routing, RunExported, Span, TraceRecord } from "../api";
import { sentenceOf } from "../errors";
import type { AttemptView, ToolState, ToolView, TurnModel } from "../turn";
import i18n from "../i18n";
import { formatDecimal, formatList, formatMs, formatNumber } from "../i18n/format";

/** A tool's state in the window's language. */
function stateWords(state: ToolState): string {
  return i18n.t(`inspector.toolState.${state}`);
}

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
  const { t } = useTranslation();
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

  if (!attempt.tools.length) return <p className="muted">{t("inspector.noTools")}</p>;
  return (
    <svg className="dag" width={layout.width} height={layout.height} role="img" aria-label={t("inspector.planGraph")} data-testid="plan-graph">
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
      {attempt.tools.map((tool) => {
        const p = layout.pos.get(tool.toolId)!;
        return (
          <g
            key={tool.toolId}
            className={`node state-${tool.state}${selected === tool.toolId ? " selected" : ""}`}
            transform={`translate(${p.x},${p.y})`}
            onClick={() => onSelect(tool.toolId)}
            tabIndex={0}
            role="button"
            aria-label={t("inspector.nodeLabel", { tool: tool.toolId, state: stateWords(tool.state) })}
            data-testid="plan-node"
            data-state={tool.state}
            onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && onSelect(tool.toolId)}
          >
            <rect width={NODE_W} height={NODE_H} rx={8} />
            <text x={10} y={20} className="node-title">{tool.toolId.length > 20 ? tool.toolId.slice(0, 19) + "…" : tool.toolId}</text>
            <text x={10} y={40} className="node-sub">
              {stateWords(tool.state)}
              {tool.timeMs !== undefined ? ` · ${formatMs(tool.timeMs)}` : ""}
              {tool.retryCount ? ` · ${t("inspector.retries", { count: tool.retryCount })}` : ""}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** The lore entries a plan's narration was told, each with why. */
function LoreTold({ lore }: { lore: LoreUse[] }) {
  const { t } = useTranslation();
  if (!lore.length) return <p className="muted small">{t("inspector.noLore")}</p>;
  return (
    <ul className="lore-told" data-testid="lore-told">
      {lore.map((u) => (
        <li key={u.name} data-by={u.by}>
          {u.name}{" "}
          <span className="muted small">
            — {t(`inspector.why.${u.by}`)}
            {u.similarity !== undefined ? ` · ${t("inspector.likeness", { value: formatDecimal(u.similarity, 2) })}` : ""}
          </span>
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
  const { t } = useTranslation();
  const [kept, setKept] = useState<Correction[] | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  useEffect(() => {
    if (!sessionId) return;
    let current = true;
    api.corrections(sessionId).then(
      (all) => current && setKept(all),
      (e) => current && setError(asAppError(e)),
    );
    return () => {
      current = false;
    };
  }, [sessionId, turn.number, turn.phase]);
  const problem = error && (
    <p className="error-text" data-code={error.code}>
      {sentenceOf(error)} <span className="error-message">{error.message}</span>
    </p>
  );
  if (!sessionId || kept === null) return problem || null;
  const remove = (c: Correction) =>
    api.removeCorrection(sessionId, c.id).then(setKept, (e) => setError(asAppError(e)));
  const skills = (c: Correction) => c.needed.map((p) => p.split("/")[0]);
  return (
    <div data-testid="corrections">
      {problem}
      {kept.length === 0 ? (
        <p className="muted small">
          {t("inspector.corrections.none", {
            roll: t("turn.correct.roll"),
            noRoll: t("turn.correct.noRoll"),
            wrongSkills: t("turn.correct.wrongSkills"),
          })}
        </p>
      ) : (
        <ul className="corrections-kept">
          {kept.map((c) => (
            <li key={c.id} data-testid="correction">
              {correctionWords(c, skills(c))}{" "}
              <button
                type="button"
                className="link"
                onClick={() => remove(c)}
                aria-label={t("inspector.corrections.removeLabel", { input: c.input })}
                data-testid="correction-remove"
              >
                {t("inspector.corrections.remove")}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** "“I haggle” needs dice-roller, not memory": what a correction taught. */
function correctionWords(c: Correction, needed: string[]): string {
  const t = i18n.t;
  const input = c.input;
  const unneeded = formatList(c.unneeded, "or");
  if (needed.length === 0) {
    return c.unneeded.length
      ? t("inspector.corrections.needsNothingNot", { input, unneeded })
      : t("inspector.corrections.needsNothing", { input });
  }
  const skills = formatList(needed, "and");
  return c.unneeded.length
    ? t("inspector.corrections.needsNot", { input, skills, unneeded })
    : t("inspector.corrections.needs", { input, skills });
}

function SkillsChosen({ routing }: { routing?: Routing | null }) {
  const { t } = useTranslation();
  if (!routing) return <p className="muted small">{t("inspector.routing.notRouted")}</p>;
  const n = (x: number) => formatDecimal(x, 2);
  return (
    <div data-testid="skills-chosen">
      <table className="routing">
        <thead>
          <tr>
            <th scope="col">{t("inspector.routing.skill")}</th>
            <th scope="col" title={t("inspector.routing.meaningTitle")}>
              {t("inspector.routing.meaning")}
            </th>
            <th scope="col" title={t("inspector.routing.keywordsTitle")}>
              {t("inspector.routing.keywords")}
            </th>
            <th scope="col" title={t("inspector.routing.modelTitle")}>
              {t("inspector.routing.model")}
            </th>
            <th scope="col">{t("inspector.routing.score")}</th>
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
        {t("inspector.routing.usedFrom", { threshold: n(routing.threshold), further: n(routing.furtherThreshold) })}
      </p>
      {routing.narration != null && routing.narrationMargin != null && (
        <p className="muted small" data-testid="narration-only-score">
          {t("inspector.routing.narrationOnly", {
            score: n(routing.narration),
            from: n(routing.narration + routing.narrationMargin),
          })}
        </p>
      )}
      {routing.byPlayer && (
        <p className="muted small" data-testid="chosen-by-player">
          {t("inspector.routing.byPlayer")}
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
  const { t } = useTranslation();
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
        {t("inspector.trace.label")} <code data-testid="trace-id">{trace.traceId}</code>{" "}
        <button onClick={copy} data-testid="copy-trace-id" title={t("inspector.trace.copyTitle")}>
          {copied ? t("inspector.trace.copied") : t("inspector.trace.copy")}
        </button>{" "}
        <span className="muted">
          · {formatMs(total)} · {t("inspector.trace.spans", { count: trace.spans.length })}
        </span>
      </p>
      <table className="routing" data-testid="span-tree" style={{ width: "100%" }}>
        <thead>
          <tr>
            <th scope="col">{t("inspector.trace.span")}</th>
            <th scope="col">{t("inspector.trace.kind")}</th>
            <th scope="col">{t("inspector.trace.ms")}</th>
            <th scope="col">{t("inspector.trace.status")}</th>
            <th scope="col" style={{ width: "40%" }}>
              {t("inspector.trace.timeline", { total: formatMs(total) })}
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
              <td>{formatNumber(span.endMs - span.startMs)}</td>
              <td className={span.status === "error" ? "error-text" : undefined}>{t(`inspector.trace.spanStatus.${span.status}`)}</td>
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
  const { t } = useTranslation();
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
      <button onClick={save} disabled={!sessionId || !turn || busy} data-testid="export-run" title={t("inspector.bugReport.title")}>
        {busy ? t("inspector.bugReport.saving") : t("inspector.bugReport.save")}
      </button>
      {saved && (
        <span className="small" data-testid="export-run-path">
          <Trans i18nKey="inspector.bugReport.savedTo" values={{ path: saved.path }} components={{ code: <code /> }} />
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
  const { t } = useTranslation();
  const [attemptNo, setAttemptNo] = useState<number | null>(null);
  const [toolId, setToolId] = useState<string | undefined>();
  const attempts = turn?.attempts ?? [];
  const current = attempts.find((a) => a.attempt === attemptNo) ?? attempts[attempts.length - 1];
  useEffect(() => setAttemptNo(null), [turn?.number, turn?.input]);
  if (!turn) return <p className="muted">{t("inspector.empty")}</p>;
  const tool = current?.tools.find((t) => t.toolId === toolId);

  return (
    <section className="inspector" aria-label={t("inspector.label")}>
      <h2>
        {turn.number ? t("inspector.turnNumber", { n: turn.number }) : t("inspector.thisTurn")}{" "}
        <span className="muted">{turn.input}</span>
      </h2>
      <div className="row" role="tablist" aria-label={t("inspector.attempts")}>
        {attempts.map((a) => (
          <button
            key={a.attempt}
            role="tab"
            aria-selected={a === current}
            className={a === current ? "tab active" : "tab"}
            onClick={() => setAttemptNo(a.attempt)}
            data-testid="attempt-tab"
          >
            {t("inspector.attempt", { n: a.attempt })}
            {a.failure ? " ✗" : ""}
          </button>
        ))}
        {turn.fallback && <span className="badge health-broken">{t("inspector.fallback")}</span>}
      </div>
      {turn.phase === "done" && turn.number ? <SaveForBugReport sessionId={sessionId} turn={turn.number} /> : null}
      {current && (
        <>
          {current.failure && (
            <p className="error-text">
              {current.failureReason
                ? t("inspector.failedBecause", { why: t(`inspector.failure.${current.failureReason}`), reason: current.failure })
                : t("inspector.failed", { reason: current.failure })}
            </p>
          )}
          {current.disabledSkills.length > 0 && (
            <p className="muted">{t("inspector.leftOut", { skills: formatList(current.disabledSkills) })}</p>
          )}
          <div className="graph-wrap">
            <PlanGraph attempt={current} selected={toolId} onSelect={setToolId} />
          </div>
          <div className="columns">
            <div>
              <h3>{tool ? t("inspector.tool", { id: tool.toolId }) : t("inspector.selectTool")}</h3>
              {tool && (
                <div data-testid="tool-detail">
                  <p className="muted small">
                    {tool.toolPath} · {stateWords(tool.state)}
                    {tool.timeMs !== undefined && ` · ${formatMs(tool.timeMs)}`} ·{" "}
                    {t("inspector.retries", { count: tool.retryCount })}
                  </p>
                  {(tool.error || tool.errorType) && (
                    <p className="error-text">
                      {tool.errorType && <strong>{t(`inspector.toolError.${tool.errorType}`)}</strong>} {tool.error}
                    </p>
                  )}
                  <pre className="log">{tool.events.map((e) => JSON.stringify(e)).join("\n") || t("inspector.noEvents")}</pre>
                </div>
              )}
            </div>
            <div>
              <h3>{t("inspector.skillsChosen")}</h3>
              <SkillsChosen routing={current.routing} />
              <h3>{t("inspector.correctionsLearned")}</h3>
              <CorrectionsKept sessionId={sessionId} turn={turn} />
              <h3>{t("inspector.loreTold")}</h3>
              <LoreTold lore={current.lore} />
              <h3>{t("inspector.narrator")}</h3>
              {current.transcript ? (
                <div data-testid="transcript">
                  <p className="muted small">
                    {t("inspector.transcript", {
                      planner: current.transcript.planner,
                      prompt: formatNumber(current.transcript.promptTokens),
                      cached: formatNumber(current.transcript.cachedTokens),
                      written: formatNumber(current.transcript.completionTokens),
                      first: formatMs(current.transcript.timeToFirstTokenMs),
                      total: formatMs(current.transcript.totalMs),
                    })}
                  </p>
                  <details>
                    <summary>{t("inspector.prompt")}</summary>
                    <pre className="log">{current.transcript.prompt}</pre>
                  </details>
                  <h4>{t("inspector.response")}</h4>
                  <pre className="log">{current.transcript.response}</pre>
                </div>
              ) : (
                <pre className="log">
                  {current.plannerText || (current.plan ? JSON.stringify(current.plan, null, 2) : t("inspector.planning"))}
                </pre>
              )}
            </div>
          </div>
        </>
      )}
      {turn.trace && (
        <>
          <h3>{t("inspector.trace.title")}</h3>
          <TraceView trace={turn.trace} />
        </>
      )}
    </section>
  );
}
