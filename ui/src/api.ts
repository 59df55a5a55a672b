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
import type { Alternative } from "./bindings/Alternative";
import type { BranchInfo } from "./bindings/BranchInfo";
import type { SessionInfo } from "./bindings/SessionInfo";
import type { StoryTree } from "./bindings/StoryTree";
import type { LoreUse } from "./bindings/LoreUse";
import type { Routing } from "./bindings/Routing";
import type { Correction } from "./bindings/Correction";
import type { TraceRecord } from "./bindings/TraceRecord";
import type { SkillStats } from "./bindings/SkillStats";
import type { StatsQuery } from "./bindings/StatsQuery";
import type { JsonValue } from "./bindings/serde_json/JsonValue";
import type { StoryTable } from "./bindings/StoryTable";
import type { TableChange } from "./bindings/TableChange";
import { isErrorCode } from "./errors";

export type { AppError } from "./bindings/AppError";
export type { StoryTable } from "./bindings/StoryTable";
export type { TableChange } from "./bindings/TableChange";
export type { ErrorCode } from "./bindings/ErrorCode";
export type { FieldError } from "./bindings/FieldError";
export type { ExecutionResult } from "./bindings/ExecutionResult";
export type { ToolResult } from "./bindings/ToolResult";
export type { Plan } from "./bindings/Plan";
export type { ToolInvocation } from "./bindings/ToolInvocation";
export type { TurnEvent } from "./bindings/TurnEvent";
export type { ExecEvent } from "./bindings/ExecEvent";
export type { HealthChange } from "./bindings/HealthChange";
export type { Alternative } from "./bindings/Alternative";
export type { Correction } from "./bindings/Correction";
export type { BranchInfo } from "./bindings/BranchInfo";
export type { SessionInfo } from "./bindings/SessionInfo";
export type { StoryTree } from "./bindings/StoryTree";
export type { TreeTurn } from "./bindings/TreeTurn";
export type { LoreUse } from "./bindings/LoreUse";
export type { Routing } from "./bindings/Routing";
export type { SkillRouting } from "./bindings/SkillRouting";
export type { TraceRecord } from "./bindings/TraceRecord";
export type { Span } from "./bindings/Span";
export type { SpanKind } from "./bindings/SpanKind";
export type { SpanStatus } from "./bindings/SpanStatus";
export type { SkillStats } from "./bindings/SkillStats";
export type { SkillRunStats } from "./bindings/SkillRunStats";
export type { ScriptStats } from "./bindings/ScriptStats";
export type { RunStats } from "./bindings/RunStats";
export type { StatsQuery } from "./bindings/StatsQuery";

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

/** What the player says of the last turn's mechanics (docs/narrator.md, "The player corrects"). */
export type MechanicsChange = { kind: "needed" | "needless"; skill: string };

export interface AttemptRecord {
  attempt: number;
  plan?: Plan | null;
  result?: ExecutionResult | null;
  error?: string | null;
  transcript?: Transcript | null;
  /** The lore entries its narration was told, and why. */
  lore?: LoreUse[];
  /** Why its plan uses the skills it uses, when a router chose them. */
  routing?: Routing | null;
}

export interface TurnRecord {
  /** The turn's stable key. */
  id: string;
  /** The key of the turn it follows; null for a first turn. */
  parent?: string | null;
  number: number;
  input: string;
  narrative: string;
  fallback: boolean;
  createdAt: string;
  durationMs: number;
  attempts: AttemptRecord[];
  /** The turn's whole trace (docs/observability.md); null for a turn saved before traces were kept. */
  trace?: TraceRecord | null;
}

// Run folder
/** Where a turn's run folder was written (docs/observability.md, "A turn's run folder"). */
export interface RunExported {
  path: string;
  runId: string;
  traceId: string | null;
  files: string[];
}

export interface SessionView {
  session: SessionInfo;
  turns: TurnRecord[];
  state: JsonObject;
}

