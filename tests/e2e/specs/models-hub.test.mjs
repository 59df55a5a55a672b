// Models from Hugging Face and what this machine can run, in a real window
// (docs/models.md): a local HTTP server speaks the parts of the Hub's API
// the app uses (the tree listing with each file's LFS SHA-256, resolve with
// a 302 to a CDN address and the linked headers, Range downloads), and the
// app is pointed at it with HF_ENDPOINT, so nothing reaches the network.
// The Model tab describes this machine and judges the catalog's models; a
// repository link lists its GGUF files and the one picked is downloaded
// into "Your models"; a foreign link is refused with its sentence; the
// first start's offer of this machine's pick is dismissed for good by "Not
// now", and, taken, downloads the model and chooses it to write.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { openApp, repo, shot } from "../harness.mjs";
import { typeInto, windowOf } from "../window.mjs";
import { any, languageName, norm, t, tRegex } from "../i18n.mjs";

/** A size as the window writes it, in MB (or the language's unit). */
const megabytes = (whole) => new RegExp(`${whole}[.,]\\d\\s?\\S+`);
/** A speed as the window writes it ("about 15 tokens/s"). */
const SPEED = any(tRegex("models.speedAbout", { rate: /[\d.,]+/ }), tRegex("models.speedMeasured", { rate: /[\d.,]+/ }));
/** Where a model would run ("on the processor"). */
const WHERE = any(t("models.where.processor"), t("models.where.gpuCard"), tRegex("models.where.gpuShare"));
const VERDICTS = any(t("models.verdict.runsWell"), t("models.verdict.runsSlowly"), t("models.verdict.doesNotFit"));

const source = path.join(repo, "models/SmolLM2-135M-Instruct.Q4_1.gguf");
/** The repository a player pastes: two GGUF files (and a README). */
const REPO = "narratoria-test/Mirror-GGUF";
const SMALL = "Mirror-Small.Q4_1.gguf";
const LARGE = "Mirror-Large.Q4_1.gguf";
/** The repository the test catalog's entry downloads from. */
const OFFER_REPO = "narratoria-test/Offer-GGUF";
const OFFER_FILE = "Mirror-Offer.Q4_1.gguf";
const OFFER = "mirror-narrator";
const OFFER_KEY = "narratoria.modelOfferDismissed";

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/**
 * A stand-in for the Hub on 127.0.0.1 serving `repos` ({"owner/name":
 * {path: bytes}}) at revision main. Records each request as "METHOD path".
 */
function serveHub(repos) {
  const seen = [];
  const blobs = new Map();
  for (const files of Object.values(repos)) {
    for (const body of Object.values(files)) blobs.set(sha256(body), body);
  }
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://hub");
    seen.push(`${req.method} ${url.pathname}`);
    const tree = /^\/api\/models\/([^/]+\/[^/]+)\/tree\/main\/?$/.exec(url.pathname);
    if (tree && repos[tree[1]]) {
      const listing = Object.entries(repos[tree[1]]).map(([file, body]) => ({
        type: "file",
        oid: createHash("sha1").update(body).digest("hex"),
        size: body.length,
        path: file,
        lfs: { oid: sha256(body), size: body.length, pointerSize: 134 },
      }));
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(listing));
      return;
    }
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(url.pathname);
    const body = resolve && repos[resolve[1]]?.[decodeURIComponent(resolve[2])];
    if (body && (req.method === "GET" || req.method === "HEAD")) {
      const sum = sha256(body);
      res.writeHead(302, {
        Location: `/cdn/${sum}`,
        "X-Linked-Etag": `"${sum}"`,
        "X-Linked-Size": String(body.length),
        "X-Repo-Commit": "0".repeat(40),
        "Content-Length": "0",
      });
      res.end();
      return;
    }
    const cdn = /^\/cdn\/([0-9a-f]{64})$/.exec(url.pathname);
    const blob = cdn && blobs.get(cdn[1]);
    if (blob) {
      const range = /bytes=(\d+)-/.exec(req.headers.range ?? "");
      const start = range ? Number(range[1]) : 0;
      const slice = blob.subarray(start);
      res.writeHead(range ? 206 : 200, {
        "Content-Length": slice.length,
        "Accept-Ranges": "bytes",
        "Content-Type": "application/octet-stream",
        ...(range ? { "Content-Range": `bytes ${start}-${blob.length - 1}/${blob.length}` } : {}),
      });
      res.end(req.method === "HEAD" ? undefined : slice);
      return;
    }
    res.writeHead(404, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ error: "Repository not found" }));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, seen })));
}

