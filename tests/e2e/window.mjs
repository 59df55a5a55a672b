// What the specs do to the window again and again: switch tabs, play a
// turn, wait for the app to be ready, read turns, call the shell's commands
// as the page does, and put a script of their own in place of a skill's.

import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openApp } from "./harness.mjs";
import { norm, t } from "./i18n.mjs";

/** The files the specs import (tests/e2e/fixtures). */
export const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures");

/**
 * The app opened without a model, ready to play: the rule-based planner
 * answers at once, the same way each time.
 */
export async function openWithoutModel() {
  const app = await openApp({ env: { NARRATORIA_MODEL: "" } });
  const w = windowOf(app.browser);
  await (await w.$("play-input")).waitForExist({ timeout: 20_000 });
  return { app, b: app.browser, w };
}

/**
 * Sets an input's value as typing would, with the input event React listens
 * to (WebKitWebDriver's key actions do not reach number inputs).
 */
export async function typeInto(b, field, text) {
  await field.click();
  await b.execute(
    (el, value) => {
      const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
      set.call(el, value);
      el.dispatchEvent(new Event("input", { bubbles: true }));
    },
    field,
    text,
  );
}

/** Chooses `value` in a <select> as the player would, with the change event React listens to. */
export async function choose(b, select, value) {
  await b.execute(
    (el, v) => {
      const set = Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, "value").set;
      set.call(el, v);
      el.dispatchEvent(new Event("change", { bubbles: true }));
    },
    select,
    value,
  );
}

/** Helpers bound to one WebdriverIO browser. */
export function windowOf(b) {
  const $ = (testId) => b.$(`[data-testid="${testId}"]`);
  const w = {
    $,
    async tab(name) {
      await (await b.$(`#tab-${name}`)).click();
    },
    /** Types `text` into the Play box and sends it with Enter. */
    async play(text) {
      const input = await $("play-input");
      await input.waitForEnabled({ timeout: 30_000 });
      await input.setValue(text);
      await b.keys("Enter");
    },
    /** Waits until no turn runs (the status says Ready). */
    async ready(timeout = 60_000) {
      const status = await $("status");
      await b.waitUntil(async () => norm(await status.getText()).includes(t("app.status.ready")), {
        timeout,
        timeoutMsg: "the app did not become ready",
      });
    },
    /** Plays a turn and waits for it to be saved. */
    async playTurn(text) {
      await w.play(text);
      await b.waitUntil(
        async () => norm(await (await $("status")).getText()).includes(t("app.status.ready")) && !(await $("stop-turn").isExisting()),
        {
          timeout: 60_000,
          timeoutMsg: `the turn "${text}" did not end`,
        },
      );
    },
    async turnCount() {
      return (await b.$$('[data-testid="story"] [data-testid="turn"]')).length;
    },
    /** The narration of saved turn `n` as the story shows it. */
    async narration(n) {
      const el = await b.$(`[data-turn="${n}"] [data-testid="narration"]`);
      await el.waitForExist({ timeout: 30_000 });
      return (await el.getText()).trim();
    },
    async inputOf(n) {
      return (await (await b.$(`[data-turn="${n}"] .player-input`)).getText()).trim();
    },
    /** The score the Play view shows for a faction, or null. */
    async standing(faction) {
      const el = await $(`standing-${faction}`);
      if (!(await el.isExisting())) return null;
      return Number(await el.getAttribute("data-score"));
    },
    /**
     * Calls one of the shell's commands the way the page does (through
     * Tauri's IPC); resolves to {ok} or {error} (an AppError).
     */
    async invoke(cmd, args = {}) {
      // WebKitWebDriver turns a rejected command into a script error (even
      // when the page's own script catches it) and keeps only a message: the
      // AppError travels in that message as JSON, after a marker.
      const marker = "APP_ERROR:";
      try {
        const ok = await b.execute(
          async (command, payload, mark) => {
            try {
              return await window.__TAURI_INTERNALS__.invoke(command, payload);
            } catch (e) {
              throw new Error(mark + JSON.stringify(e));
            }
          },
          cmd,
          args,
          marker,
        );
        return { ok };
      } catch (e) {
        const text = String(e.message ?? e);
        const at = text.indexOf(marker);
        const end = text.lastIndexOf(' when running "execute');
        try {
          return { error: JSON.parse(text.slice(at + marker.length, end > at ? end : undefined)) };
        } catch {
          return { error: { code: "webdriver", message: text } };
        }
      }
    },
  };
  return w;
}

/**
 * Puts a POSIX sh script with `body` in place of `skill`'s script `name` in
 * the test's own skills folder; it runs from the next turn on.
 */
export function replaceScript(skills, skill, name, body) {
  const file = path.join(skills, skill, "scripts", name);
  mkdirSync(path.dirname(file), { recursive: true });
  rmSync(file, { force: true });
  writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
}

/** A storyteller that waits `seconds` before it narrates. */
export const slowStoryteller = (seconds) => `read -r line
sleep ${seconds}
echo '{"type":"done","ok":true,"output":{"narrative":"The slow tale ends at last."}}'`;

/** A storyteller whose every narration is different (it names the moment it was told). */
export const numberingStoryteller = `read -r line
n=$(date +%s%N)
echo "{\\"type\\":\\"done\\",\\"ok\\":true,\\"output\\":{\\"narrative\\":\\"Telling number $n.\\"}}"`;
