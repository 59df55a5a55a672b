// Starts an installed Narratoria (default /usr/bin/narratoria-desktop) in a
// real window with its bundled skills and model, as a player would, and
// checks what the package promises (docs/desktop.md, "Installing a packaged
// build"):
//  - the window's title, the skills listed with their scripts (no problems);
//  - the bundled model loads and the status bar says so (never stuck on
//    "Loading model");
//  - a turn plays and is narrated;
//  - a skill setting is saved in the player's own folder (the bundle is
//    read-only) and is still there after the app is closed and started again.
// Prints the start-up times; saves screenshots. Exit status 0 = all seen.

import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { openApp, shot } from "./harness.mjs";
import { typeInto } from "./window.mjs";
import { norm, t } from "./i18n.mjs";

const application = process.argv[2] || "/usr/bin/narratoria-desktop";
const MAX_DICE = "42";

/** Every file named `name` under `dir`. */
function find(dir, name) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    const p = path.join(dir, entry);
    if (statSync(p).isDirectory()) found.push(...find(p, name));
    else if (entry === name) found.push(p);
  }
  return found;
}

async function tab(b, name) {
  await (await b.$(`#tab-${name}`)).click();
}

/** Waits for the model to finish loading; returns the status bar's words and state. */
async function modelLoaded(b) {
  const bar = await b.$('[data-testid="planner"]');
  await bar.waitForExist({ timeout: 20_000 });
  await b.waitUntil(async () => (await bar.getAttribute("data-state")) !== "loading", {
    timeout: 120_000,
    timeoutMsg: "the status bar still says the model is loading",
  });
  return { text: await bar.getText(), state: await bar.getAttribute("data-state") };
}

function maxDiceField(b) {
  return b.$('[data-testid="settings-form"][data-skill="dice-roller"] #cfg-dice-roller_maxDice');
}

const checks = [];
const check = (what, ok, detail = "") => {
  checks.push(ok);
  console.log(`installed app: ${ok ? "ok" : "FAILED"} - ${what}${detail ? ` (${detail})` : ""}`);
};

let tmp = null;
try {
  // ---- first start
  let started = Date.now();
  let app = await openApp({ application, copySkills: false, installed: true });
  tmp = app.tmp;
  let b = app.browser;
  try {
    await (await b.$('[data-testid="play-input"]')).waitForExist({ timeout: 30_000 });
    const windowMs = Date.now() - started;
    const model = await modelLoaded(b);
    console.log(`installed app: window ready in ${windowMs} ms, model settled in ${Date.now() - started} ms`);
    check("the window is titled Narratoria", (await b.getTitle()) === "Narratoria");
    check("the bundled model is loaded and the status bar says so", model.state === "loaded" && /gguf/i.test(model.text), model.text);

    await tab(b, "skills");
    await (await b.$('[data-testid="skill"]')).waitForExist({ timeout: 10_000 });
    const skills = (await b.$$('[data-testid="skill"]')).length;
    // A bundle without the compiled scripts lists every skill as a problem.
    const problems = (await b.$$('[data-testid="skill-problems"] li')).length;
    await shot(b, "installed-skills");
    check("the bundled skills are listed with their scripts", skills > 0 && problems === 0, `${skills} skills, ${problems} problems`);

    await tab(b, "play");
    const input = await b.$('[data-testid="play-input"]');
    await input.waitForEnabled({ timeout: 30_000 });
    const turnStarted = Date.now();
    await input.setValue("I look around the tavern");
    await b.keys("Enter");
    const narration = await b.$('[data-turn="1"] [data-testid="narration"]');
    await narration.waitForExist({ timeout: 90_000 });
    await b.waitUntil(async () => norm(await (await b.$('[data-testid="status"]')).getText()).includes(t("app.status.ready")), {
      timeout: 90_000,
    });
    const told = (await narration.getText()).trim();
    console.log(`installed app: first turn told in ${Date.now() - turnStarted} ms: ${JSON.stringify(told)}`);
    check("a turn plays and is narrated", told.length > 0);
    await shot(b, "installed");

    await tab(b, "settings");
    const field = await maxDiceField(b);
    await field.waitForExist({ timeout: 10_000 });
    await typeInto(b, field, MAX_DICE);
    const form = await b.$('[data-testid="settings-form"][data-skill="dice-roller"]');
    await (await form.$('button[type="submit"]')).click();
    let saved = false;
    try {
      await (await form.$('[data-testid="settings-saved"]')).waitForExist({ timeout: 10_000 });
      saved = true;
    } catch {
      const error = await form.$(".error-detail");
      console.error(`installed app: saving said ${(await error.isExisting()) ? await error.getText() : "nothing"}`);
    }
    const written = find(app.home, "dice-roller.json").filter((f) => JSON.parse(readFileSync(f, "utf8")).settings?.maxDice === Number(MAX_DICE));
    check("a skill setting is saved in the player's folder", saved && written.length === 1, written.map((f) => path.relative(app.home, f)).join(", "));
  } finally {
    await app.close({ keep: true });
  }

  // ---- second start, over what the first left
  started = Date.now();
  app = await openApp({ application, installed: true, reuse: tmp });
  b = app.browser;
  try {
    await (await b.$('[data-testid="play-input"]')).waitForExist({ timeout: 30_000 });
    console.log(`installed app: second start, window ready in ${Date.now() - started} ms`);
    // The page asks for the current story once the window is up: wait for it.
    let turns = [];
    await b
      .waitUntil(async () => (turns = await b.$$('[data-testid="story"] [data-testid="turn"]')).length >= 1, {
        timeout: 15_000,
      })
      .catch(() => {});
    check("the story played before is still there", turns.length >= 1, `${turns.length} turns`);
    await tab(b, "settings");
    const field = await maxDiceField(b);
    await field.waitForExist({ timeout: 10_000 });
    const value = await field.getValue();
    check("the saved setting is kept across a restart", value === MAX_DICE, `maxDice ${value}`);
  } finally {
    await app.close();
    tmp = null;
  }
} catch (e) {
  check(`the installed app could be driven: ${e.message}`, false);
} finally {
  if (tmp) {
    const { rmSync } = await import("node:fs");
    rmSync(tmp, { recursive: true, force: true });
  }
}
process.exit(checks.length > 0 && checks.every(Boolean) ? 0 : 1);
