// The story's controls in a real window, with the rule-based planner and
// storytellers of the test's own: stopping a turn (the Stop button and
// Escape), telling the last turn again and flipping between its versions,
// playing it again, telling more, editing a turn's words (played again
// on a new branch) or its narration (docs/stories.md), and correcting a
// turn's mechanics (docs/narrator.md, "The player corrects").

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { shot } from "../harness.mjs";
import { LANGUAGE_KEY, lang, norm, t, tIn, tRegex } from "../i18n.mjs";
import {
  choose,
  numberingStoryteller,
  openWithoutModel,
  replaceScript,
  slowStoryteller,
} from "../window.mjs";

describe("The story's controls", { timeout: 240_000 }, () => {
  let app;
  let b;
  let w;

  before(async () => {
    ({ app, b, w } = await openWithoutModel());
  });
  after(async () => {
    await app?.close();
  });

  test("the window speaks the suite's language", async () => {
    assert.equal(await b.execute(() => document.documentElement.lang), lang);
    assert.equal(norm(await (await b.$("#tab-play")).getText()), t("app.tabs.play"));
    assert.equal(norm(await (await w.$("play-send")).getText()), t("play.send"));
    assert.equal(norm(await (await w.$("play-input")).getAttribute("placeholder")), t("play.inputPlaceholder"));
  });

  test("Settings switches the window's language at once, and remembers it", async () => {
    const stored = () => b.execute((key) => window.localStorage.getItem(key), LANGUAGE_KEY);
    const shown = () => b.execute(() => document.documentElement.lang);
    const kept = await stored();
    const other = lang === "de" ? "es" : "de";
    await w.tab("settings");
    const select = await w.$("language-choice");
    await select.waitForExist({ timeout: 5_000 });
    try {
      await choose(b, select, other);
      await b.waitUntil(async () => (await shown()) === other, { timeout: 5_000, timeoutMsg: `the window did not switch to ${other}` });
      assert.equal(norm(await (await b.$("#tab-play")).getText()), tIn(other, "app.tabs.play"));
      assert.equal(await stored(), other);
      await shot(b, `language-${other}`);
    } finally {
      await choose(b, select, lang);
      await b.waitUntil(async () => (await shown()) === lang, { timeout: 5_000, timeoutMsg: `the window did not switch back to ${lang}` });
      // What the storage held before (the harness's choice, or none).
      await b.execute(
        (key, value) => (value === null ? window.localStorage.removeItem(key) : window.localStorage.setItem(key, value)),
        LANGUAGE_KEY,
        kept,
      );
    }
    assert.equal(norm(await (await b.$("#tab-play")).getText()), t("app.tabs.play"));
    await w.tab("play");
  });

  test("Stop ends a running turn; what was decided is kept and the story goes on", async () => {
    replaceScript(app.skills, "storyteller", "narrate", slowStoryteller(60));
    await w.play("I look around the cave");
    const stop = await w.$("stop-turn");
    await stop.waitForExist({ timeout: 10_000 });
    assert.equal(norm(await stop.getAttribute("aria-label")), t("play.stopLabel"));
    // Sessions and branches wait while the turn runs.
    assert.equal(await (await w.$("undo")).isEnabled(), false);
    // Let the storyteller start, then stop the turn.
    await b.pause(1_500);
    const stopped = Date.now();
    await stop.click();
    await w.ready(30_000);
    assert.ok(Date.now() - stopped < 30_000, "the turn ran on after Stop");
    assert.equal(await w.turnCount(), 1);
    const told = await w.narration(1);
    assert.ok(told.length > 0, "the stopped turn has no narration");
    assert.ok(!told.includes("slow tale"), "the stopped turn kept narration it never finished");
    assert.equal(await (await w.$("error-banner")).isExisting(), false);
    await shot(b, "turn-stopped");
  });

  test("Escape stops a running turn too", async () => {
    await w.play("I walk deeper into the dark");
    await (await w.$("stop-turn")).waitForExist({ timeout: 10_000 });
    await b.pause(1_000);
    await b.keys("Escape");
    await w.ready(30_000);
    assert.equal(await w.turnCount(), 2);
    assert.ok((await w.narration(2)).length > 0);
  });

  test("telling the last turn again adds a version; the arrows flip between them", async () => {
    replaceScript(app.skills, "storyteller", "narrate", numberingStoryteller);
    await w.playTurn("I open the door");
    const n = await w.turnCount();
    const first = await w.narration(n);
    assert.match(first, /Telling number \d+/);

    await (await w.$("regen-narration")).click();
    const count = await w.$("swipe-count");
    await count.waitForExist({ timeout: 30_000 });
    await b.waitUntil(async () => (await count.getText()) === "2/2", { timeout: 30_000 });
    await w.ready();
    const second = await w.narration(n);
    assert.notEqual(second, first);
    assert.equal(await w.turnCount(), n, "telling again does not add a turn");

    await (await w.$("swipe-prev")).click();
    await b.waitUntil(async () => (await (await w.$("swipe-count")).getText()) === "1/2", { timeout: 10_000 });
    assert.equal(await w.narration(n), first);
    await (await w.$("swipe-next")).click();
    await b.waitUntil(async () => (await (await w.$("swipe-count")).getText()) === "2/2", { timeout: 10_000 });
    assert.equal(await w.narration(n), second);
    await shot(b, "turn-versions");
  });

  test("playing the last turn again and telling more each add a version", async () => {
    const n = await w.turnCount();
    await (await w.$("regen-turn")).click();
    await b.waitUntil(async () => /\/3$/.test(await (await w.$("swipe-count")).getText()), { timeout: 30_000 });
    await w.ready();
    const before = await w.narration(n);

    await (await w.$("continue-narration")).click();
    await b.waitUntil(async () => /\/4$/.test(await (await w.$("swipe-count")).getText()), { timeout: 30_000 });
    await w.ready();
    const more = await w.narration(n);
    assert.ok(more.startsWith(before) && more.length > before.length, `"${more}" does not go on from "${before}"`);
    assert.equal(await w.turnCount(), n);
  });

  test("editing a turn's words plays it again on a new branch", async () => {
    await w.playTurn("I step inside");
    const n = await w.turnCount();
    assert.ok(n >= 2);
    await (await w.$(`edit-input-${n - 1}`)).click();
    const field = await w.$("edit-input-text");
    await field.waitForExist({ timeout: 5_000 });
    assert.equal(await b.execute(() => document.activeElement?.getAttribute("data-testid")), "edit-input-text");
    await field.clearValue();
    await field.setValue("I knock on the door instead");
    await (await w.$("edit-input-save")).click();
    await w.ready();
    await b.waitUntil(async () => (await w.turnCount()) === n - 1, { timeout: 30_000, timeoutMsg: "the edited turn is not the last" });
    assert.match(await w.inputOf(n - 1), /I knock on the door instead/);
    // The branch's name is the app's own ("edit of turn N"), whatever the window's language.
    assert.match(await (await w.$("current-branch")).getText(), new RegExp(`edit of turn ${n - 1}`));

    // The old turns stay on their branch.
    await w.tab("sessions");
    const main = await w.$("branch-switch-main");
    await main.waitForExist({ timeout: 5_000 });
    assert.equal(await (await w.$(`branch-edit of turn ${n - 1}`)).getAttribute("aria-current"), "true");
    await shot(b, "branches");
    await main.click();
    await (await w.$("branch-main")).waitUntil(async function () {
      return (await this.getAttribute("aria-current")) === "true";
    }, { timeout: 5_000 });
    await w.tab("play");
    assert.equal(await w.turnCount(), n);
    assert.match(await w.inputOf(n), /I step inside/);
  });

  test("editing a narration rewrites it in place", async () => {
    const n = await w.turnCount();
    await (await w.$(`edit-narration-${n}`)).click();
    const field = await w.$("edit-narration-text");
    await field.waitForExist({ timeout: 5_000 });
    await field.clearValue();
    await field.setValue("The door was never locked.");
    await (await w.$("edit-narration-save")).click();
    await b.waitUntil(async () => (await w.narration(n)) === "The door was never locked.", { timeout: 10_000 });
    assert.equal(await w.turnCount(), n);
  });

  test("undo takes the last turn back and redo brings it back", async () => {
    const n = await w.turnCount();
    await (await w.$("undo")).click();
    await b.waitUntil(async () => (await w.turnCount()) === n - 1, { timeout: 10_000 });
    await (await w.$("redo")).click();
    await b.waitUntil(async () => (await w.turnCount()) === n, { timeout: 10_000 });
    assert.equal(await w.narration(n), "The door was never locked.");
  });

  test("a turn that needed a roll is played again with one, and the story remembers it", async () => {
    await w.playTurn("I haggle for the horse");
    const n = await w.turnCount();
    const turn = await b.$(`[data-turn="${n}"]`);
    assert.equal(await (await turn.$('[data-testid="dice-roll"]')).isExisting(), false, "the haggle rolled already");
    const roll = await w.$("correct-roll");
    assert.equal(norm(await roll.getText()), t("turn.correct.roll"));
    await roll.click();
    await w.ready();
    await b.waitUntil(async () => norm(await (await w.$("correct-roll")).getText()) === t("turn.correct.noRoll"), {
      timeout: 30_000,
      timeoutMsg: "the corrected turn did not roll",
    });
    assert.equal(await w.turnCount(), n, "a correction adds no turn");
    assert.ok(await (await b.$(`[data-turn="${n}"] [data-testid="dice-roll"]`)).isExisting(), "no dice shown on the corrected turn");
    await shot(b, "turn-corrected");

    // The Inspector lists what the story learned; remove forgets it.
    await w.tab("settings");
    const developer = await b.$('[data-testid="developer-toggle"] input');
    if (!(await developer.isSelected())) await developer.click();
    await w.tab("inspector");
    const kept = await w.$("correction");
    await kept.waitForExist({ timeout: 10_000 });
    assert.ok(
      norm(await kept.getText()).startsWith(t("inspector.corrections.needs", { input: "I haggle for the horse", skills: "dice-roller" })),
      await kept.getText(),
    );
    await (await w.$("correction-remove")).click();
    await kept.waitForExist({ reverse: true, timeout: 10_000 });
    assert.match(norm(await (await w.$("corrections")).getText()), tRegex("inspector.corrections.none"));
    await w.tab("play");
  });
});
