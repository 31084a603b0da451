/**
 * The session server's relay after review, each case one that failed before: a command row that
 * is not JSON is answered 400 and the rows claimed with it are still applied; an answer that is
 * not JSON is a 502, never an unhandled rejection; a session's lease is given up (`onReleased`)
 * only once its queued entries were published; `close()` ends the streams served from the relay;
 * a relay row that would break the stream's framing is left out and reported; a follower that
 * moves to B before the relay held anything of A's hosting is not told again what it read.
 * Two instances on the embedded PostgreSQL, as in postgres-relay.test.ts (SRV7, SRV9).
 */
import { asyncScheduler, EMPTY, filter, firstValueFrom, tap } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/index.js";
import { createSessionServer, type SessionRelay, type SessionServerOptions } from "../../src/server/index.js";
import { postgresRelay } from "../../src/server/postgres/index.js";
import type { RelayRecord } from "../../src/server/session-relay.js";
import { agentSession } from "../../src/session/index.js";
import { PostgresSessionStore } from "../../src/session/stores/postgres-store.js";
import { fauxProvider } from "../../src/testing/index.js";
import { deferred, flushPromises } from "../helpers/controlled-promise.js";
import { model } from "../helpers/fixtures.js";
import { agentEvents, isEnd, openFrames, type FrameReader } from "./fixtures/relay-frames.js";
import { relayDatabase, relayScript } from "./fixtures/relay-database.js";
import { liveSessionServers, TOOLS, type LiveServer } from "./live-session-server.js";

const database = relayDatabase();
const { newPool } = database;
const start = liveSessionServers();
const auth = { authorization: "Bearer t-ann" };
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);

beforeAll(() => void process.on("unhandledRejection", onUnhandled));
afterAll(() => void process.off("unhandledRejection", onUnhandled));

/** The run, one event every 2 ms. */
const script = relayScript;

interface Instance extends LiveServer {
  readonly errors: unknown[];
}

type Wrap = (relay: SessionRelay) => SessionRelay;

/** Instances A and B on one database (one store, one relay table); `wrap` changes what each gives its server as the relay. */
async function instances(options: Partial<Omit<SessionServerOptions, "agentFor">> = {}, wrap: { a?: Wrap; b?: Wrap } = {}): Promise<{ a: Instance; b: Instance; schema: string }> {
  const schema = database.freshSchema();
  const store = new PostgresSessionStore({ pool: newPool(), schema });
  const instance = async (owner: "A" | "B"): Promise<Instance> => {
    const errors: unknown[] = [];
    const relay = postgresRelay({ pool: newPool(), schema, onError: (error) => errors.push(error) });
    const live = await start({
      agentFor: (id) => new Agent({ streamFn: fauxProvider(script(), { scheduler: asyncScheduler, delay: 2, chunkSize: 4 }), initialState: { tools: TOOLS }, session: agentSession({ store, id, owner, leaseTtlMs: 120_000 }) }),
      onHosted: (_id, agent) => agent.resume(),
      onError: (error) => errors.push(error),
      relay: wrap[owner === "A" ? "a" : "b"]?.(relay) ?? relay,
      ...options,
    });
    return { ...live, errors };
  };
  return { a: await instance("A"), b: await instance("B"), schema };
}

const events = (server: Instance, id: string, lastId?: string) => openFrames(`${server.url}/${id}/events`, auth, lastId);

/** Hosts `id` on A (its lease taken there) by following it until its first entry, and waits until the relay holds a row of it. */
async function hostOnA(a: Instance, schema: string, id: string): Promise<void> {
  const reader = await events(a, id);
  await reader.until((frames) => frames.length > 0);
  await reader.close();
  await expect.poll(async () => (await database.admin.query(`SELECT count(*)::int AS n FROM "${schema}".relay_entries WHERE session_id = $1`, [id])).rows[0].n, { timeout: 10_000 }).toBeGreaterThan(0);
}

/** A follower of `id` on B (served from the relay) that has read its first entry. */
async function followOnB(b: Instance, id: string): Promise<FrameReader> {
  const reader = await events(b, id);
  await reader.until((frames) => frames.length > 0);
  expect(b.agents.get(id)!.events).toEqual([]);
  return reader;
}

