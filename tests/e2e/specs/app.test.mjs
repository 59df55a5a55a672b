// The desktop app in a real window: play, skills, settings, live skill
// folders, sessions and rewind, the inspector and the model view.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { model, openApp, shot, skillsSource } from "../harness.mjs";
import { typeInto } from "../window.mjs";
import { norm, t, tRegex } from "../i18n.mjs";

const diceBuilt = existsSync(path.join(skillsSource, "dice-roller/scripts/roll-dice"));

describe("Narratoria desktop", { timeout: 180_000 }, () => {
  let app;
  let b;
  const tab = async (name) => {
    await (await b.$(`#tab-${name}`)).click();
  };
  /** Sets a field's value as typing would, and checks it took. */
  const retype = async (field, text) => {
    await typeInto(b, field, text);
    assert.equal(await field.getValue(), text);
  };
  const countTurns = async () => (await b.$$('[data-testid="story"] [data-testid="turn"]')).length;
  const play = async (text) => {
    const input = await b.$('[data-testid="play-input"]');
    await input.waitForEnabled({ timeout: 30_000 });
    await input.setValue(text);
    await b.keys("Enter");
  };

  /** The planner the app reports once start-up is over: the model's file, or rule-based. */
  let planner = "";

  before(async () => {
    app = await openApp();
    b = app.browser;
    await (await b.$('[data-testid="play-input"]')).waitForExist({ timeout: 20_000 });
    // Turns played while the model loads use the rule-based planner: wait for the load to end.
    await tab("model");
    const shown = await b.$('[data-testid="model-planner"]');
    await shown.waitForExist({ timeout: 10_000 });
    if (model) {
      await b.waitUntil(
        async () => /gguf/i.test(await shown.getText()) || (await b.$('[data-testid="model-error"]').isExisting()),
        { timeout: 90_000, timeoutMsg: "the model did not finish loading" },
      );
    }
    planner = await shown.getText();
    await tab("play");
  });
  after(async () => {
    await app?.close();
  });

  test("the window is titled Narratoria", async () => {
    assert.equal(await b.getTitle(), "Narratoria");
  });

  test("playing a turn shows narration and the dice", async () => {
    await play("I attack the goblin with my sword");
    const narration = await b.$('[data-turn="1"] [data-testid="narration"]');
    await narration.waitForExist({ timeout: 60_000 });
    assert.ok((await narration.getText()).trim().length > 0, "narration is empty");
    if (diceBuilt) {
      const dice = await b.$('[data-turn="1"] [data-testid="dice-roll"]');
      await dice.waitForExist({ timeout: 5_000 });
      // The planner picks the formula (1d20 for the rule-based one, 1d20+N or another from a model).
      const total = Number(await (await dice.$('[data-testid="dice-total"]')).getText());
      assert.ok(Number.isInteger(total), `a dice total, got ${total}`);
      assert.ok((await dice.$$('[data-testid="die-face"]')).length >= 1, "no die faces");
    }
    await (await b.$('[data-testid="status"]')).waitUntil(async function () {
      return norm(await this.getText()).includes(t("app.status.ready"));
    });
    await shot(b, "play");
  });

  test("the inspector draws the turn's plan", async () => {
    // The Inspector is a tab only with developer tools on (Settings).
    await tab("settings");
    const developer = await b.$('[data-testid="developer-toggle"] input');
    if (!(await developer.isSelected())) await developer.click();
    await tab("inspector");
    const nodes = await b.$$('[data-testid="plan-node"]');
    await b.waitUntil(async () => (await b.$$('[data-testid="plan-node"]')).length > 0, { timeout: 5_000 });
    // An SVG group is not "interactable" to WebDriver: select it from the keyboard.
    if (nodes.length) {
      await b.execute((el) => el.focus(), nodes[0]);
      await b.keys("Enter");
      await (await b.$('[data-testid="tool-detail"]')).waitForExist({ timeout: 5_000 });
    }
    // Why the plan used its skills: with the model (and its router), each
    // skill's scores, the dice chosen for an attack; without, says so.
    if (/gguf/i.test(planner)) {
      const chosen = await b.$('[data-testid="skills-chosen"]');
      await chosen.waitForExist({ timeout: 5_000 });
      const why = norm(await chosen.getText());
      assert.ok(why.includes(t("inspector.routing.meaning")), why);
      assert.match(why, /✓ dice-roller\/roll-dice/);
      assert.match(why, /memory\/[a-z-]+/);
      assert.match(why, tRegex("inspector.routing.usedFrom", { threshold: /[-−]?\d[\d.,]*/ }));
    } else {
      assert.ok(norm(await (await b.$("section.inspector")).getText()).includes(t("inspector.routing.notRouted")));
    }
    await shot(b, "inspector");
  });

  test("the inspector shows the turn's trace and saves it as a run folder", async () => {
    await tab("inspector");
    const id = await b.$('[data-testid="trace-id"]');
    await id.waitForExist({ timeout: 5_000 });
    assert.match(await id.getText(), /^[0-9a-f]{32}$/, "a 32-digit trace id");
    const rows = await b.$$('[data-testid="span-row"]');
    const kinds = [];
    for (const r of rows) kinds.push(await r.getAttribute("data-kind"));
    assert.equal(kinds[0], "turn", "the turn is the root");
    for (const kind of ["attempt", "planning", "execution", "tool", "script"]) {
      assert.ok(kinds.includes(kind), `a ${kind} span among ${kinds.join(", ")}`);
    }
    assert.equal(await rows[0].getAttribute("data-depth"), "0");
    await (await b.$('[data-testid="export-run"]')).click();
    const saved = await b.$('[data-testid="export-run-path"]');
    await saved.waitForExist({ timeout: 20_000 });
    const dir = (await (await saved.$("code")).getText()).trim();
    assert.ok(dir.startsWith(app.home), `${dir} is in the test's own home`);
    for (const file of ["run.json", "events.jsonl", "transcripts.jsonl", "result.json", "summary.md"]) {
      assert.ok(existsSync(path.join(dir, file)), `${file} in ${dir}`);
    }
    const events = readFileSync(path.join(dir, "events.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.ok(events.every((e) => e.traceId === events[0].traceId), "one trace");
    assert.equal(events[0].traceId, await id.getText());
    await shot(b, "inspector-trace");
  });

  test("disabling a skill is shown and remembered", async () => {
    await tab("skills");
    const card = await b.$('[data-skill="dice-roller"]');
    await card.waitForExist({ timeout: 5_000 });
    const toggle = await card.$('[data-testid="toggle-dice-roller"]');
    assert.equal(await toggle.isSelected(), true);
    await (await card.$(".switch")).click();
    await b.waitUntil(async () => !(await toggle.isSelected()), { timeout: 5_000 });
    const state = readFileSync(path.join(app.home, "skills-state.json"), "utf8");
    assert.match(state, /dice-roller/);
    await shot(b, "skills");
    await (await card.$(".switch")).click();
    await b.waitUntil(async () => toggle.isSelected(), { timeout: 5_000 });
  });

  test("an invalid setting is refused inline; a valid one is saved", async () => {
    await tab("settings");
    const form = await b.$('[data-testid="settings-form"][data-skill="dice-roller"]');
    await form.waitForExist({ timeout: 5_000 });
    // The player's settings go to their own folder; the skill's folder is never written.
    const configFile = path.join(app.home, "skill-settings/dice-roller.json");
    const inSkill = path.join(app.skills, "dice-roller/config.json");
    const before = existsSync(configFile) ? readFileSync(configFile, "utf8") : null;
    const field = await form.$("#cfg-dice-roller_maxDice");
    await retype(field, "5000");
    await (await form.$('button[type="submit"]')).click();
    const inline = await form.$(".error-detail");
    await inline.waitForExist({ timeout: 5_000 });
    assert.ok((await inline.getText()).length > 0, "no inline message");
    assert.ok(await (await form.$(".rjsf-field-error #cfg-dice-roller_maxDice")).isExisting(), "the error is not at its field");
    assert.equal(existsSync(configFile) ? readFileSync(configFile, "utf8") : null, before, "config changed");
    await shot(b, "settings-error");

    await retype(field, "50");
    await (await form.$('button[type="submit"]')).click();
    await (await form.$('[data-testid="settings-saved"]')).waitForExist({ timeout: 5_000 });
    assert.equal(JSON.parse(readFileSync(configFile, "utf8")).settings.maxDice, 50);
    assert.equal(existsSync(inSkill), false, "the skill's own folder was written");
    assert.equal(await (await form.$(".error-detail")).isExisting(), false);
    await shot(b, "settings");
  });

  test("a skill folder added on disk appears", async () => {
    await tab("skills");
    const dir = path.join(app.skills, "lantern");
    mkdirSync(path.join(dir, "scripts"), { recursive: true });
    writeFileSync(
      path.join(dir, "scripts/light"),
      '#!/bin/sh\necho \'{"type":"done","ok":true,"output":{"lit":true}}\'\n',
      { mode: 0o755 },
    );
    writeFileSync(
      path.join(dir, "skill.json"),
      JSON.stringify({
        name: "lantern",
        version: "0.1.0",
        description: "Lights dark places.",
        scripts: { light: { description: "Lights the lantern." } },
      }),
    );
    await (await b.$('[data-skill="lantern"]')).waitForExist({ timeout: 15_000 });
  });

  test("rewinding a turn drops the later ones", async () => {
    await tab("play");
    await play("I look around the cave");
    await (await b.$('[data-turn="2"] [data-testid="narration"]')).waitForExist({ timeout: 60_000 });
    assert.equal(await countTurns(), 2);
    await tab("sessions");
    await (await b.$('[data-testid="sessions-rewind-1"]')).waitForExist({ timeout: 5_000 });
    await shot(b, "sessions");
    await (await b.$('[data-testid="sessions-rewind-1"]')).click();
    await b.waitUntil(async () => (await b.$$('[data-testid="session-turns"] li')).length === 1, { timeout: 5_000 });
    await tab("play");
    assert.equal(await countTurns(), 1);
  });

  test("the model view shows the narrator", async () => {
    await tab("model");
    const planner = await b.$('[data-testid="model-planner"]');
    await planner.waitForExist({ timeout: 5_000 });
    const shown = norm(await planner.getText());
    if (model) assert.match(shown, /SmolLM2.*\.gguf/i);
    else assert.ok(shown.includes(t("model.rulesPlanner")), shown);
    await shot(b, "model");
  });
});
