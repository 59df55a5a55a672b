// Plays turns in a real window and prints what the player reads: the
// narration of each turn, with the dice when rolled. For reading a story
// as a player would; not a test.
//
//   xvfb-run -a node tests/e2e/play-window.mjs "I look around" "I greet the innkeeper" …
// Environment as for the suite (NARRATORIA_APP, NARRATORIA_E2E_MODEL,
// NARRATORIA_E2E_LANG);
// NARRATORIA_PLAY_SCENARIO starts the story from that built-in scenario
// through the New story dialog ("tithonus"), as a player would.

import { model, openApp } from "./harness.mjs";
import { norm, t } from "./i18n.mjs";

const inputs = process.argv.slice(2);
const app = await openApp();
const b = app.browser;
try {
  await (await b.$('[data-testid="play-input"]')).waitForExist({ timeout: 20_000 });
  const bar = await b.$('[data-testid="planner"]');
  if (model) {
    await b.waitUntil(async () => (await bar.getAttribute("data-state")) !== "loading", { timeout: 120_000 });
  }
  console.log(`[${await bar.getText()}]`);
  const scenario = process.env.NARRATORIA_PLAY_SCENARIO;
  if (scenario) {
    await (await b.$('[data-testid="new-story"]')).click();
    const dialog = await b.$('[data-testid="new-story-dialog"]');
    await dialog.waitForExist({ timeout: 5_000 });
    const start = await (await b.$(`[data-testid="scenario-${scenario}"]`)).$("button.start");
    await start.waitForExist({ timeout: 10_000 });
    await start.click();
    await dialog.waitForExist({ reverse: true, timeout: 10_000 });
    const opening = await b.$('[data-testid="opening"]');
    if (await opening.isExisting()) console.log(`${(await opening.getText()).trim()}\n`);
  }
  for (const [i, text] of inputs.entries()) {
    const input = await b.$('[data-testid="play-input"]');
    await input.waitForEnabled({ timeout: 120_000 });
    const started = Date.now();
    await input.setValue(text);
    await b.keys("Enter");
    const narration = await b.$(`[data-turn="${i + 1}"] [data-testid="narration"]`);
    await narration.waitForExist({ timeout: 120_000 });
    await b.waitUntil(async () => norm(await (await b.$('[data-testid="status"]')).getText()).includes(t("app.status.ready")), {
      timeout: 120_000,
    });
    const dice = await b.$(`[data-turn="${i + 1}"] [data-testid="dice-total"]`);
    const rolled = (await dice.isExisting()) ? ` [rolled ${await dice.getText()}]` : "";
    console.log(`> ${text}${rolled} (${((Date.now() - started) / 1000).toFixed(1)} s)\n${(await narration.getText()).trim()}\n`);
    const warning = await b.$('[data-testid="writer-language-warning"]');
    if (i === 0) await warning.waitForExist({ timeout: 5_000 }).catch(() => {});
    if (i === 0 && (await warning.isExisting())) console.log(`[warning: ${(await warning.getText()).trim()}]\n`);
  }
} finally {
  await app.close();
}