/** A story's language: its ISO 639 code (null until the player's first words tell it; English meanwhile). */
export interface StoryLanguage {
  code: string | null;
  /** Its English name ("French"). */
  name: string;
  /** Its own name ("français"). */
  autonym: string;
  /** Set when the story's writer is known not to write this language. */
  writerWarning: UnwrittenLanguage | null;
}

/** The story's writer does not write the story's language well (docs/models.md, "Languages"). */
export interface UnwrittenLanguage {
  /** The writer's model file name. */
  writer: string;
  /** The languages it writes well (ISO 639-1 codes). */
  writes: string[];
  /** The catalog's models that write the story's language, by catalog name. */
  models: string[];
}

export interface TurnView {
  session: string;
  turn: TurnRecord;
  result: ExecutionResult;
}

/** The models in use: the one that plans and the one that writes (docs/models.md, "Roles"). */
export interface ModelInfo {
  planner: string;
  path?: string | null;
  plannerParameters?: number | null;
  defaultPath: string;
  /** The writer's file name (the planner's own when it writes too), or "none". */
  writer: string;
  writerPath?: string | null;
  /** One model plans and writes. */
  shared: boolean;
  writerParameters?: number | null;
  writerContext?: number | null;
  writerProfile?: string | null;
  /** Where the planner's model runs: "on the processor", "on Radeon RX 7600 (33 of 33 layers)". */
  plannerRunsOn?: string | null;
  /** Where the writer's model runs, when a model writes. */
  writerRunsOn?: string | null;
}

/** A model's part in play. */
export type ModelRole = "planner" | "writer";

export interface ModelView {
  model: ModelInfo;
  loading: { path?: string | null; progress: number; active: boolean; error?: AppError | null };
}

/** A model on disk (the player's models folder or the program's). */
export interface InstalledModel {
  name: string;
  kind: "narrator" | "embedder";
  path: string;
  size: number;
  quantization?: string | null;
  contextLength?: number | null;
  architecture?: string | null;
  chatTemplate?: boolean | null;
  readOnly: boolean;
  /** It plans or writes. */
  inUse: boolean;
  problem?: string | null;
  /** Its parameters, from its tensor table. */
  parameters?: number | null;
  /** What it does in play now. */
  roles: ModelRole[];
  /** The context it would write in (tokens). */
  writerContext?: number | null;
  /** Its writer's profile in words. */
  profile?: string | null;
  /** How it runs here (a narrator): measured in play once used, else estimated. */
  fit?: Fit | null;
}

/** How a model fares on this machine (docs/models.md, "What this machine can run"). */
export type Verdict = "runsWell" | "runsSlowly" | "doesNotFit";

export interface Fit {
  verdict: Verdict;
  /** Tokens per second to expect: measured in play when `measured`, else estimated. */
  tokensPerSecond: number;
  measured: boolean;
  /** Share of the weights a graphics card would hold (0: all on the processor). */
  onGpu: number;
  /** Why, in a sentence. */
  reason: string;
}

/** A graphics card as the narrator's GPU backend reports it. */
export interface Gpu {
  name: string;
  memoryFree: number;
  memoryTotal: number;
  /** A driver that runs on the processor (lavapipe's "llvmpipe"): models are not put on it. */
  software: boolean;
}

/** This machine, as far as running a model goes. */
export interface Machine {
  cpu?: string | null;
  /** Threads the program may run on. */
  cores: number;
  /** Vector extensions llama.cpp's speed depends on ("avx2", "fma", "f16c", "avx512f"; "neon"). */
  cpuFeatures: string[];
  memoryTotal?: number | null;
  memoryAvailable?: number | null;
  gpu?: Gpu | null;
}

/** A file on Hugging Face's Hub a catalog entry downloads. */
export interface HubSource {
  repo: string;
  revision: string;
  file: string;
}

/** A model the catalog can download, judged against this machine. */
export interface CatalogEntry {
  name: string;
  description: string;
  kind: "narrator" | "embedder";
  license: string;
  url?: string;
  sha256?: string;
  hub?: HubSource | null;
  parameters?: number | null;
  /** Trained context, in tokens. */
  context?: number | null;
  /** ISO 639-1 codes, most fluent first. */
  languages?: string[];
  size?: number | null;
  ram?: number | null;
  notes?: string | null;
  unpack: { type: "asIs"; file: string } | { type: "members"; folder?: string | null; members: unknown[] };
  /** How it would run here (a narrator with a known size). */
  fit?: Fit | null;
}

