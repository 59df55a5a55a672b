// A settings problem found in the window, worded as the backend words the
// same problem (crates/core/src/skills/config/wording.rs), so the player reads
// one voice whichever side found it — in the window's language
// (the settings group's problem texts in ui/src/i18n/locales).

import type { OutputUnit } from "@cfworker/json-schema";
import i18n from "./i18n";

/**
 * The sentence for one failed keyword: `schema` is the schema object that
 * holds the keyword (when known) and `value` the value it judged. Keywords
 * without a wording of their own keep the validator's sentence.
 */
export function wordingOf(unit: OutputUnit, schema: Record<string, unknown> | undefined, value: unknown): string {
  const t = i18n.t;
  const limit = schema?.[unit.keyword];
  const got = short(value);
  switch (unit.keyword) {
    case "required":
      return t("settings.problem.required");
    case "type":
      return Array.isArray(limit)
        ? t("settings.problem.typeOneOf", { types: limit.join(", "), got })
        : t("settings.problem.type", { type: typeWords(String(limit)), got });
    case "enum":
      return Array.isArray(limit)
        ? t("settings.problem.enum", { options: limit.map((o) => JSON.stringify(o)).join(", "), got })
        : unit.error;
    case "const":
      return t("settings.problem.const", { value: JSON.stringify(limit), got });
    case "minimum":
      return t(schema?.exclusiveMinimum === true ? "settings.problem.moreThan" : "settings.problem.atLeast", {
        limit: String(limit),
        got,
      });
    case "maximum":
      return t(schema?.exclusiveMaximum === true ? "settings.problem.lessThan" : "settings.problem.atMost", {
        limit: String(limit),
        got,
      });
    case "exclusiveMinimum":
      return t("settings.problem.moreThan", { limit: String(limit), got });
    case "exclusiveMaximum":
      return t("settings.problem.lessThan", { limit: String(limit), got });
    case "minLength":
      return t("settings.problem.minLength", { limit: String(limit) });
    case "maxLength":
      return t("settings.problem.maxLength", { limit: String(limit) });
    case "pattern":
      return t("settings.problem.pattern", { pattern: String(limit) });
    case "format":
      return t("settings.problem.format", { format: String(limit) });
    case "anyOf":
      return t("settings.problem.anyOf", { got });
    case "oneOf":
      return t("settings.problem.oneOf", { got });
    case "additionalProperties": {
      const name = /^Property "(.*)" does not match additional properties schema\.$/s.exec(unit.error)?.[1];
      return name === undefined ? unit.error : t("settings.problem.unknownSetting", { name });
    }
    default:
      return unit.error;
  }
}

const TYPES = ["integer", "number", "string", "boolean", "object", "array", "null"] as const;

/** A JSON type name as the sentence says it: "an integer", "a string", "null". */
function typeWords(type: string): string {
  const known = TYPES.find((x) => x === type);
  return known ? i18n.t(`settings.problem.types.${known}`) : type;
}

/** The offending value as JSON, cut to 40 characters. */
function short(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) return i18n.t("settings.problem.nothing");
  const s = [...json];
  return s.length > 40 ? `${s.slice(0, 40).join("")}…` : s.join("");
}
