// One turn as the Play and Inspector views show it, built either live from
// TurnEvents or afterwards from a saved TurnRecord. Both paths give the same
// shape, so a past turn is drawn exactly like the one being played.

import type { AttemptRecord, JsonObject, LoreUse, Plan, Routing, ToolResult, TraceRecord, Transcript, TurnEvent, TurnRecord } from "./api";
import type { FailureReason } from "./bindings/FailureReason";
import type { ToolErrorType } from "./bindings/ToolErrorType";

export type ToolState =
  | "pending"
  | "running"
  | "retrying"
  | "completed"
  | "failed"
  | "skipped"
  | "timeout";

export interface ToolView {
  toolId: string;
  toolPath: string;
  dependencies: string[];
  state: ToolState;
  attempt: number;
  retryCount: number;
  timeMs?: number;
  error?: string;
  /** How it failed, as a code the window words. */
  errorType?: ToolErrorType;
  events: JsonObject[];
}

export interface AttemptView {
  attempt: number;
  plan?: Plan;
  plannerText: string;
  tools: ToolView[];
  failure?: string;
  /** Why it failed, as a code the window words (a saved attempt's). */
  failureReason?: FailureReason;
  disabledSkills: string[];
  transcript?: Transcript | null;
  /** The lore entries the narration was told, and why. */
  lore: LoreUse[];
  /** Why the plan uses the skills it uses, when a router chose them. */
  routing?: Routing | null;
}

export interface DiceRoll {
  key: string;
  formula: string;
  rolls: number[];
  total: number;
  reason?: string;
  showIndividualRolls: boolean;
}

export interface AssetView {
  key: string;
  assetId: string;
  kind: string;
  path?: string;
  mimeType?: string;
}

export interface TurnModel {
  number?: number;
  input: string;
  phase: "planning" | "running" | "done" | "failed";
  attempts: AttemptView[];
  /** Prose from narration_delta events, as it arrives. */
  streamed: string;
  /** The final narrative, once saved. */
  narrative?: string;
  fallback: boolean;
  dice: DiceRoll[];
  assets: AssetView[];
  health: { skill: string; to: string }[];
  /** The saved turn's trace (docs/observability.md); none while it is played. */
  trace?: TraceRecord | null;
}

export function startTurn(input: string): TurnModel {
  return { input, phase: "planning", attempts: [], streamed: "", fallback: false, dice: [], assets: [], health: [] };
}

