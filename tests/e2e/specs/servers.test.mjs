// External servers in a real window (docs/models.md, "External servers"): a
// local stand-in for an OpenAI-compatible server (GET /v1/models, POST
// /v1/chat/completions, not streamed) on 127.0.0.1. In the Model tab the
// player types its address, lists its models, gives it the writer's role
// after a connection check (the round trip is shown, the status says which
// server writes, the setting is kept in the test's own NARRATORIA_HOME); an
// address where nothing listens is refused with server_failed's sentence;
// "Use the models in the app again" gives the role back.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { openApp, shot } from "../harness.mjs";
import { choose, typeInto, windowOf } from "../window.mjs";
import { any, norm, t, tRegex } from "../i18n.mjs";

const MODEL = "stub-model";

/** A stand-in OpenAI-compatible server; records each request as "METHOD path".
 *  `stub.slowMs` (0 at first) holds back each prose answer that long, as a
 *  server loading its model does. */
function serveStub() {
  const seen = [];
  const stub = { slowMs: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://stub");
    seen.push(`${req.method} ${url.pathname}`);
    if (req.method === "GET" && url.pathname === "/v1/models") {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: MODEL, object: "model", owned_by: "stub" }] }));
      return;
    }
    if (req.method === "POST" && url.pathname === "/v1/chat/completions") {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        let asked = {};
        try {
          asked = JSON.parse(body);
        } catch {
          /* answered as prose */
        }
        const plan = asked?.response_format?.json_schema?.name === "plan";
        const content = plan ? JSON.stringify({ narrative: "", tools: [] }) : "The lantern flickers as you step into the hall.";
        const answer = () => {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(
          JSON.stringify({
            id: "chatcmpl-stub",
            object: "chat.completion",
            created: Math.floor(Date.now() / 1000),
            model: MODEL,
            choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
        };
        if (plan || !stub.slowMs) answer();
        else setTimeout(answer, stub.slowMs);
      });
      return;
    }
    res.writeHead(404, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ error: { message: "not found" } }));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(Object.assign(stub, { server, seen }))));
}

/** A port on 127.0.0.1 nothing listens on (taken, then let go). */
function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

