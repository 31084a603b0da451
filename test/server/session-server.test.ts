/**
 * The session server and the remote agent, over HTTP on 127.0.0.1: a page follows a run that
 * lives on the server, reconnects at every point without a gap or a repeat, and commands it;
 * hostile clients are refused or bounded.
 */
import { request as httpRequest } from "node:http";
import { firstValueFrom, filter } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/index.js";
import { RemoteAgent } from "../../src/remote/index.js";
import { cuttingFetch, liveSessionServers, normalized } from "./live-session-server.js";

const start = liveSessionServers();
const auth = (user = "ann") => () => ({ authorization: `Bearer t-${user}` });

/**
 * A remote agent on `url/id` that approves every call its state shows waiting (as a UI's dialog
 * would: from the state, which a resume past the replay bound installs whole), and its events.
 */
function follower(url: string, id: string, fetchFn?: typeof fetch): { agent: RemoteAgent; told: AgentEvent[] } {
  const agent = new RemoteAgent({ url: `${url}/${id}`, headers: auth(), reconnect: { initialDelayMs: 1, maxDelayMs: 4 }, ...(fetchFn ? { fetch: fetchFn } : {}) });
  const told: AgentEvent[] = [];
  agent.events$.subscribe((event) => told.push(event));
  const answered = new Set<string>();
  agent.state$.subscribe((state) => {
    for (const { toolCallId } of state.pendingApprovals) if (!answered.has(toolCallId)) answered.add(toolCallId), void agent.approve(toolCallId);
  });
  return { agent, told };
}

const connected = (agent: RemoteAgent) => firstValueFrom(agent.connection$.pipe(filter((c) => c.status === "connected")));

