// What the player reads for each error code. The map is typed over every
// code the Rust side can send (ui/src/bindings/ErrorCode.ts, generated), so a
// new code does not compile until it has a message key here, and each key
// is one the English catalog has (ui/src/i18n/locales/en.json, "errors").

import type { AppError } from "./bindings/AppError";
import type { ErrorCode } from "./bindings/ErrorCode";
import { ACTION_CHARS } from "./bounds";
import i18n from "./i18n";
import { formatNumber } from "./i18n/format";
import type en from "./i18n/locales/en.json";

/** A key of the catalogs' "errors" group. */
type ErrorKey = `errors.${keyof (typeof en)["errors"]}`;

const SENTENCES: Record<ErrorCode, ErrorKey> = {
  plan_not_json: "errors.plan_not_json",
  plan_invalid: "errors.plan_invalid",
  input_empty: "errors.input_empty",
  action_too_long: "errors.action_too_long",
  export_format_unknown: "errors.export_format_unknown",
  export_refused: "errors.export_refused",
  skills_dir_unusable: "errors.skills_dir_unusable",
  skill_invalid: "errors.skill_invalid",
  config_invalid: "errors.config_invalid",
  skill_not_found: "errors.skill_not_found",
  session_not_found: "errors.session_not_found",
  session_store: "errors.session_store",
  session_changed: "errors.session_changed",
  model_unusable: "errors.model_unusable",
  download_failed: "errors.download_failed",
  model_link_invalid: "errors.model_link_invalid",
  model_file_choice: "errors.model_file_choice",
  server_failed: "errors.server_failed",
  state_invalid: "errors.state_invalid",
  card_invalid: "errors.card_invalid",
  lore_invalid: "errors.lore_invalid",
  scenario_invalid: "errors.scenario_invalid",
  scenario_not_found: "errors.scenario_not_found",
  note_too_long: "errors.note_too_long",
  language_unknown: "errors.language_unknown",
  correction_needless: "errors.correction_needless",
  thread_not_found: "errors.thread_not_found",
  table_text_invalid: "errors.table_text_invalid",
  io: "errors.io",
};

/** Whether `code` is one the Rust side sends. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.prototype.hasOwnProperty.call(SENTENCES, code);
}

/** The sentence the player reads for an error, in the window's language; its message is the detail. */
export function sentenceOf(error: Pick<AppError, "code">): string {
  return i18n.t(SENTENCES[error.code], { max: formatNumber(ACTION_CHARS) });
}
