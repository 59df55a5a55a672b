#!/usr/bin/env node
// Keeps the window's message catalogs (ui/src/i18n/locales/*.json) in step:
//  - every catalog has each key English has, and no other (a plural has the
//    forms its language's plural rules ask for: French "one", "many",
//    "other"), and no empty text;
//  - each text names the same {{variables}} as its English (a plural's
//    `count` may be left out of a form);
//  - every key the code names (t("…"), i18nKey="…", a "group.key" string
//    of a catalog group) is one English has; a template key
//    (t(`models.verdict.${v}`)) must lead into one of its groups.
// Keys English has that nothing names are listed as a warning.
// Run from anywhere: node ui/scripts/check-i18n.mjs (part of `npm run build`).
// Exits 1, listing every problem, when anything is out of step.

import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ui = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const localesDir = path.join(ui, "src/i18n/locales");
const sourceDir = path.join(ui, "src");
const problems = [];
const warnings = [];

const PLURAL = /_(zero|one|two|few|many|other)$/;

/** The catalog's texts by dotted key. */
function flatten(node, prefix, out, file) {
  for (const [name, value] of Object.entries(node)) {
    const key = prefix ? `${prefix}.${name}` : name;
    if (typeof value === "string") out.set(key, value);
    else if (value && typeof value === "object" && !Array.isArray(value)) flatten(value, key, out, file);
    else problems.push(`${file}: ${key} is neither a text nor a group of texts`);
  }
  return out;
}

function load(file) {
  const text = readFileSync(path.join(localesDir, file), "utf8");
  try {
    return flatten(JSON.parse(text), "", new Map(), file);
  } catch (e) {
    problems.push(`${file}: not JSON (${e.message})`);
    return new Map();
  }
}

/** The {{variables}} a text names (formats after a comma left out). */
function variables(text) {
  return new Set([...text.matchAll(/\{\{\s*([^}\s,]+)[^}]*\}\}/g)].map((m) => m[1]));
}

const same = (a, b) => a.size === b.size && [...a].every((x) => b.has(x));
const show = (set) => (set.size ? [...set].sort().join(", ") : "none");

const files = readdirSync(localesDir).filter((f) => f.endsWith(".json")).sort();
if (!files.includes("en.json")) {
  console.error(`check-i18n: no en.json in ${localesDir}`);
  process.exit(1);
}
const en = load("en.json");

// English's keys: plain ones, and plurals by their base (with every variable but `count`).
const plain = new Map();
const plurals = new Map();
for (const [key, text] of en) {
  const m = PLURAL.exec(key);
  if (m) {
    const base = key.slice(0, -m[0].length);
    const vars = plurals.get(base) ?? new Set();
    for (const v of variables(text)) if (v !== "count") vars.add(v);
    plurals.set(base, vars);
  } else {
    plain.set(key, text);
  }
}
for (const base of plurals.keys()) {
  if (plain.has(base)) problems.push(`en.json: ${base} is both a text and a plural`);
}