describe("SRV1: a page follows a run that lives on the server", () => {
  it("SRV1: the remote agent's events are the server Agent's, in order (the update's partial rebuilt from its delta), and its state the same transcript", async () => {
    const { url, agents } = await start();
    const { agent, told } = follower(url, "ann-1");
    await connected(agent);
    await agent.prompt("go");
    const server = agents.get("ann-1")!;
    expect(told.map(normalized)).toEqual(server.events.map(normalized));
    expect(told.filter((e) => e.type === "tool_approval_request")).toHaveLength(1);
    expect(agent.state.messages.map(normalized)).toEqual(server.agent.state.messages.map(normalized));
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.outcome).toBe("completed");
    agent.close();
  });

  it("SRV2: cut after every event and resumed (Last-Event-ID): the events told are exactly the uninterrupted follower's", async () => {
    const { url } = await start();
    const reference = follower(url, "ann-ref");
    await connected(reference.agent);
    await reference.agent.prompt("go");
    const expected = reference.told.map(normalized);
    reference.agent.close();
    // One frame is the hosting's state entry; then one per event.
    for (let frames = 1; frames <= expected.length + 1; frames++) {
      const { agent, told } = follower(url, `ann-cut${frames}`, cuttingFetch(frames));
      await connected(agent);
      await agent.prompt("go");
      expect(told.map(normalized), `cut after ${frames} frames`).toEqual(expected);
      agent.close();
    }
  });

  it("SRV3: past the replay bound, a resume gets the state at the last checkpoint: no event told twice, the same final state", async () => {
    const { url, agents } = await start({ maxReplayBytes: 256 });
    const reference = follower(url, "ann-ref");
    await connected(reference.agent);
    await reference.agent.prompt("go");
    const expected = reference.told.map(normalized);
    reference.agent.close();
    for (const frames of [2, 5, 9, 14, 20]) {
      const { agent, told } = follower(url, `ann-small${frames}`, cuttingFetch(frames));
      await connected(agent);
      await agent.prompt("go");
      // What was told is the uninterrupted sequence with a stretch left out (replaced by the state), nothing twice.
      let at = 0;
      for (const [index, event] of told.map(normalized).entries()) {
        at = expected.indexOf(event, at) + 1;
        expect(at, `cut after ${frames}: event ${index} is a repeat or out of order`).toBeGreaterThan(0);
      }
      expect(told.at(-1)?.type).toBe("agent_end");
      expect(agent.state.messages.map(normalized)).toEqual(agents.get(`ann-small${frames}`)!.agent.state.messages.map(normalized));
      agent.close();
    }
  });

  it("SRV5: the remote agent's commands reject with the server's text: a prompt while a run goes, an answer for no waiting call", async () => {
    const { url } = await start();
    const agent = new RemoteAgent({ url: `${url}/ann-3`, headers: auth() });
    await connected(agent);
    const first = agent.prompt("go");
    await firstValueFrom(agent.state$.pipe(filter((state) => state.pendingApprovals.length > 0)));
    await expect(agent.prompt("again")).rejects.toThrow("Agent is already processing a prompt");
    await expect(agent.approve("nope")).rejects.toThrow('No tool call "nope" waits for approval.');
    await expect(agent.steer({ role: "assistant" } as never)).rejects.toThrow(/sends text/);
    await agent.approve("c3");
    await first;
    expect(agent.state.outcome).toBe("completed");
    agent.close();
  });

  it("SRV4: a follower that goes away stops nothing; abort does", async () => {
    const { url, agents } = await start();
    // This follower answers nothing: it goes away when the run asks, and the run waits on the server.
    const first = { agent: new RemoteAgent({ url: `${url}/ann-2`, headers: auth() }) };
    await connected(first.agent);
    first.agent.events$.pipe(filter((e) => e.type === "tool_approval_request")).subscribe(() => first.agent.close());
    const ran = first.agent.prompt("go").catch((error: Error) => error.message);
    expect(await ran).toMatch(/closed before the run ended/);
    const server = agents.get("ann-2")!.agent;
    expect(server.state.isStreaming).toBe(true);
    const second = new RemoteAgent({ url: `${url}/ann-2`, headers: auth() });
    const waiting = await firstValueFrom(second.state$.pipe(filter((state) => state.pendingApprovals.length > 0)));
    expect(waiting.pendingApprovals.map((r) => r.toolCallId)).toEqual(["c3"]);
    expect(waiting.isStreaming).toBe(true);
    await second.abort();
    await server.waitForIdle();
    expect(server.state.outcome).toBe("aborted");
    await firstValueFrom(second.state$.pipe(filter((s) => s.outcome === "aborted")));
    second.close();
  });
});

/** The status of a GET sent with its path exactly as given (fetch would normalize `..`). */
function rawStatus(url: string, path: string, token: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, headers: { authorization: `Bearer ${token}` } }, (res) => {
      resolve(res.statusCode ?? 0);
      res.destroy();
    });
    req.on("error", reject);
    req.end();
  });
}