/** A catalog model not installed yet, as `models_list` offers it. */
export type Offer = CatalogEntry;

export interface ModelsView {
  modelsDir: string;
  installed: InstalledModel[];
  available: Offer[];
  catalogProblem?: string | null;
  machine: Machine;
  /** The catalog narrator this machine runs best (installed or not). */
  recommended?: string | null;
}

/** A GGUF file a Hugging Face link offers. */
export interface HubFile {
  path: string;
  size: number;
  sha256?: string | null;
}

export interface DownloadProgress {
  done: number;
  total?: number | null;
}

/** An external OpenAI-compatible server given a role (docs/models.md, "External servers"). */
export interface ServerChoice {
  endpoint: string;
  model: string;
  /** The environment variable holding the API key; the key itself is never kept. */
  apiKeyEnv?: string | null;
}

/** The servers chosen, by role; `null`: a model in the process plays it. */
export interface Servers {
  planner: ServerChoice | null;
  writer: ServerChoice | null;
}

/** What a check of a server found. */
export interface ServerCheck {
  /** "ollama", "llama-server", "lm-studio", "kobold-cpp", "other", or null. */
  kind: string | null;
  models: string[];
  modelListed: boolean;
  roundTripMs: number;
}

/** A chosen server checked again: what it found, or why it failed. */
export interface RoleCheck {
  server: ServerChoice;
  check?: ServerCheck;
  error?: AppError;
}

export type ServerRole = "writer" | "planner" | "both";

async function call<T>(cmd: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(cmd, args);
  } catch (e) {
    throw asAppError(e);
  }
}

/** A channel that hands each live event of a turn to `onEvent`. */
function eventsTo(onEvent: (e: TurnEvent) => void): Channel<TurnEvent> {
  const channel = new Channel<TurnEvent>();
  channel.onmessage = onEvent;
  return channel;
}

