// Typed calls to the shell's commands and its events. Every failure is an
// AppError {code, message, errors}; the UI classifies by code, never by text.
// Types under ./bindings are generated from the Rust types (see
// ui/src/bindings/README.md); the rest are declared here by hand.

import { Channel, invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type { AppError } from "./bindings/AppError";
import type { ExecutionResult } from "./bindings/ExecutionResult";
import type { Plan } from "./bindings/Plan";
import type { TurnEvent } from "./bindings/TurnEvent";
import type { JsonValue } from "./bindings/serde_json/JsonValue";
import { isErrorCode } from "./errors";

export type { AppError } from "./bindings/AppError";
export type { ErrorCode } from "./bindings/ErrorCode";
export type { FieldError } from "./bindings/FieldError";
export type { ExecutionResult } from "./bindings/ExecutionResult";
export type { ToolResult } from "./bindings/ToolResult";
export type { Plan } from "./bindings/Plan";
export type { ToolInvocation } from "./bindings/ToolInvocation";
export type { TurnEvent } from "./bindings/TurnEvent";
export type { ExecEvent } from "./bindings/ExecEvent";
export type { HealthChange } from "./bindings/HealthChange";

/** Turns whatever a command threw into an AppError. */
export function asAppError(e: unknown): AppError {
  if (e && typeof e === "object" && "message" in e && typeof e.message === "string") {
    if ("code" in e && isErrorCode(e.code)) return e as AppError;
    return { code: "io", message: e.message };
  }
  return { code: "io", message: String(e) };
}

export type Json = JsonValue;
export type JsonObject = { [k: string]: JsonValue };

export interface ScriptSummary {
  name: string;
  path: string;
  isExecutable: boolean;
  description?: string | null;
}

export interface SkillView {
  name: string;
  displayName?: string | null;
  version: string;
  description: string;
  path: string;
  enabled: boolean;
  errorState: string;
  scripts: ScriptSummary[];
  hasConfigSchema: boolean;
  configSchema: JsonObject | null;
  config: JsonObject;
}

export interface SkillsView {
  skills: SkillView[];
  problems: { path: string; reason: string }[];
  overrides: { name: string; path: string; overriddenPath: string }[];
}

export interface SkillChange {
  kind: "added" | "updated" | "removed" | "broken";
  name?: string | null;
  path: string;
  problem?: string | null;
  keptLastGood: boolean;
}

export interface SessionInfo {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  turns: number;
}

export interface Transcript {
  planner: string;
  promptHash: string;
  prompt: string;
  response: string;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  timeToFirstTokenMs: number;
  totalMs: number;
}

export interface AttemptRecord {
  attempt: number;
  plan?: Plan | null;
  result?: ExecutionResult | null;
  error?: string | null;
  transcript?: Transcript | null;
}

export interface TurnRecord {
  number: number;
  input: string;
  narrative: string;
  fallback: boolean;
  createdAt: string;
  durationMs: number;
  attempts: AttemptRecord[];
}

export interface SessionView {
  session: SessionInfo;
  turns: TurnRecord[];
  state: JsonObject;
}

export interface TurnView {
  session: string;
  turn: TurnRecord;
  result: ExecutionResult;
}

export interface ModelInfo {
  planner: string;
  path?: string | null;
  defaultPath: string;
}

export interface ModelView {
  model: ModelInfo;
  loading: { path?: string | null; progress: number; active: boolean; error?: AppError | null };
}

async function call<T>(cmd: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(cmd, args);
  } catch (e) {
    throw asAppError(e);
  }
}

export const api = {
  skills: () => call<SkillsView>("skills_list"),
  setSkillEnabled: (name: string, enabled: boolean) =>
    call<SkillsView>("skill_set_enabled", { name, enabled }),
  saveSkillConfig: (name: string, config: Json) =>
    call<JsonObject>("skill_save_config", { name, config }),
  sessions: () => call<SessionInfo[]>("sessions_list"),
  currentSession: () => call<SessionView>("session_current"),
  newSession: (title: string) => call<SessionView>("session_new", { title }),
  openSession: (id: string) => call<SessionView>("session_open", { id }),
  rewind: (id: string, turn: number) => call<SessionView>("session_rewind", { id, turn }),
  exportSession: (id: string, format: "md" | "json", path: string | null) =>
    call<{ path?: string | null; text?: string | null; bytes: number }>("session_export", {
      id,
      format,
      path,
    }),
  modelStatus: () => call<ModelView>("model_status"),
  /** Opens the log folder in the file manager; resolves to its path. */
  openLogFolder: () => call<string>("open_log_folder"),
  loadModel: (path: string | null) => call<void>("model_load", { path }),
  /** The shell's own save dialog; only a file chosen there (or in the app's folders) can be exported to. */
  chooseExportFile: (format: "md" | "json", name: string) =>
    call<string | null>("choose_export_file", { format, name }),
  /** The shell's own open dialog; only a file chosen there (or in the app's folders) can be loaded. */
  chooseModelFile: () => call<string | null>("choose_model_file"),
  folders: () =>
    call<{ skillRoots: string[]; sessionDb: string; skillsState: string }>("app_folders"),
  /** Plays a turn; `onEvent` sees every live event before the promise resolves. */
  play: (input: string, onEvent: (e: TurnEvent) => void) => {
    const channel = new Channel<TurnEvent>();
    channel.onmessage = onEvent;
    return call<TurnView>("play", { input, onEvent: channel });
  },
};

export const events = {
  skillChanged: (f: (c: SkillChange) => void): Promise<UnlistenFn> =>
    listen<SkillChange>("skill-changed", (e) => f(e.payload)),
  modelProgress: (f: (p: { path?: string | null; progress: number }) => void) =>
    listen<{ path?: string | null; progress: number }>("model-progress", (e) => f(e.payload)),
  modelLoaded: (f: (m: ModelInfo) => void) => listen<ModelInfo>("model-loaded", (e) => f(e.payload)),
  modelFailed: (f: (e: AppError) => void) => listen<AppError>("model-failed", (e) => f(e.payload)),
};
