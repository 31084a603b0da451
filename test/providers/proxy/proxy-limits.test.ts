/**
 * The proxy's limits against hostile clients, over a real Node server on 127.0.0.1: bodies
 * too large or too slow, unauthenticated uploads, empty tokens, and too many streams per token.
 * Bodies are sent from a fixed 64 KiB buffer, so the test itself never holds a large one.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { NEVER, Observable } from "rxjs";
import { emptyAssistantMessage } from "../../../src/model/assistant-message.js";
import type { AssistantMessageEvent, StreamFn } from "../../../src/model/messages.js";
import { createProxyServer, toNodeListener } from "../../../src/providers/proxy/node.js";
import { drainedOrClosed } from "../../../src/providers/proxy/node-listener.js";
import { createProxyHandler, type ProxyHandlerOptions } from "../../../src/providers/proxy/index.js";
import { model, weatherContext } from "../support/collect.js";
import { createServer } from "node:http";

const TOKEN = "proxy-token-limits-1";
const CHUNK = Buffer.alloc(64 * 1024, 0x20);

let proxy: Server | undefined;
afterEach(async () => {
  if (proxy) {
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy!.close(() => resolve()));
    proxy = undefined;
  }
});

/** A start event, then nothing until the caller goes away. */
const hanging: StreamFn = (m) =>
  new Observable<AssistantMessageEvent>((subscriber) => {
    subscriber.next({ type: "start", partial: emptyAssistantMessage(m, 0) });
  });

async function startProxy(options: Partial<ProxyHandlerOptions> = {}): Promise<{ port: number }> {
  const handler = createProxyHandler({ streamFn: hanging, token: TOKEN, models: [model], ...options } as ProxyHandlerOptions);
  proxy = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => proxy!.listen(0, "127.0.0.1", resolve));
  return { port: (proxy.address() as AddressInfo).port };
}

interface Upload {
  /** The response status, or the error that ended the request first. */
  outcome: Promise<number | string>;
  /** Resolves when the client's socket is closed. */
  closed: Promise<void>;
  request: ClientRequest;
}

/** POSTs `bytes` bytes of body in 64 KiB writes, stopping as soon as the response or an error arrives. */
function upload(port: number, headers: Record<string, string>, bytes: number): Upload {
  const request = httpRequest({ host: "127.0.0.1", port, method: "POST", path: "/api/stream", headers, agent: false });
  let done = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  request.on("socket", (socket: Socket) => socket.on("close", () => resolveClosed()));
  const outcome = new Promise<number | string>((resolve) => {
    request.on("response", (response: IncomingMessage) => {
      done = true;
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", (error: NodeJS.ErrnoException) => {
      done = true;
      resolve(error.code ?? error.message);
    });
  });
  void (async () => {
    request.flushHeaders();
    for (let sent = 0; sent < bytes && !done; sent += CHUNK.length) {
      const piece = bytes - sent < CHUNK.length ? CHUNK.subarray(0, bytes - sent) : CHUNK;
      if (!request.write(piece)) await drainedOrClosed(request);
    }
  })();
  return { outcome, closed, request };
}