describe("External servers", { timeout: 180_000 }, () => {
  let app;
  let b;
  let w;
  let stub;
  let endpoint;

  before(async () => {
    stub = await serveStub();
    endpoint = `http://127.0.0.1:${stub.server.address().port}/v1`;
    app = await openApp();
    b = app.browser;
    w = windowOf(b);
    await (await w.$("play-input")).waitForExist({ timeout: 20_000 });
  });
  after(async () => {
    await app?.close();
    stub?.server.close();
  });

  const settings = () => {
    const file = path.join(app.home, "settings.json");
    return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  };

  test("a server's models are listed, and checked, it writes", async () => {
    await w.tab("model");
    const field = await w.$("server-endpoint");
    await field.waitForExist({ timeout: 20_000 });
    assert.equal(await field.getAttribute("placeholder"), "http://127.0.0.1:11434/v1");
    assert.equal(await (await w.$("server-role-writer")).getAttribute("data-on-server"), "false");
    await typeInto(b, field, endpoint);
    await (await w.$("server-list")).click();
    const select = await w.$("server-model");
    await select.waitForExist({ timeout: 20_000 });
    const options = [];
    for (const o of await select.$$("option")) options.push(await o.getAttribute("value"));
    assert.deepEqual(options, [MODEL]);
    assert.ok(stub.seen.includes("GET /v1/models"), stub.seen.join("\n"));

    await choose(b, await w.$("server-role"), "writer");
    await (await w.$("server-use")).click();
    const done = await w.$("server-done");
    await done.waitForExist({ timeout: 30_000 }).catch(async (e) => {
      console.error((await (await b.$("body")).getText()).slice(0, 3000));
      throw e;
    });
    assert.match(norm(await done.getText()), tRegex("servers.done.writer", { model: MODEL, address: /.*/, ms: /[\d.,\s]+ms/ }));
    const status = await w.$("server-status-writer");
    await b.waitUntil(async () => norm(await status.getText()).includes(t("servers.line", { model: MODEL, endpoint })), {
      timeout: 10_000,
      timeoutMsg: "the status does not name the server that writes",
    });
    assert.equal(await (await w.$("server-role-writer")).getAttribute("data-on-server"), "true");
    assert.equal(await (await w.$("server-role-planner")).getAttribute("data-on-server"), "false");
    // The roles were loaded again, the writer's on the server, without an error.
    await (await w.$("model-progress")).waitForExist({ reverse: true, timeout: 60_000 });
    assert.ok(!(await (await w.$("model-error")).isExisting()), "the roles loaded again");
    assert.deepEqual(settings().writerServer, { endpoint, model: MODEL }, "kept in the test's own settings");
    assert.equal(settings().plannerServer, undefined);
    await shot(b, "servers");
  });

  test("a turn the writer's server keeps waiting says so, then tells the server's prose", async () => {
    await w.tab("play");
    // The roles load again in the background after the server was chosen:
    // play once the status bar says the server writes.
    const planner = await w.$("planner");
    const onServer = tRegex("modelStatus.writesWhere", { model: MODEL, where: tRegex("models.where.server", { host: /\S+/ }) });
    await b.waitUntil(async () => onServer.test(norm(await planner.getText())), {
      timeout: 60_000,
      timeoutMsg: "the status bar never said the server writes",
    });
    stub.slowMs = 4_000;
    try {
      await w.play("I light the lantern and step into the hall");
      const wait = await w.$("server-wait");
      await wait.waitForExist({ timeout: 30_000, timeoutMsg: "no wait was shown while the server held the answer back" });
      assert.equal(await wait.getAttribute("data-role"), "writer");
      const waiting = any(tRegex("play.serverWait.cold", { model: MODEL }), tRegex("play.serverWait.warm", { model: MODEL }));
      assert.match(norm(await wait.getText()), new RegExp(`^(?:${waiting.source})$`));
      await shot(b, "server-wait");
      await b.waitUntil(async () => !(await (await w.$("stop-turn")).isExisting()), {
        timeout: 60_000,
        timeoutMsg: "the turn did not end",
      });
      assert.ok(!(await (await w.$("server-wait")).isExisting()), "the wait is gone once the turn is told");
      const n = await w.turnCount();
      assert.match(await w.narration(n), /lantern flickers/, "the server's prose tells the turn");
    } finally {
      stub.slowMs = 0;
    }
  });

  test("an address where nothing listens is refused with its sentence", async () => {
    await w.tab("model");
    const port = await freePort();
    await typeInto(b, await w.$("server-endpoint"), `http://127.0.0.1:${port}/v1`);
    await (await w.$("server-list")).click();
    const error = await w.$("server-error");
    await error.waitForExist({ timeout: 30_000 });
    assert.equal(await error.getAttribute("data-code"), "server_failed");
    assert.ok(norm(await error.getText()).includes(t("errors.server_failed")));
    assert.ok(!(await (await w.$("server-model")).isExisting()), "no models listed");
    // The writer's server is left as it was.
    assert.deepEqual(settings().writerServer, { endpoint, model: MODEL });
  });

  test("Use the models in the app again gives the role back", async () => {
    await w.tab("model");
    await (await w.$("server-clear-writer")).click();
    const row = await w.$("server-role-writer");
    await b.waitUntil(async () => (await row.getAttribute("data-on-server")) === "false", {
      timeout: 10_000,
      timeoutMsg: "the writer's role was not given back",
    });
    // The roles load again; until they have, the status may still name the server's model.
    await (await w.$("model-progress")).waitForExist({ reverse: true, timeout: 60_000 });
    const status = await w.$("server-status-writer");
    await b.waitUntil(async () => !(await status.getText()).includes(MODEL), {
      timeout: 30_000,
      timeoutMsg: "the writer's status still names the server's model",
    });
    assert.ok(!(await (await w.$("model-error")).isExisting()), "the roles loaded again");
    assert.ok(norm(await (await w.$("server-done")).getText()).includes(t("servers.writerBack")));
    assert.equal(settings().writerServer, undefined, "forgotten in the settings");
    assert.ok(!(await (await w.$("server-clear-writer")).isExisting()));
  });
});
