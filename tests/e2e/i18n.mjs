// The window's words as the specs expect them, read from the window's own
// catalogs (ui/src/i18n/locales/<lang>.json), so that the same specs pass
// whichever language the suite runs in: $NARRATORIA_E2E_LANG (en, fr, es,
// de; default en). The harness shows the window in that language
// (harness.mjs, `openApp`).
//
//   t("app.status.ready")                    the text, as the window writes it
//   t("sessions.turns", { count: 2 })         a plural, by the language's rules
//   tRegex("servers.done.writer", { model: "m", ms: /\d+ ms/ })
//                                             the text as a RegExp: variables given
//                                             as strings match as written, as RegExps
//                                             as patterns, left out as anything
//   norm(await el.getText())                 what to match them against (the
//                                             non-breaking spaces French puts
//                                             before ":" and in numbers as plain ones)

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const locales = path.join(repo, "ui/src/i18n/locales");

/** The language the suite runs the window in. */
export const lang = process.env.NARRATORIA_E2E_LANG || "en";
if (!existsSync(path.join(locales, `${lang}.json`))) {
  throw new Error(`NARRATORIA_E2E_LANG=${lang}: the window has no catalog ${lang}.json in ${locales}`);
}

/** Where the window keeps the player's choice of language (ui/src/i18n/index.ts). */
export const LANGUAGE_KEY = "narratoria.language";

/** The locale the app process is started in for `lang` (LANG, LC_ALL), which WebKitGTK turns into navigator.language. */
export const LOCALES = { en: "en_US.UTF-8", fr: "fr_FR.UTF-8", es: "es_ES.UTF-8", de: "de_DE.UTF-8" };

function load(language) {
  return JSON.parse(readFileSync(path.join(locales, `${language}.json`), "utf8"));
}
const catalog = load(lang);
const english = lang === "en" ? catalog : load("en");

function lookup(tree, key) {
  let node = tree;
  for (const part of key.split(".")) {
    if (node === null || typeof node !== "object" || !(part in node)) return undefined;
    node = node[part];
  }
  return typeof node === "string" ? node : undefined;
}

/** The text of `key` (with its plural form for `count`), English's when the language lacks it. */
function template(key, count) {
  if (count !== undefined) {
    const form = new Intl.PluralRules(lang).select(count);
    for (const k of [`${key}_${form}`, `${key}_other`]) {
      const text = lookup(catalog, k) ?? lookup(english, k);
      if (text !== undefined) return text;
    }
  }
  const text = lookup(catalog, key) ?? lookup(english, key);
  if (text === undefined) throw new Error(`no key ${key} in ${lang}.json or en.json`);
  return text;
}

/** Every form of a plural key (or the key's one text). */
function templates(key) {
  const direct = lookup(catalog, key) ?? lookup(english, key);
  if (direct !== undefined) return [direct];
  const forms = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
  const found = forms.map((f) => lookup(catalog, `${key}_${f}`)).filter((x) => x !== undefined);
  if (found.length === 0) throw new Error(`no key ${key} in ${lang}.json`);
  return found;
}

/** Plain spaces for the non-breaking ones. */
export function norm(text) {
  return String(text).replace(/[\u00a0\u202f]/g, " ");
}

const VARIABLE = /\{\{\s*([^}\s,]+)\s*(?:,\s*([^}]+?)\s*)?\}\}/g;

function formatted(value, format) {
  if (format === "number" && typeof value === "number") return new Intl.NumberFormat(lang).format(value);
  return String(value);
}

/** The window's text for `key` with `vars`, as `norm` leaves it. */
export function t(key, vars = {}) {
  return norm(template(key, vars.count).replace(VARIABLE, (_, name, format) => (name in vars ? formatted(vars[name], format) : `{{${name}}}`)));
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The text for `key` as a RegExp (every plural form when `count` is not given); see above. */
export function tRegex(key, vars = {}, flags = "") {
  const texts = vars.count !== undefined && !(vars.count instanceof RegExp) ? [template(key, vars.count)] : templates(key);
  const one = (text) => {
    let out = "";
    let at = 0;
    for (const m of text.matchAll(VARIABLE)) {
      out += escape(norm(text.slice(at, m.index)));
      const value = vars[m[1]];
      out += value instanceof RegExp ? `(?:${value.source})` : value !== undefined ? escape(norm(formatted(value, m[2]))) : "[\\s\\S]*?";
      at = m.index + m[0].length;
    }
    return out + escape(norm(text.slice(at)));
  };
  return new RegExp(texts.map(one).join("|"), flags);
}

/** A RegExp matching any of `patterns` (RegExps or texts). */
export function any(...patterns) {
  return new RegExp(patterns.map((p) => (p instanceof RegExp ? `(?:${p.source})` : escape(norm(p)))).join("|"));
}

/** The text of `key` in another of the window's languages (no variables). */
export function tIn(language, key) {
  const text = lookup(load(language), key);
  if (text === undefined) throw new Error(`no key ${key} in ${language}.json`);
  return norm(text);
}

/** A language's name as the window says it ("French", "français"). */
export function languageName(code) {
  return new Intl.DisplayNames([lang], { type: "language" }).of(code) ?? code;
}