describe("(X2) request bodies", () => {
  it("100 MB without a token: refused before the body is read, the server's memory stays flat", { timeout: 30_000 }, async () => {
    const { port } = await startProxy();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const sent = upload(port, { "content-type": "application/json" }, 100 * 1024 * 1024); // chunked: no Content-Length
    const outcome = await sent.outcome;
    await sent.closed;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect([401, "ECONNRESET", "EPIPE"]).toContain(outcome);
    expect(peak - before).toBeLessThan(100 * 1024 * 1024);
  });

  it("a Content-Length over maxBodyBytes is a 413 before any of the body is sent", { timeout: 10_000 }, async () => {
    const { port } = await startProxy({ maxBodyBytes: 64 * 1024 });
    const sent = upload(port, { authorization: `Bearer ${TOKEN}`, "content-length": String(10 * 1024 * 1024) }, 0);
    expect(await sent.outcome).toBe(413);
    await sent.closed;
  });

  it("a chunked body that grows past maxBodyBytes is a 413", { timeout: 10_000 }, async () => {
    const { port } = await startProxy({ maxBodyBytes: 64 * 1024 });
    const sent = upload(port, { authorization: `Bearer ${TOKEN}` }, 1024 * 1024);
    expect([413, "ECONNRESET", "EPIPE"]).toContain(await sent.outcome);
    await sent.closed;
  });

  it("the fetch-style handler answers 413 to a chunked body over the cap and to a too-large Content-Length", async () => {
    const handler = createProxyHandler({ streamFn: hanging, token: TOKEN, models: [model], maxBodyBytes: 1024 });
    const big = new Request("http://proxy.test/", { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ model, context: { messages: [{ role: "user", content: "x".repeat(5000), timestamp: 0 }] } }) });
    const response = await handler(big);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "The request body is larger than 1024 bytes" });
    const declared = new Request("http://proxy.test/", { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-length": "999999" }, body: "{}" });
    expect((await handler(declared)).status).toBe(413);
  });

  it("a slow body is answered 408 at the body deadline and its connection is closed", { timeout: 10_000 }, async () => {
    const { port } = await startProxy({ bodyTimeoutMs: 200 });
    const sent = upload(port, { authorization: `Bearer ${TOKEN}`, "content-length": "1000" }, 10);
    expect(await sent.outcome).toBe(408);
    await sent.closed;
  });

  it("an unauthenticated slow body is answered 401 at once and its connection is closed", { timeout: 10_000 }, async () => {
    const { port } = await startProxy({ bodyTimeoutMs: 60_000 });
    const sent = upload(port, { "content-length": "1000" }, 10);
    expect(await sent.outcome).toBe(401);
    await sent.closed;
  });

  it("createProxyServer closes a connection whose headers never finish", { timeout: 10_000 }, async () => {
    const handler = createProxyHandler({ streamFn: hanging, token: TOKEN, models: [model] });
    proxy = createProxyServer(handler, { headersTimeoutMs: 200, requestTimeoutMs: 300, connectionsCheckingIntervalMs: 50 });
    await new Promise<void>((resolve) => proxy!.listen(0, "127.0.0.1", resolve));
    const socket = connect((proxy!.address() as AddressInfo).port, "127.0.0.1");
    socket.on("error", () => undefined);
    socket.write("POST /api/stream HTTP/1.1\r\nHost: x\r\n"); // and never the blank line
    const answer: Buffer[] = [];
    socket.on("data", (data: Buffer) => answer.push(data));
    await new Promise<void>((resolve) => socket.on("close", () => resolve()));
    expect(Buffer.concat(answer).toString()).toMatch(/^HTTP\/1\.1 408/);
  });
});

describe("(X2) tokens", () => {
  it("an empty or blank configured token cannot be used", () => {
    for (const token of ["", "  ", "\u00a0"]) {
      expect(() => createProxyHandler({ streamFn: () => NEVER, token, models: [model] })).toThrow(/token/);
      expect(() => createProxyHandler({ streamFn: () => NEVER, token, authorize: () => true, models: [model] })).toThrow(/token/);
    }
    expect(() => createProxyHandler({ streamFn: () => NEVER, models: [model] } as ProxyHandlerOptions)).toThrow(/`token` or an `authorize`/);
  });

  it("a bearer that is blank after trimming (Bearer U+00A0) counts as no token", async () => {
    const seen: (string | undefined)[] = [];
    const handler = createProxyHandler({ streamFn: () => NEVER, models: [model], authorize: (token) => (seen.push(token), token !== undefined) });
    for (const header of ["Bearer \u00a0", "Bearer   ", "Bearer"]) {
      const response = await handler(new Request("http://proxy.test/", { method: "POST", headers: { authorization: header }, body: "{}" }));
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: "Missing access token" });
    }
    expect(seen).toEqual([undefined, undefined, undefined]);
  });

  it("the configured token must match exactly", async () => {
    const handler = createProxyHandler({ streamFn: hanging, token: TOKEN, models: [model] });
    const ask = (token: string) => handler(new Request("http://proxy.test/", { method: "POST", headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ model, context: weatherContext() }) }));
    for (const wrong of [TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase(), "\u00a0"]) expect((await ask(wrong)).status).toBe(401);
    const ok = await ask(TOKEN);
    expect(ok.status).toBe(200);
    await ok.body!.cancel();
  });
});