describe("Models from Hugging Face", { skip: !existsSync(source) && "the default model is not fetched", timeout: 300_000 }, () => {
  let app;
  let b;
  let w;
  let hub;
  let catalogDir;
  let body;

  before(async () => {
    body = readFileSync(source);
    // The larger file is the same model with a megabyte after it: listed, never downloaded.
    const larger = Buffer.concat([body, Buffer.alloc(1 << 20)]);
    hub = await serveHub({
      [REPO]: { [LARGE]: larger, [SMALL]: body, "README.md": Buffer.from("# Mirror\n") },
      [OFFER_REPO]: { [OFFER_FILE]: body },
    });
    const { port } = hub.server.address();
    // A catalog entry from the stand-in Hub that claims more parameters
    // than any built-in one, so that it is this machine's pick whatever the
    // machine (its small file runs well anywhere).
    catalogDir = mkdtempSync(path.join(os.tmpdir(), "narratoria-catalog-"));
    const catalog = path.join(catalogDir, "catalog.json");
    writeFileSync(
      catalog,
      JSON.stringify([
        {
          name: OFFER,
          description: "the default model again, from a stand-in Hub",
          kind: "narrator",
          license: "Apache-2.0",
          hub: { repo: OFFER_REPO, revision: "main", file: OFFER_FILE },
          parameters: 90_000_000_000,
          context: 8192,
          languages: ["en", "fr"],
          size: body.length,
          ram: 300_000_000,
          notes: "ChatML; a test's stand-in",
          unpack: { type: "asIs", file: OFFER_FILE },
        },
      ]),
    );
    app = await openApp({
      env: { NARRATORIA_MODEL: "", NARRATORIA_MODEL_CATALOG: catalog, HF_ENDPOINT: `http://127.0.0.1:${port}` },
    });
    b = app.browser;
    w = windowOf(b);
    await (await w.$("play-input")).waitForExist({ timeout: 20_000 });
    // The window's storage outlives a run: an earlier run's "Not now" is forgotten.
    if (await b.execute((key) => window.localStorage.getItem(key), OFFER_KEY)) {
      await b.execute((key) => window.localStorage.removeItem(key), OFFER_KEY);
      await b.refresh();
      await (await w.$("play-input")).waitForExist({ timeout: 20_000 });
    }
  });
  after(async () => {
    await app?.close();
    hub?.server.close();
    if (catalogDir) rmSync(catalogDir, { recursive: true, force: true });
  });

  const row = (name) => b.$(`[data-testid="model-row"][data-name="${name}"]`);
  const offer = () => w.$("model-offer");

  test("the first start offers this machine's pick, and Not now hides it for good", async () => {
    const banner = await offer();
    await banner.waitForExist({ timeout: 20_000 });
    assert.equal(await banner.getAttribute("data-name"), OFFER);
    const take = await w.$("model-offer-take");
    assert.equal(norm(await take.getText()), t("offer.take", { name: OFFER }));
    const changes = norm(await (await w.$("model-offer-changes")).getText());
    assert.match(changes, any(tRegex("models.offer.richerThan"), t("models.offer.richer")));
    // The sentence of what it needs starts with a capital.
    assert.match(changes, tRegex("models.offer.download", { size: megabytes("9\\d") }, "i"));
    assert.match(changes, tRegex("models.offer.memory", { size: megabytes("300") }));
    assert.match(changes, tRegex("models.offer.speedHere", { speed: SPEED }));
    assert.ok(changes.includes(t("models.offer.meanwhile")), changes);
    await shot(b, "model-offer");

    await (await w.$("model-offer-dismiss")).click();
    await banner.waitForExist({ reverse: true, timeout: 5_000 });
    assert.equal(await b.execute((key) => window.localStorage.getItem(key), OFFER_KEY), "1");

    await b.refresh();
    await (await w.$("play-input")).waitForExist({ timeout: 20_000 });
    // The Model tab's list has come (the offer would have by then).
    await w.tab("model");
    await (await w.$("machine")).waitForExist({ timeout: 20_000 });
    assert.ok(!(await (await offer()).isExisting()), "the offer stays dismissed after a reload");
  });

  test("the Model tab describes this machine and judges each catalog model", async () => {
    await w.tab("model");
    const machine = await w.$("machine");
    await machine.waitForExist({ timeout: 20_000 });
    const line = norm(await machine.getText());
    assert.ok(line.startsWith(`${t("catalog.thisMachine")} `), line);
    assert.match(line, tRegex("models.cores", { count: /\d+/ }));
    assert.match(line, any(tRegex("models.memoryFree"), tRegex("models.memoryTotal"), t("models.memoryUnknown")));
    assert.match(line, any(t("models.noGpu"), tRegex("models.gpu"), tRegex("models.softwareGpu")));

    const pick = await b.$(`[data-testid="catalog-row"][data-name="${OFFER}"]`);
    await pick.waitForExist({ timeout: 10_000 });
    assert.equal(await pick.getAttribute("data-recommended"), "true");
    assert.equal(norm(await (await pick.$('[data-testid="recommended"]')).getText()), t("model.recommended"));
    const facts = norm(await (await pick.$('[data-testid="catalog-facts"]')).getText());
    assert.match(facts, tRegex("model.parameters", { value: /90[.,]0[^·]*?/ }));
    assert.match(facts, tRegex("catalog.memory", { size: megabytes("300") }));
    assert.match(facts, /Apache-2\.0/);
    assert.ok(facts.includes(t("catalog.writes", { languages: [languageName("en"), languageName("fr")].join(", ") })), facts);
    assert.match(await (await pick.$('[data-testid="catalog-notes"]')).getText(), /ChatML/);
    const fit = await pick.$('[data-testid="model-fit"]');
    assert.equal(await fit.getAttribute("data-verdict"), "runsWell");
    assert.match(
      norm(await fit.getText()),
      new RegExp(`^${tRegex("models.verdict.runsWell").source} — ${tRegex("models.fit.speed", { speed: SPEED, where: WHERE }).source}`),
    );

    // Every built-in narrator from the Hub is judged too.
    const judged = await b.$$('[data-testid="catalog-row"] [data-testid="model-fit"]');
    assert.ok(judged.length >= 5, `${judged.length} catalog models judged`);
    for (const f of judged) {
      assert.match(norm(await f.getText()), new RegExp(`^(?:${VERDICTS.source}) — `));
    }
    const others = await b.$$('[data-testid="catalog-row"]:not([data-recommended="true"]) [data-testid="recommended"]');
    assert.equal(others.length, 0, "one model is recommended");
  });

  test("a repository link lists its GGUF files; the one picked is downloaded into Your models", async () => {
    await w.tab("model");
    const field = await w.$("hub-link");
    await field.waitForExist({ timeout: 10_000 });
    await typeInto(b, field, `https://huggingface.co/${REPO}`);
    await (await w.$("hub-list")).click();
    await b.waitUntil(async () => (await b.$$('[data-testid="hub-file"]')).length === 2, {
      timeout: 20_000,
      timeoutMsg: "the repository's two GGUF files were not listed",
    });
    const listed = [];
    for (const f of await b.$$('[data-testid="hub-file"]')) listed.push(await f.getAttribute("data-path"));
    assert.deepEqual(listed, [SMALL, LARGE], "smallest first, the README left out");
    const small = await b.$(`[data-testid="hub-file"][data-path="${SMALL}"]`);
    assert.match(norm(await small.getText()), megabytes("9\\d"));
    assert.match(norm(await (await b.$(`[data-testid="hub-file"][data-path="${LARGE}"]`)).getText()), megabytes("9\\d"));
    await (await small.$("input")).click();
    await (await w.$("hub-download")).click();

    const name = SMALL.replace(/\.gguf$/, "");
    await (await row(name)).waitForExist({ timeout: 90_000 }).catch(async (e) => {
      console.error((await (await b.$("body")).getText()).slice(0, 3000));
      throw e;
    });
    await (await w.$("hub-added")).waitForExist({ timeout: 10_000 });
    const installed = path.join(app.home, "models", SMALL);
    assert.ok(existsSync(installed), `${installed} is there`);
    assert.equal(sha256(readFileSync(installed)), sha256(body));
    assert.ok(!existsSync(path.join(app.home, "models", LARGE)), "only the file picked is downloaded");
    assert.ok(hub.seen.some((s) => s === `GET /${REPO}/resolve/main/${SMALL}`), hub.seen.join("\n"));
    assert.ok(hub.seen.some((s) => s.startsWith("GET /cdn/")), hub.seen.join("\n"));
    // A narrator added from the Hub is judged against this machine too.
    const fit = await (await row(name)).$('[data-testid="model-fit"]');
    assert.match(norm(await fit.getText()), new RegExp(`^(?:${VERDICTS.source}) — `));
    await shot(b, "models-hub");
  });

  test("a link that is not Hugging Face's is refused with its sentence", async () => {
    await w.tab("model");
    const field = await w.$("hub-link");
    await typeInto(b, field, "https://example.com/x.gguf");
    const before = hub.seen.length;
    await (await w.$("hub-list")).click();
    const error = await w.$("hub-error");
    await error.waitForExist({ timeout: 10_000 });
    assert.equal(await error.getAttribute("data-code"), "model_link_invalid");
    assert.ok(norm(await error.getText()).includes(t("errors.model_link_invalid")));
    assert.equal((await b.$$('[data-testid="hub-file"]')).length, 0);
    assert.equal(hub.seen.length, before, "the Hub was not asked");
  });

  test("the offer, taken, downloads this machine's pick and chooses it to write", async () => {
    await b.execute((key) => window.localStorage.removeItem(key), OFFER_KEY);
    await b.refresh();
    await (await w.$("play-input")).waitForExist({ timeout: 20_000 });
    const banner = await offer();
    await banner.waitForExist({ timeout: 20_000 });
    await (await w.$("model-offer-take")).click();
    await (await w.$("model-offer-done")).waitForExist({ timeout: 90_000 }).catch(async (e) => {
      console.error((await (await b.$("body")).getText()).slice(0, 3000));
      throw e;
    });
    assert.ok(existsSync(path.join(app.home, "models", OFFER_FILE)));
    const settings = JSON.parse(readFileSync(path.join(app.home, "settings.json"), "utf8"));
    assert.equal(settings.model, OFFER, "chosen to write");
    assert.equal(settings.planner, undefined, "the bundled model still plans");

    await w.tab("model");
    const writer = await w.$("model-writer");
    await b.waitUntil(async () => (await writer.getText()).includes(OFFER_FILE), {
      timeout: 90_000,
      timeoutMsg: "the offered model was not loaded to write",
    });
    // The status bar says where the writer runs.
    const bar = await w.$("planner");
    await b.waitUntil(async () => (await bar.getAttribute("data-state")) !== "loading", { timeout: 60_000 });
    if ((await bar.getAttribute("data-state")) === "loaded") {
      // "… MODEL writes on X", or "… MODEL writes, both on X".
      const writes = any(
        tRegex("modelStatus.writesWhere", { model: OFFER_FILE, where: /.+/ }),
        new RegExp(`${tRegex("modelStatus.writes", { model: OFFER_FILE }).source}, ${tRegex("modelStatus.both", { where: /.+/ }).source}`),
      );
      assert.match(norm(await bar.getText()), writes);
    }
    assert.ok(!(await (await offer()).isExisting()), "an installed pick is not offered again");
    await shot(b, "model-offer-taken");
  });
});
