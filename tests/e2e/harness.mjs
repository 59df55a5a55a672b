// Starts the built app in a real window through tauri-driver (WebKitWebDriver
// underneath) with its own temporary skills folder, user folder and session
// database, in the language $NARRATORIA_E2E_LANG names (i18n.mjs; default
// English), and hands back a WebdriverIO browser.

import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { remote } from "webdriverio";
import { LANGUAGE_KEY, LOCALES, lang } from "./i18n.mjs";

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The skills folder copied for each run (default: the repository's). */
export const skillsSource = process.env.NARRATORIA_E2E_SKILLS || path.join(repo, "skills");
/**
 * The GGUF model the app narrates with: $NARRATORIA_E2E_MODEL (empty: none,
 * the rule-based planner), else the default model when it has been fetched.
 */
export const model = (() => {
  const chosen = process.env.NARRATORIA_E2E_MODEL;
  if (chosen !== undefined) return chosen;
  const def = path.join(repo, "models/SmolLM2-135M-Instruct.Q4_1.gguf");
  return existsSync(def) ? def : "";
})();

function targetDir() {
  return process.env.CARGO_TARGET_DIR || path.join(repo, "target");
}

/**
 * Where screenshots are saved: $NARRATORIA_SCREENSHOTS_DIR (relative to the
 * repository), else e2e-screenshots/ in the build folder. The copies in
 * docs/screenshots/ change only when that folder is asked for.
 */
export const screenshots = process.env.NARRATORIA_SCREENSHOTS_DIR
  ? path.resolve(repo, process.env.NARRATORIA_SCREENSHOTS_DIR)
  : path.join(targetDir(), "e2e-screenshots");

/** The app binary under test: $NARRATORIA_APP, else the release, else the debug build. */
export function appBinary() {
  if (process.env.NARRATORIA_APP) return process.env.NARRATORIA_APP;
  for (const profile of ["release", "debug"]) {
    const p = path.join(targetDir(), profile, "narratoria-desktop");
    if (existsSync(p)) return p;
  }
  throw new Error(`no narratoria-desktop build under ${targetDir()} (set NARRATORIA_APP)`);
}

function waitForPort(port, ms) {
  const until = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const s = net.connect(port, "127.0.0.1");
      s.once("connect", () => {
        s.end();
        resolve();
      });
      s.once("error", () => {
        s.destroy();
        if (Date.now() > until) reject(new Error(`nothing listens on ${port}`));
        else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

/**
 * Opens the app. `copySkills` copies the repository's skills folder into a
 * temporary one the test may change; `home` is a fresh NARRATORIA_HOME;
 * `installed` lets the app use its bundled skills and model; `reuse` is the
 * `tmp` folder of an earlier run closed with `close({ keep: true })`, to
 * open the app again over what that run left.
 */
export async function openApp({ application = appBinary(), copySkills = true, installed = false, env = {}, reuse = null } = {}) {
  const tmp = reuse ?? mkdtempSync(path.join(os.tmpdir(), "narratoria-e2e-"));
  const home = path.join(tmp, "home");
  const skills = path.join(tmp, "skills");
  mkdirSync(home, { recursive: true });
  if (reuse) {
    /* the earlier run's skills and user folder, as it left them */
  } else if (copySkills) {
    cpSync(skillsSource, skills, {
      recursive: true,
      filter: (src) => !/\/(data|config\.json)$/.test(src),
    });
  } else {
    mkdirSync(skills);
  }
  const childEnv = {
    ...process.env,
    NARRATORIA_HOME: home,
    NARRATORIA_SKILLS_DIR: skills,
    NARRATORIA_SESSION_DB: path.join(home, "sessions.db"),
    // The default model (an app built without the narrator ignores it and
    // uses the rule-based planner).
    NARRATORIA_MODEL: model,
    // Another language than English: the app runs in its locale, as a
    // player's does (WebKitGTK takes navigator.language from it).
    ...(lang !== "en" ? { LANG: LOCALES[lang], LC_ALL: LOCALES[lang], LANGUAGE: lang } : {}),
    ...env,
  };
  if (installed) {
    // The installed app uses its bundled skills and model.
    delete childEnv.NARRATORIA_SKILLS_DIR;
    delete childEnv.NARRATORIA_MODEL;
  }
  const port = 4444;
  // Its own process group: closing ends tauri-driver, WebKitWebDriver and the
  // app together, even when the app outlives the WebDriver session.
  const driver = spawn("tauri-driver", ["--port", String(port)], {
    env: childEnv,
    cwd: tmp,
    stdio: ["ignore", "inherit", "inherit"],
    detached: true,
  });
  const signalGroup = (signal) => {
    try {
      process.kill(-driver.pid, signal);
    } catch {
      /* already gone */
    }
  };
  let browser;
  try {
    await waitForPort(port, 15000);
    browser = await remote({
      hostname: "127.0.0.1",
      port,
      logLevel: "error",
      connectionRetryCount: 2,
      capabilities: { "tauri:options": { application } },
    });
  } catch (e) {
    signalGroup("SIGKILL");
    throw e;
  }
  let language;
  try {
    language = await speak(browser);
  } catch (e) {
    try {
      await browser.deleteSession();
    } catch {
      /* the window may already be gone */
    }
    signalGroup("SIGKILL");
    throw e;
  }
  return {
    browser,
    tmp,
    home,
    skills,
    async close({ keep = false } = {}) {
      if (language.changed) {
        // The window's storage outlives the run: the choice found there is put back.
        try {
          await browser.execute(
            (key, value) => (value === null ? window.localStorage.removeItem(key) : window.localStorage.setItem(key, value)),
            LANGUAGE_KEY,
            language.before,
          );
        } catch {
          /* the window may already be gone */
        }
      }
      try {
        await browser.deleteSession();
      } catch {
        /* the window may already be gone */
      }
      signalGroup("SIGTERM");
      await new Promise((r) => setTimeout(r, 500));
      signalGroup("SIGKILL");
      if (!keep) rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** The language the window shows, once its page is up. */
async function shownLanguage(browser) {
  await browser.waitUntil(
    () => browser.execute(() => document.querySelector('[data-testid="status"]') !== null && document.documentElement.lang !== ""),
    { timeout: 30_000, timeoutMsg: "the window's page did not come up" },
  );
  return browser.execute(() => document.documentElement.lang);
}

/**
 * Shows the window in `lang`: the system's language when the app's locale
 * gave it (the locale must be installed: `locale -a`), else the player's
 * choice in the window's storage, as Settings keeps it (put back on close).
 */
async function speak(browser) {
  const shown = await shownLanguage(browser);
  const before = await browser.execute((key) => window.localStorage.getItem(key), LANGUAGE_KEY);
  if (shown === lang) {
    if (lang !== "en") console.error(`e2e: the window speaks ${lang} (${before ? "the choice kept in its storage" : "the system's language"})`);
    return { changed: false, before };
  }
  await browser.execute((key, value) => window.localStorage.setItem(key, value), LANGUAGE_KEY, lang);
  await browser.refresh();
  const now = await shownLanguage(browser);
  if (now !== lang) throw new Error(`the window shows ${now}, not ${lang}, even with ${LANGUAGE_KEY}=${lang}`);
  if (lang !== "en") {
    console.error(`e2e: the window speaks ${lang} (chosen in its storage: the system's language gave ${shown}; is ${LOCALES[lang]} installed?)`);
  }
  return { changed: true, before };
}

/** Saves a screenshot of the window as <name>.png in the screenshots folder (<name>-<lang>.png in another language than English). */
export async function shot(browser, name) {
  mkdirSync(screenshots, { recursive: true });
  await browser.saveScreenshot(path.join(screenshots, lang === "en" ? `${name}.png` : `${name}-${lang}.png`));
}