describe("what comes through the database is not trusted (SRV9)", () => {
  it("a command row that is not JSON is answered 400 by the host, and a valid command claimed with it is still applied (202, its run seen on A)", async () => {
    const { a, schema } = await instances();
    await hostOnA(a, schema, "ann-json");
    // Both rows in one statement, one commit: the host claims them in one batch, the bad one first.
    const { rows } = await database.admin.query(
      `WITH c AS (INSERT INTO "${schema}".relay_entries_commands (session_id, token, command)
         VALUES ('ann-json', 'bad', '{'), ('ann-json', 'good', '{"type":"prompt","text":"go"}') RETURNING id, token)
       SELECT id, token, pg_notify('rxagent_relay', '!command ' || id) FROM c`,
    );
    const id = (token: string) => (rows as Array<{ id: string; token: string }>).find((row) => row.token === token)!.id;
    expect(Number(id("bad"))).toBeLessThan(Number(id("good")));
    const answerOf = async (token: string) => (await database.admin.query(`SELECT answer FROM "${schema}".relay_entries_commands WHERE id = $1`, [id(token)])).rows[0].answer as string | null;
    await expect.poll(() => answerOf("bad"), { timeout: 10_000 }).toBeTruthy();
    expect(JSON.parse((await answerOf("bad"))!)).toEqual({ status: 400, body: { error: "The forwarded command is not JSON." } });
    await expect.poll(() => answerOf("good"), { timeout: 10_000 }).toBeTruthy();
    const good = JSON.parse((await answerOf("good"))!) as { status: number; body: { at?: unknown } };
    expect(good.status).toBe(202);
    expect(typeof good.body.at).toBe("string");
    const server = a.agents.get("ann-json")!;
    await server.agent.waitForIdle();
    expect(server.agent.state.outcome).toBe("completed");
    expect(server.agent.state.messages.filter((message) => message.role === "user")).toHaveLength(1);
    expect(a.errors).toEqual([]);
  }, 60_000);

  it("an answer row that is not JSON: B answers the client 502, and nothing is left unhandled", async () => {
    const { a, b, schema } = await instances({ relayCommandTimeoutMs: 5_000 });
    await hostOnA(a, schema, "ann-answer");
    // A stops serving commands but keeps the lease: B forwards, and nobody but the test answers.
    a.server.close();
    const before = unhandled.length;
    const sent = fetch(`${b.url}/ann-answer/commands`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ type: "prompt", text: "go" }) });
    const table = `"${schema}".relay_entries_commands`;
    await expect.poll(async () => (await database.admin.query(`SELECT count(*)::int AS n FROM ${table} WHERE session_id = 'ann-answer'`)).rows[0].n, { timeout: 10_000 }).toBe(1);
    await database.admin.query(`WITH u AS (UPDATE ${table} SET claimed = true, answer = '{' WHERE session_id = 'ann-answer' RETURNING token) SELECT pg_notify('rxagent_relay', '!answer:' || token || ' .') FROM u`);
    const response = await sent;
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ error: "The session's host answered what no host answers." });
    await flushPromises();
    expect(unhandled.slice(before)).toEqual([]);
    // B still serves.
    expect((await fetch(`${b.url}/ann-answer/commands`, { method: "POST", headers: auth })).status).toBe(415);
  }, 60_000);

  it("a relay row whose data holds a line break is left out and reported; no field it carries reaches the follower on B, which goes on with the host's entries", async () => {
    const { a, b, schema } = await instances();
    await hostOnA(a, schema, "ann-frame");
    const onB = await followOnB(b, "ann-frame");
    const last = onB.frames.at(-1)!.id;
    const next = `${last.slice(0, last.lastIndexOf("."))}.${Number(last.slice(last.lastIndexOf(".") + 1)) + 1}`;
    // The next entry of A's hosting, as a hand that can write the table would forge it.
    await database.admin.query(
      `WITH r AS (INSERT INTO "${schema}".relay_entries (session_id, entry_id, kind, role, data) VALUES ('ann-frame', $1, 'event', 'entry', $2) RETURNING id)
       SELECT pg_notify('rxagent_relay', 'ann-frame ' || id) FROM r`,
      [next, '{"type":"agent_start"}\nid: injected.1\nevent: state\ndata: {"messages":[]}'],
    );
    await expect.poll(() => b.errors.map(String).join("\n"), { timeout: 10_000 }).toContain("not an entry the host wrote");
    // The host's own next entries still reach B's follower: a run prompted on A, to its end.
    const prompted = await fetch(`${a.url}/ann-frame/commands`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ type: "prompt", text: "go" }) });
    expect(prompted.status).toBe(202);
    await onB.until((frames) => frames.some(isEnd));
    expect(onB.frames.some(isEnd)).toBe(true);
    expect(onB.frames.filter((frame) => frame.raw.includes("injected"))).toEqual([]);
    expect(onB.ended()).toBe("open");
    await onB.close();
  }, 60_000);
});

