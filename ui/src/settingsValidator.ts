// The Settings form's client-side validator: the skill's JSON Schema checked
// in the window, so a wrong value is shown at its field before anything is
// sent. It must not compile code at run time (no `eval`, no `new Function`):
// the window's CSP has no 'unsafe-eval' (src-tauri/tauri.conf.json), so it is
// built on @cfworker/json-schema, which interprets the schema. The backend
// still validates every save and stays the authority (docs/desktop.md,
// "Choices").

import { validate, dereference, type OutputUnit, type Schema, type SchemaDraft } from "@cfworker/json-schema";
import { wordingOf } from "./settingsWording";
import {
  createErrorHandler,
  ROOT_SCHEMA_PREFIX,
  unwrapErrorHandler,
  validationDataMerge,
  withIdRefPrefix,
  type ErrorSchema,
  type RJSFSchema,
  type RJSFValidationError,
  type ValidationData,
  type ValidatorType,
} from "@rjsf/utils";

/**
 * What the app shows in place of a stored secret; sent back, it keeps the
 * stored value, so the form does not judge it (docs/security.md, "Secrets";
 * `REDACTED` in crates/core/src/skills/config/secrets.rs).
 */
export const SECRET_MARK = "••••••••";

/** One problem the form shows: where (a JSON pointer into the data) and what. */
export interface FieldProblem {
  pointer: string;
  message: string;
}

/** Keywords whose failure only says that one of their alternatives had to hold. */
const ALTERNATIVES = new Set(["anyOf", "oneOf"]);

/**
 * The problems of `data` under `schema`, each at the field it belongs to
 * and worded as the backend words it: a missing required property at that
 * property, an alternative (`anyOf`, `oneOf`) as one problem at its value,
 * and no summary of problems already told deeper down. A secret left as
 * `SECRET_MARK` is not judged. When `schema` is a part of `root`, its
 * local `$ref`s point into the root. Throws when the schema cannot be read
 * (an unresolvable `$ref`).
 */
export function problemsOf(schema: RJSFSchema, data: unknown, root?: RJSFSchema): FieldProblem[] {
  const instance = asJson(data);
  if (instance === undefined) return [];
  const run = validated(schema, instance, root);
  return fieldUnits(run.units)
    .map((u) => {
      const pointer = pointerOf(u);
      const value = valueAt(instance, pointer);
      return { pointer, value, message: wordingOf(u, holderOf(u, run), value) };
    })
    .filter((p) => p.value !== SECRET_MARK)
    .map(({ pointer, message }) => ({ pointer, message }));
}

/** Field problems as the form's error tree (one `__errors` list per field). */
export function errorSchemaOf(problems: FieldProblem[]): ErrorSchema {
  const root: Record<string, unknown> = {};
  for (const { pointer, message } of problems) {
    let node = root;
    for (const p of segments(pointer)) {
      node[p] = (node[p] as Record<string, unknown>) ?? {};
      node = node[p] as Record<string, unknown>;
    }
    node.__errors = [...((node.__errors as string[]) ?? []), message];
  }
  return root as ErrorSchema;
}

/** The form's validator: `problemsOf` in the shape react-jsonschema-form reads. */
export const settingsValidator: ValidatorType = {
  validateFormData(formData, schema, customValidate, transformErrors, uiSchema): ValidationData<unknown> {
    let problems: FieldProblem[];
    try {
      problems = problemsOf(schema, formData);
    } catch {
      // A schema this validator cannot read is left to the backend's.
      problems = [];
    }
    let errors: RJSFValidationError[] = problems.map(({ pointer, message }) => ({
      property: propertyOf(pointer),
      message,
      stack: pointer ? `${pointer} ${message}` : message,
    }));
    if (transformErrors) errors = transformErrors(errors, uiSchema);
    const found = { errors, errorSchema: errorSchemaOf(problems) };
    if (!customValidate) return found;
    const handler = customValidate(formData, createErrorHandler(formData), uiSchema, found.errorSchema);
    return validationDataMerge(found, unwrapErrorHandler(handler));
  },

  isValid(schema, formData, rootSchema) {
    try {
      return problemsOf(schema, formData, rootSchema).length === 0;
    } catch {
      return false;
    }
  },

  rawValidation<Result = OutputUnit>(schema: RJSFSchema, formData?: unknown) {
    try {
      const instance = asJson(formData);
      if (instance === undefined) return { errors: [] };
      return { errors: validated(schema, instance).units as Result[] };
    } catch (e) {
      return { validationError: e instanceof Error ? e : new Error(String(e)) };
    }
  },
};

