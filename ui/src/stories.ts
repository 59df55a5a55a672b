// Typed calls to the shell's story commands: scenarios, a new story from
// one, and importing character cards and lorebooks (docs/scenarios.md).

import { invoke } from "@tauri-apps/api/core";
import { asAppError, type SessionView } from "./api";

export interface ScenarioSummary {
  name: string;
  title: string;
  premise: string;
  builtin: boolean;
  path?: string | null;
}

export interface ScenarioList {
  scenarios: ScenarioSummary[];
  unreadable: { path: string; problem: string }[];
}

export type CardRole = "player" | "npc";

export interface CharacterCard {
  spec: string;
  name: string;
  description: string;
  personality: string;
  scenario: string;
  firstMes: string;
  lore: { name: string }[];
  loreSkipped?: string[];
}

export interface CardImported {
  import: { card: CharacterCard; role: CardRole; session?: string | null };
  session: SessionView;
}

export interface LoreImport {
  name?: string | null;
  entries: number;
  skipped: string[];
  session?: string | null;
  scenarioFile?: string | null;
}

async function call<T>(cmd: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(cmd, args);
  } catch (e) {
    throw asAppError(e);
  }
}

export const stories = {
  scenarios: () => call<ScenarioList>("scenarios_list"),
  /** Starts a story from a scenario and makes it current. */
  newStory: (scenario: string | null) => call<SessionView>("story_new", { scenario }),
  /** Imports a card into `session`, or into a new story built around it. */
  importCard: (path: string, role: CardRole, session: string | null) =>
    call<CardImported>("card_import", { path, role, session }),
  importLore: (path: string, target: { session?: string; scenario?: string }) =>
    call<LoreImport>("lore_import", { path, session: target.session ?? null, scenario: target.scenario ?? null }),
};

/** The opening scene a story's state holds, if any. */
export function openingOf(session: SessionView | null): string | null {
  const scenario = session?.state?.scenario;
  if (scenario && typeof scenario === "object" && !Array.isArray(scenario)) {
    const opening = (scenario as Record<string, unknown>).opening;
    if (typeof opening === "string" && opening.trim()) return opening;
  }
  return null;
}
