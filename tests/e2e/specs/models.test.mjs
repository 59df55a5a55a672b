// The model view's library in a real window (docs/models.md): a model from
// the catalog is downloaded from a local HTTP server (no network is reached;
// the server breaks its first answer half-way, so the download must go on
// where it stopped and still match its checksum), chosen, remembered, and
// removed again; a GGUF file from disk is added only when whole.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { openApp, repo, shot } from "../harness.mjs";
import { windowOf } from "../window.mjs";
import { norm, t, tRegex } from "../i18n.mjs";

const source = path.join(repo, "models/SmolLM2-135M-Instruct.Q4_1.gguf");
const NAME = "smollm2-mirror";
const FILE = "SmolLM2-Mirror.Q4_1.gguf";

/** Serves `body` with Range support; the first answer stops half-way. */
function serve(body) {
  const seen = [];
  const server = http.createServer((req, res) => {
    const range = /bytes=(\d+)-/.exec(req.headers.range ?? "");
    const start = range ? Number(range[1]) : 0;
    seen.push(range ? start : null);
    const slice = body.subarray(start);
    res.writeHead(range ? 206 : 200, {
      "Content-Length": slice.length,
      "Accept-Ranges": "bytes",
      ...(range ? { "Content-Range": `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
    });
    if (seen.length === 1) {
      res.write(slice.subarray(0, slice.length >> 1), () => res.destroy());
    } else {
      res.end(slice);
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, seen })));
}

describe("Models", { skip: !existsSync(source) && "the default model is not fetched", timeout: 240_000 }, () => {
  let app;
  let b;
  let w;
  let served;
  let catalogDir;

  before(async () => {
    const body = readFileSync(source);
    served = await serve(body);
    const { port } = served.server.address();
    catalogDir = mkdtempSync(path.join(os.tmpdir(), "narratoria-catalog-"));
    const catalog = path.join(catalogDir, "catalog.json");
    const entry = {
      name: NAME,
      description: "the default model again, from a local mirror",
      kind: "narrator",
      license: "Apache-2.0",
      url: `http://127.0.0.1:${port}/${FILE}`,
      sha256: createHash("sha256").update(body).digest("hex"),
      size: body.length,
      ram: 300_000_000,
      notes: "ChatML",
      unpack: { type: "asIs", file: FILE },
    };
    writeFileSync(catalog, JSON.stringify([entry]));
    app = await openApp({ env: { NARRATORIA_MODEL: "", NARRATORIA_MODEL_CATALOG: catalog } });
    b = app.browser;
    w = windowOf(b);
    await (await w.$("play-input")).waitForExist({ timeout: 20_000 });
  });
  after(async () => {
    await app?.close();
    served?.server.close();
    if (catalogDir) rmSync(catalogDir, { recursive: true, force: true });
  });

  const row = (name) => b.$(`[data-testid="model-row"][data-name="${name}"]`);

  test("a catalog model downloads, resumes after a broken transfer, and is checked", async () => {
    await w.tab("model");
    const offered = await b.$(`[data-testid="catalog-row"][data-name="${NAME}"]`);
    await offered.waitForExist({ timeout: 10_000 }).catch(async (e) => {
      console.error((await (await b.$("body")).getText()).slice(0, 3000));
      throw e;
    });
    assert.match(norm(await offered.getText()), tRegex("catalog.memory", { size: /300[.,]0\s?\S+/ }));
    await (await offered.$('[data-testid="model-download"]')).click();
    // The broken first transfer is an error the player reads; trying again goes on.
    const banner = await w.$("error-banner");
    await banner.waitForExist({ timeout: 60_000 });
    assert.ok(norm(await banner.getText()).includes(t("errors.download_failed")));
    await (await offered.$('[data-testid="model-download"]')).waitForExist({ timeout: 10_000 });
    await (await offered.$('[data-testid="model-download"]')).click();
    await (await row(NAME)).waitForExist({ timeout: 60_000 });
    assert.equal(served.seen.length, 2);
    assert.equal(served.seen[0], null);
    assert.ok(served.seen[1] > 0, `the second request goes on from byte ${served.seen[1]}`);
    const installed = path.join(app.home, "models", FILE);
    assert.ok(existsSync(installed), `${installed} is there`);
    assert.equal(readFileSync(installed).length, readFileSync(source).length);
    await shot(b, "models");
  });

  test("a downloaded model is chosen to write, loaded and remembered; then to plan as well", async () => {
    // "Write with": the model the player brings writes; the default model plans.
    await (await (await row(NAME)).$('[data-testid="model-use"]')).click();
    const writer = await w.$("model-writer");
    await b.waitUntil(async () => (await writer.getText()).includes(FILE), {
      timeout: 60_000,
      timeoutMsg: "the chosen model was not loaded to write",
    });
    await b.waitUntil(async () => (await (await row(NAME)).getAttribute("data-roles")) === "writer", {
      timeout: 10_000,
    });
    assert.equal(await (await row(NAME)).getAttribute("data-in-use"), "true");
    assert.ok(!(await (await w.$("model-planner")).getText()).includes(FILE), "the default model still plans");
    assert.match(await (await (await row(NAME)).$('[data-testid="model-profile"]')).getText(), /writer:/);
    let settings = JSON.parse(readFileSync(path.join(app.home, "settings.json"), "utf8"));
    assert.equal(settings.model, NAME);
    assert.equal(settings.planner, undefined);

    // "Plan with": the same model plans too.
    await (await (await row(NAME)).$('[data-testid="model-use-planner"]')).click();
    const planner = await w.$("model-planner");
    await b.waitUntil(async () => (await planner.getText()).includes(FILE), {
      timeout: 60_000,
      timeoutMsg: "the chosen model was not loaded to plan",
    });
    await b.waitUntil(
      async () => (await (await row(NAME)).getAttribute("data-roles")) === "planner writer",
      { timeout: 10_000 },
    );
    settings = JSON.parse(readFileSync(path.join(app.home, "settings.json"), "utf8"));
    assert.equal(settings.planner, NAME);
  });

  test("removing the model in use goes back to the default model", async () => {
    await (await (await row(NAME)).$('[data-testid="model-remove"]')).click();
    await b.waitUntil(async () => !(await (await row(NAME)).isExisting()), { timeout: 10_000 });
    assert.ok(!existsSync(path.join(app.home, "models", FILE)));
    const planner = await w.$("model-planner");
    const writer = await w.$("model-writer");
    await b.waitUntil(
      async () => !(await planner.getText()).includes(FILE) && !(await writer.getText()).includes(FILE),
      { timeout: 60_000, timeoutMsg: "the removed model is still named as the planner or the writer" },
    );
    const settings = JSON.parse(readFileSync(path.join(app.home, "settings.json"), "utf8"));
    assert.equal(settings.model, undefined);
    assert.equal(settings.planner, undefined);
  });

  test("a GGUF file from disk is added when whole, and writes", async () => {
    // The page names files chosen in the shell's dialog (which WebDriver
    // cannot drive) or in the app's own folders: the files go there.
    const imports = path.join(app.home, "imports");
    mkdirSync(imports, { recursive: true });
    const broken = path.join(imports, "Broken.gguf");
    writeFileSync(broken, readFileSync(source).subarray(0, 4096));
    const refused = await w.invoke("models_add", { path: broken });
    assert.equal(refused.error?.code, "model_unusable", JSON.stringify(refused));
    assert.match(refused.error.message, /truncated|not a GGUF/);
    assert.ok(!existsSync(path.join(app.home, "models", "Broken.gguf")));

    const whole = path.join(imports, "My-Narrator.gguf");
    copyFileSync(source, whole);
    const added = await w.invoke("models_add", { path: whole });
    assert.equal(added.ok?.name, "My-Narrator", JSON.stringify(added));
    assert.ok((await w.invoke("models_use", { name: "My-Narrator" })).ok === null);
    const writer = await w.$("model-writer");
    await b.waitUntil(async () => (await writer.getText()).includes("My-Narrator.gguf"), {
      timeout: 60_000,
      timeoutMsg: "the added model was not loaded to write",
    });
    await b.waitUntil(async () => (await (await row("My-Narrator")).getAttribute("data-in-use")) === "true", {
      timeout: 10_000,
    });
  });
});