describe("(X2) streams per token", () => {
  it("over maxConcurrentPerToken is a 429 with Retry-After; the slot is freed when a stream ends", async () => {
    const handler = createProxyHandler({ streamFn: hanging, models: [model], authorize: (token) => token === "a" || token === "b", maxConcurrentPerToken: 1 });
    const ask = (token: string) => handler(new Request("http://proxy.test/", { method: "POST", headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ model, context: weatherContext() }) }));
    const first = await ask("a");
    expect(first.status).toBe(200);
    const second = await ask("a");
    expect(second.status).toBe(429);
    expect(second.headers.get("retry-after")).toBe("1");
    expect(await second.json()).toEqual({ error: "Too many concurrent streams for this token (limit 1)" });
    const other = await ask("b");
    expect(other.status).toBe(200);
    await first.body!.cancel();
    const third = await ask("a");
    expect(third.status).toBe(200);
    await third.body!.cancel();
    await other.body!.cancel();
  });

  it("with cookie auth (no bearer), slotKey names whose slot it is: different sessions each get one, the same session a 429", async () => {
    const session = (request: Request) => /(?:^|;\s*)session=([^;]+)/.exec(request.headers.get("cookie") ?? "")?.[1];
    const handler = createProxyHandler({ streamFn: hanging, models: [model], authorize: (_token, request) => session(request) !== undefined, slotKey: (request) => session(request), maxConcurrentPerToken: 1 });
    const ask = (cookie: string) => handler(new Request("http://proxy.test/", { method: "POST", headers: { cookie }, body: JSON.stringify({ model, context: weatherContext() }) }));
    const alice = await ask("session=alice");
    const bob = await ask("theme=dark; session=bob");
    expect([alice.status, bob.status]).toEqual([200, 200]);
    const aliceAgain = await ask("session=alice");
    expect(aliceAgain.status).toBe(429);
    await alice.body!.cancel();
    await bob.body!.cancel();
  });

  it("the slot is freed when the client leaves a Node server mid-stream", { timeout: 10_000 }, async () => {
    const { port } = await startProxy({ maxConcurrentPerToken: 1 });
    const body = JSON.stringify({ model, context: weatherContext() });
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const open = () => fetch(`http://127.0.0.1:${port}/`, { method: "POST", headers, body });
    const first = await open();
    expect(first.status).toBe(200);
    expect((await open()).status).toBe(429);
    await first.body!.cancel();
    // The server sees the close asynchronously: ask until the slot is free, a bounded number of times.
    let status = 429;
    for (let tries = 0; tries < 200 && status === 429; tries++) {
      const next = await open();
      status = next.status;
      await next.body?.cancel();
    }
    expect(status, "the slot was still held after 200 requests: the server did not free it when the client left").toBe(200);
  });

  it("an upload holds its token's slot: a second request is a 429 before its body; the slot is free once the first is answered", { timeout: 15_000 }, async () => {
    let authorized!: () => void;
    const firstAuthorized = new Promise<void>((resolve) => (authorized = resolve));
    const { port } = await startProxy({ token: undefined, authorize: (token) => (authorized(), token === TOKEN), maxConcurrentPerToken: 1, bodyTimeoutMs: 5_000 });
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const first = httpRequest({ host: "127.0.0.1", port, method: "POST", path: "/", headers: { ...headers, "content-length": "1000" }, agent: false });
    const firstStatus = new Promise<number>((resolve, reject) => {
      first.on("response", (response: IncomingMessage) => (response.resume(), resolve(response.statusCode ?? 0)));
      first.on("error", reject);
    });
    first.write("{"); // and the rest later: the body is still trickling in
    await firstAuthorized;

    // Headers only: the answer must not wait for a body.
    const second = upload(port, { ...headers, "content-length": "1000" }, 0);
    expect(await second.outcome).toBe(429);
    await second.closed;

    first.end(" ".repeat(999)); // not JSON: a 400, which frees the slot before it is sent
    expect(await firstStatus).toBe(400);
    const third = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", headers, body: JSON.stringify({ model, context: weatherContext() }) });
    expect(third.status).toBe(200);
    await third.body!.cancel();
  });

  it("every early answer frees the slot: 413, 400, 403 and a throwing hook leave the token free for a stream", async () => {
    let failKey = true;
    const handler = createProxyHandler({
      streamFn: hanging,
      token: TOKEN,
      models: [model],
      maxConcurrentPerToken: 1,
      maxBodyBytes: 4096,
      onError: () => undefined,
      getApiKey: () => {
        if (failKey) throw new Error("vault unavailable");
        return undefined;
      },
    });
    const ask = (body: string, extra: Record<string, string> = {}) => handler(new Request("http://proxy.test/", { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, ...extra }, body }));
    const valid = JSON.stringify({ model, context: weatherContext() });
    expect((await ask(valid, { "content-length": "999999" })).status).toBe(413);
    expect((await ask("x".repeat(5000))).status).toBe(413);
    expect((await ask("not json")).status).toBe(400);
    expect((await ask(JSON.stringify({ model: { id: "other" }, context: { messages: [] } }))).status).toBe(403);
    expect((await ask(valid)).status).toBe(500);
    failKey = false;
    const open = await ask(valid);
    expect(open.status).toBe(200);
    expect((await ask(valid)).status).toBe(429);
    await open.body!.cancel();
    const again = await ask(valid);
    expect(again.status).toBe(200);
    await again.body!.cancel();
  });
});
