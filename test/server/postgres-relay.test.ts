/**
 * Two session servers on one PostgreSQL (each its own 127.0.0.1 port and pg pool, one
 * PostgresSessionStore, one relay table): a page on instance B follows a run that executes on
 * instance A (A holds the session's lease), and a page moving between them mid-run with its last
 * id loses and repeats nothing (SRV2 across instances).
 */
import { asyncScheduler, filter, firstValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent } from "../../src/index.js";
import { RemoteAgent } from "../../src/remote/index.js";
import { postgresRelay } from "../../src/server/postgres/index.js";
import { agentSession } from "../../src/session/index.js";
import { PostgresSessionStore } from "../../src/session/stores/postgres-store.js";
import type { SessionServerOptions } from "../../src/server/index.js";
import { fauxProvider, fauxToolCall, type FauxScriptEntry } from "../../src/testing/index.js";
import { relayDatabase, relayScript } from "./fixtures/relay-database.js";
import { liveSessionServers, normalized, TOOLS, type LiveServer } from "./live-session-server.js";

const database = relayDatabase();
const { newPool } = database;
const start = liveSessionServers();
const auth = { authorization: "Bearer t-ann" };

/** The run, one event every 2 ms. */
const script = relayScript;

interface Instance extends LiveServer {
  readonly errors: unknown[];
}

/** The tool call waits for approval, then the answer. */
const approvalScript = () => [{ content: [fauxToolCall("risky", {}, "c3")] }, { content: "Done the risky thing." }];

/** Instances A and B on one database: the same store and relay table, a pool each. */
async function instances(replies: () => FauxScriptEntry[] = script, options: Partial<Omit<SessionServerOptions, "agentFor">> = {}): Promise<{ a: Instance; b: Instance; schema: string }> {
  const schema = database.freshSchema();
  const store = new PostgresSessionStore({ pool: newPool(), schema });
  const instance = async (owner: string): Promise<Instance> => {
    const errors: unknown[] = [];
    const live = await start({
      agentFor: (id) => new Agent({ streamFn: fauxProvider(replies(), { scheduler: asyncScheduler, delay: 2, chunkSize: 4 }), initialState: { tools: TOOLS }, session: agentSession({ store, id, owner, leaseTtlMs: 120_000 }) }),
      onHosted: (_id, agent) => agent.resume(),
      onError: (error) => errors.push(error),
      relay: postgresRelay({ pool: newPool(), schema }),
      ...options,
    });
    return { ...live, errors };
  };
  return { a: await instance("A"), b: await instance("B"), schema };
}

interface Frame {
  readonly id: string;
  readonly event: string;
  readonly data: string;
}

const isEnd = (frame: Frame) => frame.event === "agent" && (JSON.parse(frame.data) as { type: string }).type === "agent_end";

/** A raw SSE reader of `url/id/events` from `lastId`; reads until `until` holds, then hangs up. */
async function read(url: string, id: string, lastId: string | undefined, until: (frames: Frame[]) => boolean, onFirst?: () => void): Promise<Frame[]> {
  const abort = new AbortController();
  const response = await fetch(`${url}/${id}/events`, { headers: { ...auth, ...(lastId ? { "last-event-id": lastId } : {}) }, signal: abort.signal });
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const frames: Frame[] = [];
  let pending = "";
  try {
    while (!until(frames)) {
      const { done, value } = await reader.read();
      if (done) throw new Error("the stream ended");
      pending += value;
      let end: number;
      while ((end = pending.indexOf("\n\n")) >= 0 && !until(frames)) {
        const text = pending.slice(0, end);
        pending = pending.slice(end + 2);
        if (text.startsWith(":")) continue;
        const field = (name: string) => text.split("\n").find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2) ?? "";
        frames.push({ id: field("id"), event: field("event"), data: field("data") });
        if (frames.length === 1) onFirst?.();
      }
    }
  } finally {
    abort.abort();
    await reader.cancel().catch(() => undefined);
  }
  return frames;
}

const prompt = (url: string, id: string) => fetch(`${url}/${id}/commands`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ type: "prompt", text: "go" }) });

/** Hosts `id` on `server` (its lease taken there) by following it until its first entry. */
const host = (server: Instance, id: string) => read(server.url, id, undefined, (frames) => frames.length > 0);