describe("closing and releasing", () => {
  it("server.close() ends a stream B serves from the relay: the follower's body ends", async () => {
    const { a, b, schema } = await instances();
    await hostOnA(a, schema, "ann-close");
    const onB = await followOnB(b, "ann-close");
    b.server.close();
    await onB.until(() => false);
    expect(onB.ended()).toBe("done");
  }, 20_000);

  for (const how of ["maxSessions (another session hosted)", "server.close()"] as const) {
    it(`a session let go by ${how}: onReleased waits until its queued relay entries were published`, async () => {
      const held = deferred<void>();
      const called = deferred<void>();
      const published: RelayRecord[][] = [];
      const relay: SessionRelay = {
        publish: async (records) => {
          published.push([...records]);
          called.resolve();
          await held.promise;
        },
        follow: () => EMPTY,
      };
      const released: string[] = [];
      const server = createSessionServer({
        agentFor: () => new Agent({ streamFn: fauxProvider([{ content: "hi" }]), initialState: { model } }),
        authenticate: () => "ann",
        authorize: () => true,
        onReleased: (id) => released.push(id),
        onError: () => undefined,
        relay,
        maxSessions: 1,
      });
      const follow = (id: string) => server.handle(new Request(`http://127.0.0.1/sessions/${id}/events`));
      const first = await follow("ann-1");
      expect(first.status).toBe(200);
      // Nobody follows it now: it is idle, and may be let go.
      await first.body!.cancel();
      await called.promise;
      expect(published[0]!.map((record) => record.sessionId)).toEqual(["ann-1"]);
      if (how === "server.close()") server.close();
      else {
        const second = await follow("ann-2");
        expect(second.status).toBe(200);
        await second.body!.cancel();
      }
      await flushPromises();
      await flushPromises();
      expect(released).toEqual([]);
      held.resolve();
      await expect.poll(() => released).toEqual(["ann-1"]);
      server.close();
    });
  }
});

describe("SRV7: a follower that moves from A to B before the relay held anything of A's hosting", () => {
  it("is told on B only what follows its last id: the entries told are exactly those of a follower that stayed on A", async () => {
    const gate = deferred<void>();
    const firstRead = deferred<void>();
    const { a, b } = await instances(
      {},
      {
        // A's publishes wait for the gate: the relay holds nothing of its hosting.
        a: (relay) => ({ ...relay, publish: async (records) => (await gate.promise, relay.publish(records)) }),
        // B says when the moved follower's first read of the relay is done.
        b: (relay) => ({ ...relay, follow: (id, lastId) => relay.follow(id, lastId).pipe(tap(() => lastId && firstRead.resolve())) }),
      },
    );
    const id = "ann-lag";
    const hosting = await events(a, id);
    await hosting.until((frames) => frames.length > 0);
    await hosting.close();
    const reference = await events(a, id);
    await reference.until((frames) => frames.length > 0);
    const moving = await events(a, id);
    await moving.until((frames) => frames.length > 0);
    expect((await fetch(`${a.url}/${id}/commands`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ type: "prompt", text: "go" }) })).status).toBe(202);
    await moving.until((frames) => agentEvents(frames).length >= 4);
    await moving.close();
    const lastId = moving.frames.at(-1)!.id;
    const onB = await events(b, id, lastId);
    await firstRead.promise;
    gate.resolve();
    await Promise.all([reference.until((frames) => frames.some(isEnd)), onB.until((frames) => frames.some(isEnd))]);
    const expected = agentEvents(reference.frames);
    expect(expected.length).toBeGreaterThan(20);
    expect(agentEvents(moving.frames)).toHaveLength(4);
    expect(onB.frames.filter((frame) => frame.event === "state")).toEqual([]);
    expect([...agentEvents(moving.frames), ...agentEvents(onB.frames)]).toEqual(expected);
    expect(b.agents.get(id)!.events).toEqual([]);
    expect([...a.errors, ...b.errors]).toEqual([]);
    await Promise.all([reference.close(), onB.close()]);
  }, 60_000);
});