function toolsOf(plan: Plan | undefined | null): ToolView[] {
  return (plan?.tools ?? []).map((t) => ({
    toolId: t.toolId,
    toolPath: t.toolPath,
    dependencies: t.dependencies ?? [],
    state: "pending",
    attempt: 0,
    retryCount: 0,
    events: [],
  }));
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** Reads the UI-worthy protocol events (dice, narration, assets) of a tool. */
function absorbToolEvent(m: TurnModel, toolId: string, ev: JsonObject, live: boolean) {
  if (ev.type === "ui_event") {
    const payload = (ev.payload ?? {}) as JsonObject;
    if (ev.event === "dice_roll") {
      m.dice.push({
        key: `${toolId}-${m.dice.length}`,
        formula: str(payload.formula) ?? "?",
        rolls: Array.isArray(payload.rolls) ? (payload.rolls as number[]) : [],
        total: typeof payload.total === "number" ? payload.total : 0,
        reason: str(payload.reason),
        showIndividualRolls: payload.showIndividualRolls !== false,
      });
    } else if (ev.event === "narration_delta" && live) {
      m.streamed += str(payload.text) ?? str(payload.delta) ?? "";
    } else if (ev.event === "narration_reset" && live) {
      // The prose so far is void: another provider starts over.
      m.streamed = "";
    }
  } else if (ev.type === "asset") {
    m.assets.push({
      key: `${toolId}-${str(ev.assetId) ?? m.assets.length}`,
      assetId: str(ev.assetId) ?? "",
      kind: str(ev.kind) ?? "file",
      path: str(ev.path),
      mimeType: str(ev.mimeType),
    });
  }
}

/** Applies one live event; returns a new model. */
export function applyEvent(prev: TurnModel, e: TurnEvent): TurnModel {
  const m: TurnModel = {
    ...prev,
    attempts: prev.attempts.map((a) => ({ ...a, tools: a.tools.map((t) => ({ ...t })) })),
    dice: [...prev.dice],
    assets: [...prev.assets],
    health: [...prev.health],
  };
  const attemptOf = (n: number): AttemptView => {
    let a = m.attempts.find((x) => x.attempt === n);
    if (!a) {
      a = { attempt: n, plannerText: "", tools: [], disabledSkills: [], lore: [] };
      m.attempts.push(a);
    }
    return a;
  };
  switch (e.kind) {
    case "planning":
      m.phase = "planning";
      attemptOf(e.attempt).disabledSkills = e.disabledSkills;
      break;
    case "narrativeDelta":
      attemptOf(e.attempt).plannerText += e.text;
      break;
    case "planReady": {
      const a = attemptOf(e.attempt);
      a.plan = e.plan;
      a.tools = toolsOf(e.plan);
      a.lore = e.lore;
      a.routing = e.routing;
      m.phase = "running";
      break;
    }
    case "execution": {
      const a = attemptOf(e.attempt);
      const ev = e.event;
      if (ev.kind === "planStarted" || ev.kind === "planFinished") break;
      const tool = a.tools.find((t) => t.toolId === ev.toolId);
      if (!tool) break;
      if (ev.kind === "toolStarted") {
        tool.state = "running";
        tool.attempt = ev.attempt;
      } else if (ev.kind === "toolEvent") {
        tool.events = [...tool.events, ev.event];
        absorbToolEvent(m, ev.toolId, ev.event, true);
      } else if (ev.kind === "toolRetrying") {
        tool.state = "retrying";
        tool.retryCount = ev.nextAttempt - 1;
      } else if (ev.kind === "toolFinished") {
        tool.state = ev.state;
        tool.retryCount = ev.retryCount;
        tool.timeMs = ev.executionTimeMs;
        tool.error = ev.error?.message;
        tool.errorType = ev.error?.type;
      }
      break;
    }
    case "attemptFailed":
      attemptOf(e.attempt).failure = e.reason;
      break;
    case "healthChanged":
      m.health.push({ skill: e.skill, to: e.to });
      break;
    case "fallback":
      m.fallback = true;
      m.narrative = e.narrative;
      break;
  }
  return m;
}

function attemptFromRecord(a: AttemptRecord): AttemptView {
  const tools = toolsOf(a.plan);
  const trace: ToolResult[] = a.result?.executionTrace ?? [];
  for (const r of trace) {
    let t = tools.find((x) => x.toolId === r.toolId);
    if (!t) {
      t = { toolId: r.toolId, toolPath: r.toolPath ?? "", dependencies: [], state: "pending", attempt: 0, retryCount: 0, events: [] };
      tools.push(t);
    }
    t.state = r.state;
    t.retryCount = r.retryCount;
    t.timeMs = r.executionTimeMs;
    t.events = r.events ?? [];
    t.error = r.error?.message ?? undefined;
    t.errorType = r.error?.type ?? undefined;
  }
  return {
    attempt: a.attempt,
    plan: a.plan ?? undefined,
    plannerText: a.plan?.narrative ?? "",
    tools,
    failure: a.error ?? a.result?.failureMessage ?? undefined,
    failureReason: a.result?.failureReason ?? undefined,
    disabledSkills: [],
    transcript: a.transcript,
    lore: a.lore ?? [],
    routing: a.routing,
  };
}

/** A saved turn as a model; `live` (same turn, played now) keeps its streamed text. */
export function fromRecord(r: TurnRecord, live?: TurnModel): TurnModel {
  const m: TurnModel = {
    number: r.number,
    input: r.input,
    phase: "done",
    attempts: r.attempts.map(attemptFromRecord),
    streamed: live?.streamed ?? "",
    narrative: r.narrative,
    fallback: r.fallback,
    dice: [],
    assets: [],
    health: live?.health ?? [],
    trace: r.trace,
  };
  const last = m.attempts[m.attempts.length - 1];
  for (const t of last?.tools ?? []) {
    for (const ev of t.events) absorbToolEvent(m, t.toolId, ev, false);
  }
  return m;
}

/** The skill a roll is (what "Needed a roll" names). */
export const ROLL_SKILL = "dice-roller";

/**
 * The skills a turn could have used and whether it did, for correcting its
 * mechanics: routing's skills (every routable one) of the attempt that told
 * it; without routing (planned by rules), the roll alone, by its tools.
 */
export function mechanicsOf(turn: TurnModel): { skill: string; used: boolean }[] {
  const told = [...turn.attempts].reverse().find((a) => a.plan && !a.failure) ?? turn.attempts[turn.attempts.length - 1];
  if (!told || turn.fallback) return [];
  if (told.routing) return told.routing.skills.map((s) => ({ skill: s.skill, used: s.chosen }));
  const rolled = told.tools.some((t) => t.toolPath.startsWith(`${ROLL_SKILL}/`));
  return [{ skill: ROLL_SKILL, used: rolled }];
}