/** The data as the backend receives it: JSON, so fields left empty (`undefined`) are absent. */
function asJson(data: unknown): unknown {
  if (data === undefined) return undefined;
  return JSON.parse(JSON.stringify(data));
}

/** One validation: every output unit, and the schemas it read (`$ref`s resolve through `lookup`). */
interface Validated {
  units: OutputUnit[];
  own: Schema;
  lookup: Record<string, Schema | boolean>;
}

/**
 * Validates `instance` against `schema`; when the schema is a part of
 * `root`, its local `$ref`s point into the root. The validator annotates
 * the schemas it reads, so it reads copies.
 */
function validated(schema: RJSFSchema, instance: unknown, root?: RJSFSchema): Validated {
  const lookup: Record<string, Schema | boolean> = Object.create(null);
  if (root !== undefined) dereference({ ...structuredClone(root), $id: ROOT_SCHEMA_PREFIX } as Schema, lookup);
  const own = structuredClone(root !== undefined ? withIdRefPrefix(schema) : schema) as Schema;
  dereference(own, lookup);
  return { units: validate(instance, own, draftOf(root ?? schema), lookup, false).errors, own, lookup };
}

/** The schema object holding the keyword that failed, found along its keyword location. */
function holderOf(u: OutputUnit, run: Validated): Record<string, unknown> | undefined {
  let node: unknown = run.own;
  for (const s of segments(u.keywordLocation.replace(/^#/, "").split("/").map(decodeURIComponent).join("/")).slice(0, -1)) {
    if (node === null || typeof node !== "object") return undefined;
    node = s === "$ref" ? run.lookup[(node as Schema).__absolute_ref__ ?? ""] : (node as Record<string, unknown>)[s];
  }
  return node !== null && typeof node === "object" ? (node as Record<string, unknown>) : undefined;
}

/** The draft `$schema` names; 2020-12 when it names none, as the backend reads it. */
function draftOf(schema: RJSFSchema): SchemaDraft {
  const named = typeof schema.$schema === "string" ? schema.$schema : "";
  if (named.includes("draft-04")) return "4";
  if (named.includes("draft-06") || named.includes("draft-07")) return "7";
  if (named.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/**
 * The output units a player can act on at a field: a failed alternative
 * replaces the failures of its branches; a unit whose failure is told by a
 * deeper one (`properties`, `items`, `$ref`, `allOf`…) gives way to it; a
 * `false` schema is told by the keyword that applied it (its location is
 * not a schema path); a missing property is told at that property.
 */
function fieldUnits(units: OutputUnit[]): OutputUnit[] {
  const alternatives = units.filter((u) => ALTERNATIVES.has(u.keyword));
  const within = (u: OutputUnit, outer: OutputUnit) => u.keywordLocation.startsWith(`${outer.keywordLocation}/`);
  const kept = units.filter((u) => u.keyword !== "false" && !alternatives.some((a) => within(u, a)));
  return kept
    .filter((u) => !kept.some((deeper) => within(deeper, u)))
    .map((u) => (u.keyword === "required" ? atMissingProperty(u) : u));
}

/** A `required` failure moved to the property it misses. */
function atMissingProperty(u: OutputUnit): OutputUnit {
  const missing = /required property "(.*)"\.$/s.exec(u.error)?.[1];
  if (missing === undefined) return u;
  const escaped = encodeURI(missing.replace(/~/g, "~0").replace(/\//g, "~1")).replace(/#/g, "%23");
  return { ...u, instanceLocation: `${u.instanceLocation}/${escaped}` };
}

/** The JSON pointer of a unit's instance location (`#/a~1b/%C3%A9` is `/a~1b/é`). */
function pointerOf(u: OutputUnit): string {
  return u.instanceLocation.replace(/^#/, "").split("/").map(decodeURIComponent).join("/");
}

/** A JSON pointer's property names, unescaped. */
function segments(pointer: string): string[] {
  return pointer === "" ? [] : pointer.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The value a JSON pointer names in `data`, if any. */
function valueAt(data: unknown, pointer: string): unknown {
  let node = data;
  for (const s of segments(pointer)) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[s];
  }
  return node;
}

/** A pointer as the property path rjsf's error list uses (`.a.b`, `['a b']`). */
function propertyOf(pointer: string): string {
  return segments(pointer)
    .map((s) => (/^[A-Za-z_$][\w$]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`))
    .join("");
}
