// Stories in a real window, with the rule-based planner: starting from a
// built-in scenario, branches whose standings follow the turns played on
// them, the game master's table beside the story, and importing character
// cards and lorebooks (a file that reads and
// a broken one of each) (docs/scenarios.md, docs/stories.md).

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { shot, skillsSource } from "../harness.mjs";
import { fixtures, openWithoutModel } from "../window.mjs";
import { norm, t } from "../i18n.mjs";

const reputationBuilt = existsSync(path.join(skillsSource, "reputation/scripts/update-reputation"));
const gameMasterBuilt = existsSync(path.join(skillsSource, "game-master/scripts/direct-turn"));
/** The Ashford scenario's factions (scenarios/ashford.json). */
const ASHFORD = ["ashford-watch", "ferrymen", "temple-of-the-ford", "the-reeds"];

describe("Stories", { timeout: 240_000 }, () => {
  let app;
  let b;
  let w;

  before(async () => {
    ({ app, b, w } = await openWithoutModel());
  });
  after(async () => {
    await app?.close();
  });

  /**
   * A fixture copied into the app's own folder: a file the page names must
   * have been chosen in the shell's dialog (which WebDriver cannot drive) or
   * lie in the app's folders.
   */
  const imported = (name) => {
    const dir = path.join(app.home, "imports");
    mkdirSync(dir, { recursive: true });
    copyFileSync(path.join(fixtures, name), path.join(dir, name));
    return path.join(dir, name);
  };

  /** Starts a story from a built-in scenario through the New story dialog. */
  const startScenario = async (name) => {
    await w.tab("play");
    await (await w.$("new-story")).click();
    const dialog = await w.$("new-story-dialog");
    await dialog.waitForExist({ timeout: 5_000 });
    const start = await (await w.$(`scenario-${name}`)).$("button.start");
    await start.waitForExist({ timeout: 10_000 });
    await start.click();
    await dialog.waitForExist({ reverse: true, timeout: 10_000 });
  };

  test("a story starts from a built-in scenario with its opening and standings", async () => {
    await startScenario("ashford");
    const opening = await w.$("opening");
    await opening.waitForExist({ timeout: 10_000 });
    assert.ok((await opening.getText()).trim().length > 0, "no opening scene");
    assert.equal(await w.turnCount(), 0);
    await (await w.$("standings")).waitForExist({ timeout: 5_000 });
    assert.equal(await w.standing("temple-of-the-ford"), 15);
    assert.equal(await w.standing("ferrymen"), -10);
    assert.equal(await w.standing("ashford-watch"), 0);
    await shot(b, "scenario-started");
    await w.playTurn("I look around the square");
    assert.equal(await w.turnCount(), 1);
  });

  test("standings follow the branch being played", { skip: !reputationBuilt && "the reputation skill's scripts are not built" }, async () => {
    // The rule-based planner changes standing with the factions the
    // reputation skill's settings name.
    writeFileSync(path.join(app.skills, "reputation/config.json"), JSON.stringify({ factionList: ASHFORD }));
    await b.pause(1_500); // the skill folder is reloaded
    await startScenario("ashford");
    await w.playTurn("I look around the square");
    await w.playTurn("I help the temple-of-the-ford sisters carry the drowned");
    // The first change counts from the scenario's starting standing (15).
    await b.waitUntil(async () => (await w.standing("temple-of-the-ford")) === 25, {
      timeout: 10_000,
      timeoutMsg: "helping the temple did not raise the standing from 15 to 25",
    });
    const main = await (await w.$("current-branch")).getText();
    assert.match(main, /main/);

    // A branch after turn 1: the help never happened there.
    await (await w.$("branch-here-1")).click();
    await b.waitUntil(async () => (await w.turnCount()) === 1, { timeout: 10_000 });
    assert.equal(await w.standing("temple-of-the-ford"), 15);
    const shown = norm(await (await w.$("current-branch")).getText()).trim();
    const prefix = t("play.branch", { name: "" }).trim();
    assert.ok(shown.startsWith(prefix), shown);
    const other = shown.slice(prefix.length).trim();
    assert.notEqual(other, "main");
    await w.playTurn("I insult the temple-of-the-ford sisters");
    await b.waitUntil(async () => (await w.standing("temple-of-the-ford")) === 5, {
      timeout: 10_000,
      timeoutMsg: "insulting the temple on the branch did not lower the standing from 15 to 5",
    });

    // Switching back and forth brings each branch's standing back.
    await w.tab("sessions");
    await (await w.$("branch-switch-main")).click();
    await (await w.$("branch-main")).waitUntil(async function () {
      return (await this.getAttribute("aria-current")) === "true";
    }, { timeout: 5_000 });
    await (await w.$("story-tree")).waitForExist({ timeout: 5_000 });
    assert.ok((await b.$$('[data-testid="tree-turn"]')).length >= 3, "the tree does not show both branches' turns");
    await shot(b, "story-tree");
    await w.tab("play");
    assert.equal(await w.standing("temple-of-the-ford"), 25);
    await w.tab("sessions");
    await (await w.$(`branch-switch-${other}`)).click();
    await (await w.$(`branch-${other}`)).waitUntil(async function () {
      return (await this.getAttribute("aria-current")) === "true";
    }, { timeout: 5_000 });
    await w.tab("play");
    assert.equal(await w.standing("temple-of-the-ford"), 5);
  });

  test("the table beside the story shows the scene, threads and people, and follows the branch", { skip: !gameMasterBuilt && "the game master's script is not built" }, async () => {
    await startScenario("ashford");
    const panel = await w.$("table-panel");
    await panel.waitForExist({ timeout: 10_000 });
    // The scenario's table: Mara Vell is with the player; its threads are open.
    assert.match(await (await w.$("table-present")).getText(), /Mara Vell/);
    assert.match(await (await w.$("thread-1")).getText(), /Who burned the bridge/);
    const wary = t("table.attitudeNotMet", { attitude: t("table.attitudes.wary") });
    assert.ok(norm(await (await w.$("table-people")).getText()).includes(`Captain Oren Hask ${wary}`));
    // The opening scene is after the story's first thread.
    assert.ok(norm(await (await w.$("table-goal")).getText()).startsWith(t("table.after", { goal: "Who burned the bridge" })));
    await w.playTurn("I look around the square");
    // A fact pinned and a thread closed after turn 1 are kept with it.
    await (await w.$("fact-new")).setValue("The ferry crosses at dusk.");
    await (await w.$("fact-pin")).click();
    await b.waitUntil(async () => /ferry crosses at dusk/.test(await (await w.$("table-facts")).getText()), {
      timeout: 5_000,
      timeoutMsg: "the pinned fact is not on the table",
    });
    await (await w.$("thread-toggle-2")).click();
    await b.waitUntil(async () => (await (await w.$("thread-2")).getAttribute("data-closed")) === "true", {
      timeout: 5_000,
      timeoutMsg: "the thread did not close",
    });
    // Renamed after turn 2, then a branch from turn 1: the rename never happened there.
    await w.playTurn("I ask Mara Vell who burned the bridge");
    await (await w.$("thread-rename-1")).click();
    const title = await w.$("thread-title-1");
    await title.setValue("The bridge-burner");
    await (await (await w.$("thread-1")).$(`button=${t("common.save")}`)).click();
    await b.waitUntil(async () => /The bridge-burner/.test(await (await w.$("thread-1")).getText()), {
      timeout: 5_000,
      timeoutMsg: "the thread was not renamed",
    });
    await shot(b, "table-panel");
    await (await w.$("branch-here-1")).click();
    await b.waitUntil(async () => (await w.turnCount()) === 1, { timeout: 10_000 });
    await b.waitUntil(async () => /Who burned the bridge/.test(await (await w.$("thread-1")).getText()), {
      timeout: 5_000,
      timeoutMsg: "the branch from turn 1 kept a rename made after turn 2",
    });
    assert.equal(await (await w.$("thread-2")).getAttribute("data-closed"), "true");
    assert.match(await (await w.$("table-facts")).getText(), /ferry crosses at dusk/);
  });

  test("a character card imports into a new story; a broken card is refused", async () => {
    const outside = await w.invoke("card_import", { path: path.join(fixtures, "card-valid.json"), role: "npc", session: null });
    assert.match(outside.error?.message ?? "", /not chosen in a file dialog/, JSON.stringify(outside));
    const card = await w.invoke("card_import", { path: imported("card-valid.json"), role: "npc", session: null });
    assert.ok(card.ok, `the card was refused: ${JSON.stringify(card.error)}`);
    assert.equal(card.ok.import.card.name, "Old Tom");
    const id = card.ok.session.session.id;

    const broken = await w.invoke("card_import", { path: imported("card-broken.json"), role: "npc", session: null });
    assert.equal(broken.error?.code, "card_invalid", JSON.stringify(broken));
    assert.match(broken.error.message, /JSON/);

    // The window opens the story built around the card.
    await b.refresh();
    await (await w.$("play-input")).waitForExist({ timeout: 20_000 });
    const current = await w.invoke("session_current");
    assert.equal(current.ok.session.id, id);
    const opening = await w.$("opening");
    await opening.waitForExist({ timeout: 10_000 });
    assert.match(await opening.getText(), /Fare's a copper/);
  });

  test("a lorebook joins the story; a broken one is refused", async () => {
    const current = await w.invoke("session_current");
    const id = current.ok.session.id;
    const lore = await w.invoke("lore_import", { path: imported("lore-valid.json"), session: id, scenario: null });
    assert.ok(lore.ok, `the lorebook was refused: ${JSON.stringify(lore.error)}`);
    assert.equal(lore.ok.entries, 2);
    assert.equal(lore.ok.session, id);

    const broken = await w.invoke("lore_import", { path: imported("lore-broken.json"), session: id, scenario: null });
    assert.equal(broken.error?.code, "lore_invalid", JSON.stringify(broken));

    const after = await w.invoke("session_current");
    const entries = after.ok.state.lore ?? [];
    assert.ok(
      entries.some((e) => /ferry crosses at dusk/.test(e.content ?? "")),
      `the lore is not in the story: ${JSON.stringify(entries)}`,
    );
    assert.ok(!entries.some((e) => /no entries at all/.test(JSON.stringify(e))));
    // The story plays on with its lore, and the inspector says which entry
    // the narration was told and why.
    await b.refresh();
    await w.playTurn("I ask about the ferry");
    assert.ok(await w.turnCount() >= 1);
    await w.tab("settings");
    const developer = await b.$('[data-testid="developer-toggle"] input');
    if (!(await developer.isSelected())) await developer.click();
    await w.tab("inspector");
    const told = await b.$('[data-testid="lore-told"]');
    await told.waitForExist({ timeout: 10_000 });
    assert.ok(norm(await told.getText()).includes(`The ferry — ${t("inspector.why.keys")}`));
    await shot(b, "lore-told");
    await w.tab("play");
  });
});
