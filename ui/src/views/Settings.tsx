// Settings: a form per skill, generated from its config schema with
// react-jsonschema-form. The window checks the values against the schema
// first (settingsValidator.ts) and shows each problem at its field; the
// backend's validator still judges every save, and its errors come back by
// JSON pointer and are shown the same way. Secrets are shown masked and sent
// back as the mark, which keeps the stored value.

import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import Form from "@rjsf/core";
import { englishStringTranslator, TranslatableString, type RJSFSchema, type UiSchema, type WidgetProps } from "@rjsf/utils";
import { api, asAppError, type AppError, type JsonObject, type SkillsView, type SkillView } from "../api";
import { sentenceOf } from "../errors";
import { errorSchemaOf, settingsValidator } from "../settingsValidator";
import i18n from "../i18n";

/** The form library's own words the window shows, in the window's language. */
const FORM_WORDS = {
  [TranslatableString.ArrayItemTitle]: "settings.form.item",
  [TranslatableString.EmptyArray]: "settings.form.emptyArray",
  [TranslatableString.YesLabel]: "settings.form.yes",
  [TranslatableString.NoLabel]: "settings.form.no",
  [TranslatableString.CloseLabel]: "settings.form.close",
  [TranslatableString.ErrorsLabel]: "settings.form.errors",
  [TranslatableString.NewStringDefault]: "settings.form.newValue",
  [TranslatableString.AddButton]: "settings.form.add",
  [TranslatableString.AddItemButton]: "settings.form.addItem",
  [TranslatableString.CopyButton]: "settings.form.copy",
  [TranslatableString.MoveDownButton]: "settings.form.moveDown",
  [TranslatableString.MoveUpButton]: "settings.form.moveUp",
  [TranslatableString.RemoveButton]: "settings.form.remove",
  [TranslatableString.ClearLabel]: "settings.form.clear",
  [TranslatableString.ClearButton]: "settings.form.clearInput",
  [TranslatableString.DecrementAriaLabel]: "settings.form.decrease",
  [TranslatableString.IncrementAriaLabel]: "settings.form.increase",
  [TranslatableString.OptionalObjectAdd]: "settings.form.optionalAdd",
  [TranslatableString.OptionalObjectRemove]: "settings.form.optionalRemove",
  [TranslatableString.OptionalObjectEmptyMsg]: "settings.form.optionalEmpty",
  [TranslatableString.Type]: "settings.form.type",
  [TranslatableString.Value]: "settings.form.value",
  [TranslatableString.OptionPrefix]: "settings.form.option",
  [TranslatableString.TitleOptionPrefix]: "settings.form.titleOption",
  [TranslatableString.KeyLabel]: "settings.form.key",
  [TranslatableString.DeprecatedLabel]: "settings.form.deprecated",
} as const;

/** The form library's words: ours when we have them (its `%1`, `%2` as `p1`, `p2`), else its English. */
function translateString(words: TranslatableString, params?: string[]): string {
  const key = (FORM_WORDS as Partial<Record<TranslatableString, (typeof FORM_WORDS)[keyof typeof FORM_WORDS]>>)[words];
  if (!key) return englishStringTranslator(words, params);
  return i18n.t(key, { p1: params?.[0] ?? "", p2: params?.[1] ?? "" });
}

/** A boolean as an on/off switch. */
function SwitchWidget(props: WidgetProps) {
  const { t } = useTranslation();
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
      <span className="switch-label">{props.value ? t("common.on") : t("common.off")}</span>
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
  ui["ui:submitButtonOptions"] = { submitText: i18n.t("common.save") };
  return ui;
}

export function SettingsView({ skills, onSaved }: { skills: SkillsView | null; onSaved: () => void }) {
  const { t } = useTranslation();
  const configurable = (skills?.skills ?? []).filter((s) => s.configSchema);
  return (
    <section className="settings" aria-label={t("settings.label")}>
      <LogsCard />
      {!skills && <p className="muted">{t("common.loading")}</p>}
      {skills && !configurable.length && <p className="muted">{t("settings.noSettings")}</p>}
      {configurable.map((s) => (
        <SkillForm key={`${s.name}:${s.path}`} skill={s} onSaved={onSaved} />
      ))}
    </section>
  );
}

/** Where the app's log files are, with a button that opens the folder. */
function LogsCard() {
  const { t } = useTranslation();
  const [opened, setOpened] = useState<string | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  return (
    <article className="card settings-card" data-testid="logs-card">
      <h2>{t("settings.logs.title")}</h2>
      <p className="muted">{t("settings.logs.kept")}</p>
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
        {t("settings.logs.open")}
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
  const { t, i18n: language } = useTranslation();
  const schema = skill.configSchema as RJSFSchema;
  // Built again in another language (the Save button's words).
  const uiSchema = useMemo(() => uiSchemaFor(skill.configSchema!), [skill.configSchema, language.language]);
  const [data, setData] = useState<JsonObject>(skill.config);
  const [error, setError] = useState<AppError | null>(null);
  const [saved, setSaved] = useState(false);
  // How many problems the window found in the values last submitted.
  const [refused, setRefused] = useState(0);
  // Follow the stored settings when they change on disk, not on every refresh
  // of the skill list (which would wipe what the player is typing).
  const stored = JSON.stringify(skill.config);
  useEffect(() => setData(JSON.parse(stored)), [stored]);
  const attention = refused || error?.errors?.length || 0;

  return (
    <article className="card settings-card" data-testid="settings-form" data-skill={skill.name}>
      <h2>{skill.displayName || skill.name}</h2>
      <Form
        schema={schema}
        uiSchema={uiSchema}
        formData={data}
        validator={settingsValidator}
        widgets={widgets}
        idPrefix={`cfg-${skill.name}`}
        translateString={translateString}
        noHtml5Validate
        showErrorList={false}
        extraErrors={error?.errors ? errorSchemaOf(error.errors) : undefined}
        onChange={(e) => {
          setData(e.formData as JsonObject);
          setSaved(false);
        }}
        onError={(errors) => {
          // This submission's problems replace the backend's answer to the last one.
          setRefused(errors.length);
          setError(null);
          setSaved(false);
        }}
        onSubmit={async (e) => {
          setRefused(0);
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
      {attention ? (
        <p className="error-text" role="alert" data-testid="settings-error">
          {t("settings.notSaved", { count: attention })}
        </p>
      ) : null}
      {saved && (
        <p className="ok-text" role="status" data-testid="settings-saved">
          {t("settings.saved")}
        </p>
      )}
    </article>
  );
}