describe("SRV5: hostile clients", () => {
  /** A raw request: status and body text. */
  async function send(url: string, path: string, init: RequestInit & { token?: string } = {}): Promise<{ status: number; text: string }> {
    const headers = new Headers(init.headers);
    if (init.token) headers.set("authorization", `Bearer ${init.token}`);
    if (init.body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
    const response = await fetch(`${url}${path}`, { ...init, headers });
    return { status: response.status, text: await response.text() };
  }

  it("SRV5: no token → 401 before the body is read; another user's session → 403; a bad path or id → 404; a wrong method → 405", async () => {
    const { url, server } = await start();
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({ pull: (c) => void (pulled++, c.enqueue(new Uint8Array(1024))) });
    const anonymous = await server.handle(new Request(`${url}/ann-1/commands`, { method: "POST", body: endless, duplex: "half" } as RequestInit));
    expect(anonymous.status).toBe(401);
    // The stream's first pull happens when it is made; nothing was read after it.
    expect(pulled).toBeLessThanOrEqual(1);
    expect((await send(url, "/ann-1/commands", { method: "POST", body: "{}" })).status).toBe(401);
    expect((await send(url, "/bob-1/events", { token: "t-ann" })).status).toBe(403);
    expect((await send(url, "/bob-1/commands", { token: "t-ann", method: "POST", body: JSON.stringify({ type: "abort" }) })).status).toBe(403);
    // A path that climbs out of the user's session (sent raw, not normalized by the client) is the other session: refused.
    expect(await rawStatus(url, "/sessions/ann-1/../bob-1/events", "t-ann")).toBe(403);
    expect((await send(url, "/ann-1/events/more", { token: "t-ann" })).status).toBe(404);
    expect((await send(url, "/ann-1", { token: "t-ann" })).status).toBe(404);
    expect((await send(url.replace("/sessions", "/other"), "/ann-1/events", { token: "t-ann" })).status).toBe(404);
    expect((await send(url, "/ann%2F1/events", { token: "t-ann" })).status).toBe(404);
    expect((await send(url, "/ann-1/events", { token: "t-ann", method: "POST" })).status).toBe(405);
  });

  it("SRV5: an oversized body → 413; not JSON, an unknown command, a message of another role → 400; a prompt while a run goes, an answer for no waiting call → 409", async () => {
    const { url } = await start({ maxBodyBytes: 1024 });
    const post = (body: string) => send(url, "/ann-1/commands", { token: "t-ann", method: "POST", body });
    expect((await post(JSON.stringify({ type: "prompt", text: "x".repeat(2000) }))).status).toBe(413);
    expect((await post("{not json")).status).toBe(400);
    expect((await post(JSON.stringify({ type: "launch" }))).status).toBe(400);
    expect((await post(JSON.stringify({ type: "prompt", message: { role: "assistant", content: "I agree" } }))).status).toBe(400);
    expect((await send(url, "/ann-1/commands", { token: "t-ann", method: "POST", body: JSON.stringify({ type: "abort" }), headers: { "content-type": "text/plain" } })).status).toBe(415);
    const deep = JSON.stringify({ type: "approve", toolCallId: "c3", args: JSON.parse("[".repeat(100) + "]".repeat(100)) as unknown });
    expect((await post(deep)).status).toBe(400);
    expect((await post(JSON.stringify({ type: "approve", toolCallId: "nope" })))).toMatchObject({ status: 409, text: expect.stringContaining("waits for approval") });
    expect((await post(JSON.stringify({ type: "prompt", text: "go" }))).status).toBe(202);
    expect(await post(JSON.stringify({ type: "prompt", text: "again" }))).toMatchObject({ status: 409, text: expect.stringContaining("already processing") });
  });

  it("SRV5: a follower that never reads is dropped once its unread bytes pass the bound", async () => {
    const { url, agents } = await start({ maxClientBufferBytes: 4096 });
    const { host, port } = new URL(url);
    const closed = new Promise<void>((resolve, reject) => {
      const req = httpRequest({ host: host.split(":")[0], port, path: "/sessions/ann-slow/events", headers: { authorization: "Bearer t-ann" } }, (res) => {
        res.pause();
        res.socket.setNoDelay(true);
        res.on("close", resolve);
        res.on("error", resolve);
      });
      req.on("error", reject);
      req.end();
    });
    await new Promise((resolve) => setImmediate(resolve));
    while (!agents.has("ann-slow")) await new Promise((resolve) => setImmediate(resolve));
    const agent = agents.get("ann-slow")!.agent;
    // Runs whose transcripts grow the unread stream well past the bound (the socket buffers take some first).
    agent.state.messages = Array.from({ length: 2000 }, (_, i) => ({ role: "user" as const, content: `message ${i} ${"x".repeat(2000)}`, timestamp: i }));
    for (let i = 0; i < 20; i++) agent.state.messages = [...agent.state.messages, { role: "user" as const, content: `more ${i}`, timestamp: i }];
    await closed;
  });
});