export const api = {
  skills: () => call<SkillsView>("skills_list"),
  setSkillEnabled: (name: string, enabled: boolean) =>
    call<SkillsView>("skill_set_enabled", { name, enabled }),
  saveSkillConfig: (name: string, config: Json) =>
    call<JsonObject>("skill_save_config", { name, config }),
  // Skill stats
  /** How the skills' script runs fared in every saved story (runs, failures by code, p50/p95 per script); all runs unless `query` narrows them. */
  skillStats: (query: StatsQuery = {}) => call<SkillStats>("skills_stats", { query }),
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
  // Run folder
  /** Writes turn `turn` (its number on the current branch) as a run folder for a bug report, in a new folder under the user's data folder. */
  exportRun: (id: string, turn: number) => call<RunExported>("sessions_export_run", { id, turn }),
  modelStatus: () => call<ModelView>("model_status"),
  /** Opens the log folder in the file manager; resolves to its path. */
  openLogFolder: () => call<string>("open_log_folder"),
  loadModel: (path: string | null) => call<void>("model_load", { path }),
  models: () => call<ModelsView>("models_list"),
  /** Downloads a catalog model (resumed, checked); resolves to where it is installed. */
  downloadModel: (name: string, onProgress: (p: DownloadProgress) => void) => {
    const channel = new Channel<DownloadProgress>();
    channel.onmessage = onProgress;
    return call<string>("models_download", { name, onProgress: channel });
  },
  /** The whole-model GGUF files a Hugging Face repository or file link offers, smallest first. */
  hubFiles: (link: string) => call<HubFile[]>("models_hub_files", { link }),
  /** Downloads a GGUF file from a Hugging Face link (`file`: the one picked), checked against the Hub's SHA-256. */
  addFromHub: (link: string, file: string | null, onProgress: (p: DownloadProgress) => void) => {
    const channel = new Channel<DownloadProgress>();
    channel.onmessage = onProgress;
    return call<InstalledModel>("models_add_from_hub", { link, file, onProgress: channel });
  },
  /** Copies a GGUF file chosen in the shell's dialog into the models folder. */
  addModel: (path: string) => call<InstalledModel>("models_add", { path }),
  /** Gives `name` a role (the writer's unless told) and loads the roles again. */
  useModel: (name: string, role: "writer" | "planner" | "both" = "writer") =>
    call<void>("models_use", { name, role }),
  removeModel: (name: string) => call<{ path: string; wasChosen: boolean }>("models_remove", { name }),
  /** Which role is on which external server. */
  servers: () => call<Servers>("servers_show"),
  /** The models the server at `endpoint` lists. */
  serverModels: (endpoint: string, apiKeyEnv: string | null) =>
    call<string[]>("servers_models", { endpoint, apiKeyEnv }),
  /** Asks the chosen servers again, with their round-trip times. */
  checkServers: () => call<{ planner: RoleCheck | null; writer: RoleCheck | null }>("servers_check"),
  /** Checks the server serves `model`, gives it `role` and loads the roles again. */
  setServer: (role: ServerRole, endpoint: string, model: string, apiKeyEnv: string | null) =>
    call<ServerCheck>("servers_set", { role, endpoint, model, apiKeyEnv }),
  /** Gives `role` back to the models in the process and loads the roles again. */
  clearServer: (role: ServerRole) => call<void>("servers_clear", { role }),
  /** The shell's own save dialog; only a file chosen there (or in the app's folders) can be exported to. */
  chooseExportFile: (format: "md" | "json", name: string) =>
    call<string | null>("choose_export_file", { format, name }),
  /** The shell's own open dialog; only a file chosen there (or in the app's folders) can be loaded. */
  chooseModelFile: () => call<string | null>("choose_model_file"),
  /** The shell's own open dialog for a card or a lorebook to import. */
  chooseImportFile: (kind: "card" | "lore") => call<string | null>("choose_import_file", { kind }),
  folders: () =>
    call<{ skillRoots: string[]; sessionDb: string; skillsState: string }>("app_folders"),
  /** Plays a turn; `onEvent` sees every live event before the promise resolves. */
  play: (input: string, onEvent: (e: TurnEvent) => void) =>
    call<TurnView>("play", { input, onEvent: eventsTo(onEvent) }),
  /** Stops the running turn of a story; false when none runs. */
  stopTurn: (id: string) => call<boolean>("turn_stop", { id }),
  /** Tells the last turn again (same mechanics) as a new version of it. */
  regenerateNarration: (id: string, onEvent: (e: TurnEvent) => void) =>
    call<SessionView>("narration_regenerate", { id, onEvent: eventsTo(onEvent) }),
  /** More narration for the last turn, as a new version of it. */
  continueNarration: (id: string, onEvent: (e: TurnEvent) => void) =>
    call<SessionView>("narration_continue", { id, onEvent: eventsTo(onEvent) }),
  /** Plays the last turn again from scratch (new plan, new rolls). */
  regenerateTurn: (id: string, onEvent: (e: TurnEvent) => void) =>
    call<TurnView>("turn_regenerate", { id, onEvent: eventsTo(onEvent) }),
  /** Plays the last turn again with its mechanics corrected, and keeps the correction for the story's routing. */
  correctTurn: (id: string, change: MechanicsChange, onEvent: (e: TurnEvent) => void) =>
    call<TurnView>("turn_correct", { id, change, onEvent: eventsTo(onEvent) }),
  /** The story's corrections of its turns' mechanics, oldest first. */
  corrections: (id: string) => call<Correction[]>("corrections_list", { id }),
  /** Removes one of the story's corrections; the ones left. */
  removeCorrection: (id: string, correction: number) => call<Correction[]>("correction_remove", { id, correction }),
  /** Plays turn `turn` again with `input`, on a new branch from the turn before. */
  editTurn: (id: string, turn: number, input: string, onEvent: (e: TurnEvent) => void) =>
    call<TurnView>("turn_edit", { id, turn, input, onEvent: eventsTo(onEvent) }),
  /** Rewrites the narration of turn `turn` (the old one stays a version). */
  editNarration: (id: string, turn: number, text: string) =>
    call<SessionView>("narration_edit", { id, turn, text }),
  /** The last turn's versions, oldest first. */
  alternatives: (id: string) => call<Alternative[]>("alternatives_list", { id }),
  /** Makes version `number` of the last turn the one the story reads (null: the next one). */
  swipe: (id: string, number: number | null) => call<SessionView>("alternative_choose", { id, number }),
  /** Takes the last turn back; null at the story's start. */
  undo: (id: string) => call<SessionView | null>("story_undo", { id }),
  /** Brings back the turn taken back last; null when there is none. */
  redo: (id: string) => call<SessionView | null>("story_redo", { id }),
  tree: (id: string) => call<StoryTree>("story_tree", { id }),
  branches: (id: string) => call<BranchInfo[]>("branches_list", { id }),
  /** Starts a branch after turn `turn` (0 = the start) and plays on it from now on. */
  branch: (id: string, turn: number, name: string | null) => call<BranchInfo>("branch_new", { id, turn, name }),
  switchBranch: (id: string, name: string) => call<SessionView>("branch_switch", { id, name }),
  renameBranch: (id: string, from: string, to: string) => call<void>("branch_rename", { id, from, to }),
  /** Deletes a branch (not the last one); its turns stay in the story. */
  deleteBranch: (id: string, name: string) => call<SessionView>("branch_delete", { id, name }),
  renameSession: (id: string, title: string) => call<void>("session_rename", { id, title }),
  /** The story's author's note ("" when it has none). */
  storyNote: (id: string) => call<string>("story_note", { id }),
  /** Keeps the story's author's note ("" clears it); resolves to it as kept. Too long: `note_too_long`. */
  setStoryNote: (id: string, note: string) => call<string>("story_note_set", { id, note }),
  storyLanguage: (id: string) => call<StoryLanguage>("story_language", { id }),
  storyTable: (id: string) => call<StoryTable>("story_table", { id }),
  changeTable: (id: string, change: TableChange) => call<StoryTable>("story_table_change", { id, change }),
  /** Tells the story in the language a code or English name names; anything else: `language_unknown`. */
  setStoryLanguage: (id: string, language: string) =>
    call<StoryLanguage>("story_language_set", { id, language }),
  deleteSession: (id: string) => call<void>("session_delete", { id }),
};

