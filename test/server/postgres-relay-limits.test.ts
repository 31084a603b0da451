/**
 * The PostgreSQL relay's bounds and failures, with two session servers on one embedded
 * PostgreSQL: the relay's table stays bounded through a long run (checkpoints, pruning) while a
 * follower on B is told all of it; a relay whose table was dropped or whose pool was ended never
 * breaks the run on A, and says so (onError); a LISTEN connection that drops is re-established and
 * the follower on B misses nothing.
 */
import { asyncScheduler, filter, firstValueFrom } from "rxjs";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent } from "../../src/index.js";
import { RemoteAgent } from "../../src/remote/index.js";
import type { SessionRelay } from "../../src/server/index.js";
import { postgresRelay } from "../../src/server/postgres/index.js";
import { agentSession } from "../../src/session/index.js";
import { PostgresSessionStore } from "../../src/session/stores/postgres-store.js";
import { fauxProvider, type FauxScriptEntry } from "../../src/testing/index.js";
import { relayDatabase, relayScript } from "./fixtures/relay-database.js";
import { liveSessionServers, normalized, type LiveServer } from "./live-session-server.js";

const database = relayDatabase();
const { newPool } = database;
const start = liveSessionServers();
const auth = { authorization: "Bearer t-ann" };

interface Instance extends LiveServer {
  readonly errors: unknown[];
  readonly relayPool: pg.Pool;
  /** Bytes of entry data this instance published. */
  readonly published: { bytes: number; entries: number; stateBytes: number };
}

/** Instances A and B on one database, each replying with `script()`. */
async function instances(script: () => FauxScriptEntry[], relayCheckpointBytes?: number): Promise<{ a: Instance; b: Instance; schema: string }> {
  const schema = database.freshSchema();
  const store = new PostgresSessionStore({ pool: newPool(), schema });
  const instance = async (owner: string): Promise<Instance> => {
    const errors: unknown[] = [];
    const relayPool = newPool();
    const inner = postgresRelay({ pool: relayPool, schema, onError: (error) => errors.push(error) });
    const published = { bytes: 0, entries: 0, stateBytes: 0 };
    const relay: SessionRelay = {
      publish: (records) => {
        for (const record of records) {
          published.bytes += record.entry.data.length;
          published.entries++;
          if (record.entry.kind === "state") published.stateBytes += record.entry.data.length;
        }
        return inner.publish(records);
      },
      follow: (id, lastId) => inner.follow(id, lastId),
      commands: inner.commands!,
    };
    const live = await start({
      agentFor: (id) => new Agent({ streamFn: fauxProvider(script(), { scheduler: asyncScheduler, delay: 0, chunkSize: 4 }), session: agentSession({ store, id, owner, leaseTtlMs: 120_000 }) }),
      onHosted: (_id, agent) => agent.resume(),
      onError: (error) => errors.push(error),
      relay,
      ...(relayCheckpointBytes ? { relayCheckpointBytes } : {}),
    });
    return { ...live, errors, relayPool, published };
  };
  return { a: await instance("A"), b: await instance("B"), schema };
}

const answers = (count: number) => () => Array.from({ length: count }, (_, i) => ({ content: `Answer ${i}: ${"a sentence that streams in small deltas. ".repeat(6)}` }));

function follower(url: string, id: string): { agent: RemoteAgent; told: AgentEvent[] } {
  const agent = new RemoteAgent({ url: `${url}/${id}`, headers: () => auth, reconnect: { initialDelayMs: 1, maxDelayMs: 20 } });
  const told: AgentEvent[] = [];
  agent.events$.subscribe((event) => told.push(event));
  return { agent, told };
}

const connected = (agent: RemoteAgent) => firstValueFrom(agent.connection$.pipe(filter((c) => c.status === "connected")));
const prompt = (url: string, id: string, text = "go") => fetch(`${url}/${id}/commands`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ type: "prompt", text }) });
const hosted = (agent: RemoteAgent) => firstValueFrom(agent.state$.pipe(filter((state) => state.model.id !== undefined)));

describe("the relay's table is bounded", () => {
  it("after a long run (20 prompts, over a thousand entries): a session keeps at most two states and what lies between, and a follower on B was told every event", async () => {
    const { a, b, schema } = await instances(answers(20), 2048);
    const onA = follower(a.url, "ann-long");
    await connected(onA.agent);
    const onB = follower(b.url, "ann-long");
    await connected(onB.agent);
    for (let i = 0; i < 20; i++) {
      expect((await prompt(a.url, "ann-long", `go ${i}`)).status).toBe(202);
      await a.agents.get("ann-long")!.agent.waitForIdle();
    }
    const server = a.agents.get("ann-long")!;
    await firstValueFrom(onB.agent.state$.pipe(filter((state) => !state.isStreaming && state.messages.length === server.agent.state.messages.length)));
    expect(onB.told.map(normalized)).toEqual(server.events.map(normalized));
    expect(onB.agent.state.messages.map(normalized)).toEqual(server.agent.state.messages.map(normalized));

    const { rows } = await database.admin.query(`SELECT kind, role, length(data) AS bytes FROM "${schema}".relay_entries WHERE session_id = 'ann-long' ORDER BY id`);
    const states = rows.filter((row) => row.kind === "state");
    const eventBytes = rows.filter((row) => row.kind === "event").reduce((sum, row) => sum + Number(row.bytes), 0);
    expect(a.published.entries).toBeGreaterThan(1000);
    expect(a.published.bytes).toBeGreaterThan(200_000);
    expect(states.length).toBeGreaterThanOrEqual(1);
    expect(states.length).toBeLessThanOrEqual(2);
    // Between two checkpoints: checkpointBytes or the state's size, whichever is larger, plus the rest of one streamed answer (~60 deltas).
    const stateBytes = Math.max(...states.map((row) => Number(row.bytes)));
    expect(eventBytes).toBeLessThan(2 * (Math.max(2048, stateBytes) + 16_000));
    // Never more state written than entries.
    expect(a.published.stateBytes).toBeLessThan(a.published.bytes - a.published.stateBytes);
    expect(rows.length).toBeLessThan(a.published.entries / 5);
    expect(a.errors).toEqual([]);
    onA.agent.close();
    onB.agent.close();
  }, 120_000);
});

