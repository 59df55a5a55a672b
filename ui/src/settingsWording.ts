// A settings problem found in the window, worded as the backend words the
// same problem (crates/core/src/skills/config/wording.rs), so the player reads
// one voice whichever side found it.

import type { OutputUnit } from "@cfworker/json-schema";

/**
 * The sentence for one failed keyword: `schema` is the schema object that
 * holds the keyword (when known) and `value` the value it judged. Keywords
 * without a wording of their own keep the validator's sentence.
 */
export function wordingOf(unit: OutputUnit, schema: Record<string, unknown> | undefined, value: unknown): string {
  const limit = schema?.[unit.keyword];
  const got = short(value);
  switch (unit.keyword) {
    case "required":
      return "is required";
    case "type":
      return Array.isArray(limit)
        ? `must be one of the types ${limit.join(", ")}, not ${got}`
        : `must be ${article(String(limit))}, not ${got}`;
    case "enum":
      return Array.isArray(limit) ? `must be one of ${limit.map((o) => JSON.stringify(o)).join(", ")}, not ${got}` : unit.error;
    case "const":
      return `must be ${JSON.stringify(limit)}, not ${got}`;
    case "minimum":
      return `must be ${schema?.exclusiveMinimum === true ? "more than" : "at least"} ${limit}, not ${got}`;
    case "maximum":
      return `must be ${schema?.exclusiveMaximum === true ? "less than" : "at most"} ${limit}, not ${got}`;
    case "exclusiveMinimum":
      return `must be more than ${limit}, not ${got}`;
    case "exclusiveMaximum":
      return `must be less than ${limit}, not ${got}`;
    case "minLength":
      return `must be at least ${limit} characters long`;
    case "maxLength":
      return `must be at most ${limit} characters long`;
    case "pattern":
      return `must match the pattern ${limit}`;
    case "format":
      return `must be a valid ${limit}`;
    case "anyOf":
      return `must take one of the forms the schema allows, not ${got}`;
    case "oneOf":
      return `must take exactly one of the forms the schema allows, not ${got}`;
    case "additionalProperties": {
      const name = /^Property "(.*)" does not match additional properties schema\.$/s.exec(unit.error)?.[1];
      return name === undefined ? unit.error : `unknown setting ${name} (not in the settings schema)`;
    }
    default:
      return unit.error;
  }
}

/** A JSON type name with its article: "an integer", "a string", "null". */
function article(t: string): string {
  if (t === "integer" || t === "object" || t === "array") return `an ${t}`;
  return t === "null" ? "null" : `a ${t}`;
}

/** The offending value as JSON, cut to 40 characters. */
function short(value: unknown): string {
  const s = [...(JSON.stringify(value) ?? "nothing")];
  return s.length > 40 ? `${s.slice(0, 40).join("")}…` : s.join("");
}