export const events = {
  skillChanged: (f: (c: SkillChange) => void): Promise<UnlistenFn> =>
    listen<SkillChange>("skill-changed", (e) => f(e.payload)),
  modelProgress: (f: (p: { path?: string | null; progress: number }) => void) =>
    listen<{ path?: string | null; progress: number }>("model-progress", (e) => f(e.payload)),
  modelLoaded: (f: (m: ModelInfo) => void) => listen<ModelInfo>("model-loaded", (e) => f(e.payload)),
  modelFailed: (f: (e: AppError) => void) => listen<AppError>("model-failed", (e) => f(e.payload)),
  /** An external server keeps a role's request waiting (a model loading), or answers after such a wait. */
  serverWait: (f: (w: ServerWait) => void) => listen<ServerWait>("server-wait", (e) => f(e.payload)),
  /** Something failed inside the app (a panic); its backtrace is in the log. */
  panicked: (f: (p: PanicNote) => void) => listen<PanicNote>("app-panic", (e) => f(e.payload)),
};

/** A panic as the app tells it: what failed, and the folder of the log that has the details. */
export interface PanicNote {
  message: string;
  logDir: string;
}

/** An external server's wait, as the app tells it (docs/models.md, "External servers"). */
export interface ServerWait {
  role: "planner" | "writer";
  /** "Waiting for Ollama to load llama3.2…", or "Ollama is answering." */
  message: string;
  server: string;
  model: string;
  cold: boolean;
  answered: boolean;
  waitedMs: number;
}