describe("a relay that fails never breaks the run on A", () => {
  for (const [what, breakRelay] of [
    ["its table dropped", (instance: Instance, schema: string) => database.admin.query(`DROP TABLE "${schema}".relay_entries`)],
    // Not awaited: end() waits for the relay's LISTEN client, which the server holds until it closes.
    ["its pool ended", (instance: Instance) => void instance.relayPool.end().catch(() => undefined)],
  ] as const) {
    it(`${what}: the run ends on A, A's follower is told all of it, and the failure goes to onError`, async () => {
      const { a, schema } = await instances(answers(1));
      const onA = follower(a.url, "ann-fail");
      await connected(onA.agent);
      await hosted(onA.agent);
      // The hosting's first state was published (the table exists).
      await expect.poll(async () => (await database.admin.query(`SELECT count(*)::int AS n FROM "${schema}".relay_entries`)).rows[0].n).toBeGreaterThan(0);
      await breakRelay(a, schema);
      await onA.agent.prompt("go");
      const server = a.agents.get("ann-fail")!;
      await server.agent.waitForIdle();
      expect(server.agent.state.outcome).toBe("completed");
      await firstValueFrom(onA.agent.state$.pipe(filter((state) => !state.isStreaming)));
      expect(onA.told.map(normalized)).toEqual(server.events.map(normalized));
      await expect.poll(() => a.errors.length).toBeGreaterThan(0);
      expect(String(a.errors[0])).toMatch(what === "its table dropped" ? /relay_entries" does not exist/ : /pool/i);
      onA.agent.close();
    }, 60_000);
  }
});

describe("the relay's LISTEN connection", () => {
  it("dropped (its backend terminated) between runs: it is re-established, reported, and the follower on B misses nothing", async () => {
    const { a, b } = await instances(answers(2));
    const onA = follower(a.url, "ann-listen");
    await connected(onA.agent);
    await hosted(onA.agent);
    const onB = follower(b.url, "ann-listen");
    await connected(onB.agent);
    await hosted(onB.agent);
    expect((await prompt(a.url, "ann-listen", "one")).status).toBe(202);
    await a.agents.get("ann-listen")!.agent.waitForIdle();
    const { rows } = await database.admin.query(`SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`);
    expect(rows.length).toBeGreaterThan(0);
    expect((await prompt(a.url, "ann-listen", "two")).status).toBe(202);
    const server = a.agents.get("ann-listen")!;
    await server.agent.waitForIdle();
    await firstValueFrom(onB.agent.state$.pipe(filter((state) => !state.isStreaming && state.messages.length === server.agent.state.messages.length)));
    expect(onB.told.map(normalized)).toEqual(server.events.map(normalized));
    await expect.poll(() => b.errors.length).toBeGreaterThan(0);
    onA.agent.close();
    onB.agent.close();
  }, 60_000);
});

describe("what comes through the database is not trusted", () => {
  it("a command row written by another hand is validated again by the host (400), and runs nothing", async () => {
    const { a, schema } = await instances(answers(1));
    const onA = follower(a.url, "ann-forged");
    await connected(onA.agent);
    await hosted(onA.agent);
    await expect.poll(async () => (await database.admin.query(`SELECT count(*)::int AS n FROM "${schema}".relay_entries`)).rows[0].n).toBeGreaterThan(0);
    const { rows } = await database.admin.query(
      `WITH c AS (INSERT INTO "${schema}".relay_entries_commands (session_id, token, command) VALUES ('ann-forged', 'forged', '{"type":"prompt","text":42}') RETURNING id)
       SELECT id, pg_notify('rxagent_relay', '!command ' || id) FROM c`,
    );
    await expect.poll(async () => (await database.admin.query(`SELECT answer FROM "${schema}".relay_entries_commands WHERE id = $1`, [rows[0].id])).rows[0].answer).toBeTruthy();
    const answer = (await database.admin.query(`SELECT answer FROM "${schema}".relay_entries_commands WHERE id = $1`, [rows[0].id])).rows[0].answer as string;
    expect(JSON.parse(answer)).toEqual({ status: 400, body: { error: "A prompt needs `text`, a string." } });
    expect(a.agents.get("ann-forged")!.events).toEqual([]);
    onA.agent.close();
  }, 60_000);
});
