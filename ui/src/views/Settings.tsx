// Settings: a form per skill, generated from its config schema with
// react-jsonschema-form. The backend's validator is the authority: its errors
// come back by JSON pointer and are shown next to their fields. Secrets are
// shown masked and sent back as the mark, which keeps the stored value.

import { useEffect, useMemo, useState } from "react";
import Form from "@rjsf/core";
import type { ErrorSchema, RJSFSchema, UiSchema, ValidatorType, WidgetProps } from "@rjsf/utils";
import { api, asAppError, type AppError, type JsonObject, type SkillsView, type SkillView } from "../api";
import { sentenceOf } from "../errors";

/**
 * The form validates nothing itself: the backend's JSON Schema validator
 * decides, in the skill author's words. (A client-side validator such as
 * ajv compiles code at run time, which the window's CSP forbids.)
 */
const backendValidator: ValidatorType = {
  validateFormData: () => ({ errors: [], errorSchema: {} }),
  isValid: (schema, data) => matchesType(schema as JsonObject, data),
  rawValidation: () => ({ errors: [] }),
};

function matchesType(schema: JsonObject, data: unknown): boolean {
  if ("const" in schema) return JSON.stringify(schema.const) === JSON.stringify(data);
  if (Array.isArray(schema.enum)) return schema.enum.some((v) => JSON.stringify(v) === JSON.stringify(data));
  switch (schema.type) {
    case "string": return typeof data === "string";
    case "boolean": return typeof data === "boolean";
    case "integer": return Number.isInteger(data);
    case "number": return typeof data === "number";
    case "object": return !!data && typeof data === "object" && !Array.isArray(data);
    case "array": return Array.isArray(data);
    case "null": return data === null;
    default: return true;
  }
}

/** A boolean as an on/off switch. */
function SwitchWidget(props: WidgetProps) {
  return (
    <label className="switch">
      <input
        id={props.id}
        type="checkbox"
        role="switch"
        checked={!!props.value}
        disabled={props.disabled || props.readonly}
        onChange={(e) => props.onChange(e.target.checked)}
      />
      <span className="slider" aria-hidden />
      <span className="switch-label">{props.value ? "on" : "off"}</span>
    </label>
  );
}

/** A secret: masked, never filled with the stored value (only the mark). */
function SecretWidget(props: WidgetProps) {
  return (
    <input
      id={props.id}
      type="password"
      className="form-control"
      autoComplete="off"
      spellCheck={false}
      value={props.value ?? ""}
      placeholder={props.placeholder}
      disabled={props.disabled || props.readonly}
      onChange={(e) => props.onChange(e.target.value === "" ? undefined : e.target.value)}
    />
  );
}

const widgets = { switch: SwitchWidget, secret: SecretWidget };

/** Widgets chosen from the schema: booleans as switches, `format: password` masked. */
function uiSchemaFor(schema: JsonObject): UiSchema {
  const ui: UiSchema = {};
  const props = (schema.properties ?? {}) as Record<string, JsonObject>;
  for (const [key, p] of Object.entries(props)) {
    if (p.type === "boolean") ui[key] = { "ui:widget": "switch" };
    else if (p.format === "password" || p.writeOnly === true) ui[key] = { "ui:widget": "secret" };
    else if (p.type === "object") ui[key] = uiSchemaFor(p);
  }
  ui["ui:submitButtonOptions"] = { submitText: "Save" };
  return ui;
}

/** Field errors by JSON pointer, as the form's error tree. */
export function errorSchemaOf(errors: { pointer: string; message: string }[]): ErrorSchema {
  const root: Record<string, unknown> = {};
  for (const { pointer, message } of errors) {
    const parts = pointer === "" ? [] : pointer.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    let node = root;
    for (const p of parts) {
      node[p] = (node[p] as Record<string, unknown>) ?? {};
      node = node[p] as Record<string, unknown>;
    }
    node.__errors = [...((node.__errors as string[]) ?? []), message];
  }
  return root as ErrorSchema;
}

export function SettingsView({ skills, onSaved }: { skills: SkillsView | null; onSaved: () => void }) {
  const configurable = (skills?.skills ?? []).filter((s) => s.configSchema);
  return (
    <section className="settings" aria-label="Settings">
      <LogsCard />
      {!skills && <p className="muted">Loading…</p>}
      {skills && !configurable.length && <p className="muted">No skill has settings.</p>}
      {configurable.map((s) => (
        <SkillForm key={`${s.name}:${s.path}`} skill={s} onSaved={onSaved} />
      ))}
    </section>
  );
}

/** Where the app's log files are, with a button that opens the folder. */
function LogsCard() {
  const [opened, setOpened] = useState<string | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  return (
    <article className="card settings-card" data-testid="logs-card">
      <h2>Logs</h2>
      <p className="muted">One log file a day; the last seven are kept.</p>
      <button
        data-testid="open-log-folder"
        onClick={async () => {
          try {
            setOpened(await api.openLogFolder());
            setError(null);
          } catch (err) {
            setError(asAppError(err));
          }
        }}
      >
        Open log folder
      </button>
      {opened && (
        <p className="muted" role="status" data-testid="log-folder">
          {opened}
        </p>
      )}
      {error && (
        <p className="error-text" role="alert">
          {sentenceOf(error)} <span className="error-message">{error.message}</span>
        </p>
      )}
    </article>
  );
}

function SkillForm({ skill, onSaved }: { skill: SkillView; onSaved: () => void }) {
  const schema = skill.configSchema as RJSFSchema;
  const uiSchema = useMemo(() => uiSchemaFor(skill.configSchema!), [skill.configSchema]);
  const [data, setData] = useState<JsonObject>(skill.config);
  const [error, setError] = useState<AppError | null>(null);
  const [saved, setSaved] = useState(false);
  // Follow the stored settings when they change on disk, not on every refresh
  // of the skill list (which would wipe what the player is typing).
  const stored = JSON.stringify(skill.config);
  useEffect(() => setData(JSON.parse(stored)), [stored]);

  return (
    <article className="card settings-card" data-testid="settings-form" data-skill={skill.name}>
      <h2>{skill.displayName || skill.name}</h2>
      <Form
        schema={schema}
        uiSchema={uiSchema}
        formData={data}
        validator={backendValidator}
        widgets={widgets}
        idPrefix={`cfg-${skill.name}`}
        noHtml5Validate
        showErrorList={false}
        extraErrors={error?.errors ? errorSchemaOf(error.errors) : undefined}
        onChange={(e) => {
          setData(e.formData as JsonObject);
          setSaved(false);
        }}
        onSubmit={async (e) => {
          try {
            const shown = await api.saveSkillConfig(skill.name, e.formData as JsonObject);
            setData(shown);
            setError(null);
            setSaved(true);
            onSaved();
          } catch (err) {
            setError(asAppError(err));
            setSaved(false);
          }
        }}
      />
      {error && !error.errors?.length && (
        <p className="error-text" role="alert">
          {sentenceOf(error)} <span className="error-message">{error.message}</span>
        </p>
      )}
      {error?.errors?.length ? (
        <p className="error-text" role="alert" data-testid="settings-error">
          Not saved: {error.errors.length === 1 ? "one field needs" : `${error.errors.length} fields need`} attention.
        </p>
      ) : null}
      {saved && (
        <p className="ok-text" role="status" data-testid="settings-saved">
          Saved.
        </p>
      )}
    </article>
  );
}