describe("several instances on one PostgreSQL: a follower on B, the run on A", () => {
  it("SRV1 across instances: a remote agent on B is told every event of A's run, in order, once, and ends with A's Agent's state", async () => {
    const { a, b } = await instances();
    await host(a, "ann-1");
    const onB = new RemoteAgent({ url: `${b.url}/ann-1`, headers: () => auth, reconnect: { initialDelayMs: 1, maxDelayMs: 4 } });
    const told: AgentEvent[] = [];
    onB.events$.subscribe((event) => told.push(event));
    await firstValueFrom(onB.connection$.pipe(filter((c) => c.status === "connected")));
    const ended = firstValueFrom(onB.events$.pipe(filter((event) => event.type === "agent_end")));
    expect((await prompt(a.url, "ann-1")).status).toBe(202);
    await ended;
    const server = a.agents.get("ann-1")!;
    await server.agent.waitForIdle();
    expect(told.map(normalized)).toEqual(server.events.map(normalized));
    expect(onB.state.messages.map(normalized)).toEqual(server.agent.state.messages.map(normalized));
    expect(onB.state.isStreaming).toBe(false);
    expect(onB.state.outcome).toBe("completed");
    // B made an Agent, met the lease, and gave it back: it ran nothing.
    expect(b.agents.get("ann-1")!.events).toEqual([]);
    expect([...a.errors, ...b.errors]).toEqual([]);
    onB.close();
  }, 60_000);

  it("commands sent to B are forwarded to A, validated and applied there: a prompt runs on A (202 with A's id), A's refusals come back with A's words, an approval lets the run end", async () => {
    const { a, b } = await instances(approvalScript);
    await host(a, "ann-2");
    const onB = new RemoteAgent({ url: `${b.url}/ann-2`, headers: () => auth });
    const told: AgentEvent[] = [];
    onB.events$.subscribe((event) => told.push(event));
    await firstValueFrom(onB.connection$.pipe(filter((c) => c.status === "connected")));
    const send = (body: unknown) => fetch(`${b.url}/ann-2/commands`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body) });

    const started = await send({ type: "prompt", text: "go" });
    expect(started.status).toBe(202);
    const server = a.agents.get("ann-2")!;
    const { at } = (await started.json()) as { at: string };
    expect(at.slice(0, at.lastIndexOf("."))).toBe((await host(a, "ann-2"))[0]!.id.split(".")[0]);
    await firstValueFrom(server.agent.state$.pipe(filter((state) => state.pendingApprovals.length === 1)));

    const again = await send({ type: "prompt", text: "again" });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toMatch(/already processing/);
    const wrong = await send({ type: "approve", toolCallId: "nope" });
    expect(wrong.status).toBe(409);
    expect(await wrong.json()).toEqual({ error: 'No tool call "nope" waits for approval.' });
    expect((await send({ type: "launch" })).status).toBe(400);

    expect((await send({ type: "approve", toolCallId: "c3" })).status).toBe(202);
    await firstValueFrom(onB.events$.pipe(filter((event) => event.type === "agent_end")));
    await server.agent.waitForIdle();
    expect(server.agent.state.outcome).toBe("completed");
    expect(told.map(normalized)).toEqual(server.events.map(normalized));
    // B ran nothing of it.
    expect(b.agents.get("ann-2")!.events).toEqual([]);
    expect([...a.errors, ...b.errors]).toEqual([]);
    onB.close();
  }, 60_000);

  it("a command for a session whose host does not answer (A closed, its lease still held) is a 504 after relayCommandTimeoutMs", async () => {
    const { a, b } = await instances(script, { relayCommandTimeoutMs: 300 });
    await host(a, "ann-4");
    a.server.close();
    const response = await prompt(b.url, "ann-4");
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({ error: "The session's host did not answer in time." });
  }, 60_000);

  it("a late follower on B starts from A's state and ends with A's Agent's state", async () => {
    const { a, b } = await instances();
    await host(a, "ann-3");
    expect((await prompt(a.url, "ann-3")).status).toBe(202);
    await a.agents.get("ann-3")!.agent.waitForIdle();
    const onB = new RemoteAgent({ url: `${b.url}/ann-3`, headers: () => auth });
    await firstValueFrom(onB.state$.pipe(filter((state) => state.messages.length === a.agents.get("ann-3")!.agent.state.messages.length)));
    expect(onB.state.messages.map(normalized)).toEqual(a.agents.get("ann-3")!.agent.state.messages.map(normalized));
    onB.close();
  }, 60_000);
});

describe("SRV2 across instances: a follower moving between A and B mid-run with its last id", () => {
  for (const [from, to] of [
    ["b", "a"],
    ["a", "b"],
  ] as const) {
    for (const cut of [1, 4, 15, 40]) {
      it(`from ${from.toUpperCase()} to ${to.toUpperCase()} after ${cut} events: the entries told are exactly those of a follower that stayed on A`, async () => {
        const servers = await instances();
        const id = `ann-${from}${to}${cut}`;
        await host(servers.a, id);
        let opened = 0;
        let onFirst: () => void = () => undefined;
        const bothOpen = new Promise<void>((resolve) => (onFirst = () => void (++opened === 2 && resolve())));
        const reference = read(servers.a.url, id, undefined, (frames) => frames.some(isEnd), () => onFirst());
        const first = read(servers[from].url, id, undefined, (frames) => frames.filter((frame) => frame.event === "agent").length >= cut || frames.some(isEnd), () => onFirst());
        // Both followers are connected before the run starts: each has read its first entry.
        await bothOpen;
        expect((await prompt(servers.a.url, id)).status).toBe(202);
        const before = await first;
        const after = await read(servers[to].url, id, before.at(-1)!.id, (frames) => frames.some(isEnd) || before.some(isEnd));
        const events = (frames: Frame[]) => frames.filter((frame) => frame.event === "agent").map((frame) => `${frame.id} ${frame.data}`);
        const expected = events(await reference);
        expect(expected.length).toBeGreaterThan(40);
        // The move happened mid-run: each side told some of it.
        expect(events(before)).toHaveLength(cut);
        expect(events(after).length).toBeGreaterThan(0);
        expect([...events(before), ...events(after)]).toEqual(expected);
        expect(after.filter((frame) => frame.event === "state")).toEqual([]);
        expect([...servers.a.errors, ...servers.b.errors]).toEqual([]);
      }, 60_000);
    }
  }
});