for (const file of files) {
  const language = file.replace(/\.json$/, "");
  const catalog = file === "en.json" ? en : load(file);
  let categories;
  try {
    categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
  } catch {
    problems.push(`${file}: ${language} is not a language Intl knows`);
    continue;
  }
  const expected = new Set();
  for (const [key, text] of plain) {
    expected.add(key);
    if (!catalog.has(key)) {
      problems.push(`${file}: lacks ${key}`);
      continue;
    }
    const want = variables(text);
    const got = variables(catalog.get(key));
    if (!same(want, got)) problems.push(`${file}: ${key} names {{${show(got)}}}, English {{${show(want)}}}`);
  }
  for (const [base, want] of plurals) {
    // English's own forms are what it has; another language's, what its rules ask for.
    const forms = file === "en.json" ? categories.filter((c) => en.has(`${base}_${c}`)) : categories;
    if (file === "en.json" && !en.has(`${base}_other`)) problems.push(`en.json: ${base} has no _other form`);
    for (const form of forms) {
      const key = `${base}_${form}`;
      expected.add(key);
      if (!catalog.has(key)) {
        problems.push(`${file}: lacks ${key} (a plural form of ${language})`);
        continue;
      }
      const got = variables(catalog.get(key));
      got.delete("count");
      if (!same(want, got)) problems.push(`${file}: ${key} names {{${show(got)}}} besides count, English {{${show(want)}}}`);
    }
  }
  for (const [key, text] of catalog) {
    const plural = PLURAL.exec(key);
    if (plural && plurals.has(key.slice(0, -plural[0].length)) && !expected.has(key)) {
      // A form another version of the plural rules asks for (this Node's ICU may be older or newer).
      warnings.push(`${file}: ${key} is a form ${language}'s plural rules here do not use`);
    } else if (!expected.has(key)) {
      problems.push(`${file}: has ${key}, which English has not`);
    }
    if (text.trim() === "") problems.push(`${file}: ${key} is empty`);
    if (text.includes("$t(")) problems.push(`${file}: ${key} nests another key ($t(…)); pass it as a variable`);
  }
}

// ---- the keys the code names
const groups = new Set([...en.keys()].map((k) => k.split(".")[0]));
const known = (key) => en.has(key) || plurals.has(key);
const used = new Set();
const prefixes = new Set();

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith(".d.ts") ? [p] : [];
  });
}

for (const file of sources(sourceDir)) {
  const text = readFileSync(file, "utf8");
  const where = (index) => `${path.relative(ui, file)}:${text.slice(0, index).split("\n").length}`;
  const literal = /\bt\(\s*(["'`])((?:(?!\1)[^\\])*)\1/g;
  for (const m of text.matchAll(literal)) {
    const key = m[2];
    if (m[1] === "`" && key.includes("${")) {
      const prefix = key.slice(0, key.indexOf("${"));
      prefixes.add(prefix);
      if (![...en.keys()].some((k) => k.startsWith(prefix))) problems.push(`${where(m.index)}: no key of en.json starts ${prefix}`);
      continue;
    }
    used.add(key);
    if (!known(key)) problems.push(`${where(m.index)}: t("${key}") is not a key of en.json`);
  }
  for (const m of text.matchAll(/i18nKey=(["'])([^"']+)\1/g)) {
    used.add(m[2]);
    if (!known(m[2])) problems.push(`${where(m.index)}: i18nKey="${m[2]}" is not a key of en.json`);
  }
  // Keys kept in maps (errors.ts, the form's words): "group.key" strings of a catalog group.
  for (const m of text.matchAll(/(["'])([a-z][A-Za-z]*(?:\.[A-Za-z0-9_]+)+)\1/g)) {
    const key = m[2];
    if (!groups.has(key.split(".")[0]) || /\.(json|md|ts|tsx|gguf|sh)$/.test(key)) continue;
    // A t("…") or i18nKey="…" is judged above.
    if (/(\bt\(\s*|i18nKey=)$/.test(text.slice(Math.max(0, m.index - 12), m.index))) continue;
    used.add(key);
    if (!known(key)) problems.push(`${where(m.index)}: "${key}" looks like a key but en.json has none`);
  }
}

const bases = new Set([...en.keys()].map((k) => k.replace(PLURAL, "")));
for (const key of bases) {
  if (!used.has(key) && ![...prefixes].some((p) => key.startsWith(p))) warnings.push(`en.json: nothing names ${key}`);
}

for (const w of warnings) console.warn(`check-i18n: warning: ${w}`);
if (problems.length) {
  for (const p of problems) console.error(`check-i18n: ${p}`);
  console.error(`check-i18n: ${problems.length} problem(s) in the catalogs (${files.join(", ")})`);
  process.exit(1);
}
console.log(`check-i18n: ${files.join(", ")} in step (${bases.size} keys)`);
