// What the player reads for each error code. The map is typed over every
// code the Rust side can send (ui/src/bindings/ErrorCode.ts, generated), so a
// new code does not compile until it has a sentence here.

import type { AppError } from "./bindings/AppError";
import type { ErrorCode } from "./bindings/ErrorCode";
import { ACTION_CHARS } from "./bounds";

const SENTENCES: Record<ErrorCode, string> = {
  plan_not_json: "The narrator's answer could not be read.",
  plan_invalid: "The narrator came up with a plan that cannot be carried out.",
  input_empty: "Say what your character does first.",
  action_too_long: `That action is too long — an action holds at most ${ACTION_CHARS} characters; shorten it.`,
  export_format_unknown: "That export format is not available — choose Markdown or JSON.",
  export_refused: "Nothing was saved: the folder must be new or empty, and no secret setting may be written into it.",
  skills_dir_unusable: "A skills folder cannot be read.",
  skill_invalid: "A skill's own files are broken.",
  config_invalid: "Some settings are not valid — see the marked fields.",
  skill_not_found: "That skill is no longer there.",
  session_not_found: "That session is no longer there.",
  session_store: "The saved stories could not be read or written.",
  session_changed: "The story moved on while that turn was played (it was rewound or changed elsewhere), so the turn was not saved — try it again.",
  model_unusable: "That model file cannot be used.",
  download_failed: "The download did not finish or did not match its checksum — try again; it goes on where it stopped.",
  model_link_invalid: "That is not a Hugging Face model link — paste a repository's address or one .gguf file's.",
  model_file_choice: "That repository has several GGUF files — pick one.",
  server_failed: "The model server did not answer as it should — check that it is running and serves that model.",
  state_invalid: "The story's state is not valid.",
  card_invalid: "That file is not a character card Narratoria can read.",
  lore_invalid: "That lorebook cannot be read.",
  scenario_invalid: "That scenario file is not valid.",
  scenario_not_found: "There is no scenario by that name.",
  note_too_long: "That author's note is too long — shorten it; the note saved before is kept.",
  language_unknown: "That is not a language Narratoria knows — give a code like fr or a name like French.",
  correction_needless: "The turn already has those mechanics — nothing to correct.",
  thread_not_found: "The story has no such thread.",
  table_text_invalid: "That title or fact is empty or too long.",
  io: "Something went wrong reading or writing a file.",
};

/** Whether `code` is one the Rust side sends. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.prototype.hasOwnProperty.call(SENTENCES, code);
}

/** The sentence the player reads for an error; its message is the detail. */
export function sentenceOf(error: Pick<AppError, "code">): string {
  return SENTENCES[error.code];
}
