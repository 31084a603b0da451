/**
 * The relay's pure parts and the hosting side: where a follower starts in what a relay holds
 * (planReplay), and the publisher — every entry of the log in order from its first state,
 * checkpoints every so many bytes, and a relay that fails or stalls never reaching the run.
 */
import { asyncScheduler, EMPTY, VirtualTimeScheduler } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/index.js";
import { checkedAnswer } from "../../src/server/forwarded-commands.js";
import { HostedSession } from "../../src/server/hosted-session.js";
import { RelayPublisher } from "../../src/server/relay-publisher.js";
import { continues, entryPosition, planReplay, toldAfter, type EntryPosition, type HeldRecord, type RelayRecord, type SessionRelay } from "../../src/server/session-relay.js";
import { fauxProvider } from "../../src/testing/index.js";
import { model } from "../helpers/fixtures.js";
import { flushPromises } from "../helpers/controlled-promise.js";

const held = (spec: string): HeldRecord[] =>
  spec.split(" ").map((word, index) => {
    const [, tag, id] = /^([SCRe])(.+)$/.exec(word)!;
    const role = tag === "C" ? "checkpoint" : tag === "R" ? "resync" : "entry";
    return { key: index + 10, role, entry: { id: id!, kind: tag === "e" ? "event" : "state" } };
  });

/** The ids a follower is told first under `plan` (the base, then the told records after). */
function told(records: HeldRecord[], lastId: string | undefined): string[] {
  const plan = planReplay(records, lastId);
  return records.filter((record) => record.key === plan.base || toldAfter(plan, record.key, record)).map((record) => record.entry.id);
}

describe("planReplay: where a follower starts in what the relay holds", () => {
  const records = held("Sx.1 ex.2 ex.3 Cx.3 ex.4 ex.5");

  it("an id held: the told records after it (a checkpoint is not told)", () => {
    expect(told(records, "x.2")).toEqual(["x.3", "x.4", "x.5"]);
    expect(told(records, "x.5")).toEqual([]);
  });

  it("no id, an unknown hosting or a malformed id: the latest state, then what follows it", () => {
    expect(told(records, undefined)).toEqual(["x.3", "x.4", "x.5"]);
    expect(planReplay(records, undefined).base).toBe(13);
    expect(told(records, "y.2")).toEqual(["x.3", "x.4", "x.5"]);
    expect(told(records, "x.")).toEqual(["x.3", "x.4", "x.5"]);
  });

  it("an id past what the relay holds of its hosting (the relay lags): nothing now, and later only the entries past it", () => {
    const plan = planReplay(records, "x.7");
    expect(plan).toEqual({ after: 15, skip: { epoch: "x", n: 7 } });
    expect(toldAfter(plan, 16, { role: "entry", entry: { id: "x.6" } })).toBe(false);
    expect(toldAfter(plan, 17, { role: "entry", entry: { id: "x.7" } })).toBe(false);
    expect(toldAfter(plan, 18, { role: "entry", entry: { id: "x.8" } })).toBe(true);
    expect(toldAfter(plan, 19, { role: "entry", entry: { id: "z.1" } })).toBe(true);
  });

  it("an id of a stretch the relay lost (a resync after it): from the latest state", () => {
    const gap = held("Sx.1 ex.2 Rx.6 ex.7");
    expect(told(gap, "x.4")).toEqual(["x.6", "x.7"]);
    expect(told(gap, "x.2")).toEqual(["x.6", "x.7"]);
  });

  it("a later hosting's first state is told to a follower of the earlier one", () => {
    expect(told(held("Sx.1 ex.2 Sz.1 ez.2"), "x.2")).toEqual(["z.1", "z.2"]);
  });

  it("nothing held (the relay lags behind the host): everything from the first record published, past the follower's id", () => {
    expect(planReplay([], undefined)).toEqual({ after: 0 });
    const plan = planReplay([], "x.3");
    expect(plan).toEqual({ after: 0, skip: { epoch: "x", n: 3 } });
    // A follower that moved from the host before the relay had any of it is not told what it read there.
    expect(toldAfter(plan, 1, { role: "resync", entry: { id: "x.0" } })).toBe(false);
    expect(toldAfter(plan, 4, { role: "entry", entry: { id: "x.3" } })).toBe(false);
    expect(toldAfter(plan, 5, { role: "entry", entry: { id: "x.4" } })).toBe(true);
  });

  it("continues: an entry of the same hosting must be the next number; a resync or another hosting may jump", () => {
    const at = { epoch: "x", n: 4 };
    expect(continues(at, { role: "entry", entry: { id: "x.5" } })).toBe(true);
    expect(continues(at, { role: "entry", entry: { id: "x.6" } })).toBe(false);
    expect(continues(at, { role: "entry", entry: { id: "x.4" } })).toBe(false);
    expect(continues(at, { role: "resync", entry: { id: "x.9" } })).toBe(true);
    expect(continues(at, { role: "entry", entry: { id: "z.7" } })).toBe(true);
    expect(continues(undefined, { role: "entry", entry: { id: "x.9" } })).toBe(true);
  });

  it("entryPosition reads <epoch>.<n> only", () => {
    expect(entryPosition("ab.12")).toEqual({ epoch: "ab", n: 12 });
    expect(entryPosition("a.b.3")).toEqual({ epoch: "a.b", n: 3 });
    for (const bad of [undefined, null, "", ".3", "x.", "x.1e3", "x.-1", "x.1234567890123456"]) expect(entryPosition(bad)).toBeUndefined();
  });
});

/** A relay that records what it is given; `fail` or `stall` it. */
function recordingRelay(): SessionRelay & { records: RelayRecord[]; fail: boolean; stall: boolean; calls: number } {
  const relay = {
    records: [] as RelayRecord[],
    fail: false,
    stall: false,
    calls: 0,
    publish(records: readonly RelayRecord[]) {
      relay.calls++;
      if (relay.stall) return new Promise<void>(() => undefined);
      if (relay.fail) return Promise.reject(new Error("relay down"));
      relay.records.push(...records);
      return Promise.resolve();
    },
    follow: () => {
      throw new Error("not used");
    },
  };
  return relay;
}

const longScript = (turns: number) => Array.from({ length: turns }, (_, i) => ({ content: `answer ${i}: ${"lorem ipsum ".repeat(8)}` }));

async function hostedRun(relay: SessionRelay, options: { checkpointBytes?: number; maxQueueBytes?: number; turns?: number } = {}) {
  const errors: unknown[] = [];
  const agent = new Agent({ streamFn: fauxProvider(longScript(options.turns ?? 3)), initialState: { model } });
  const session = new HostedSession(agent, "ep", 1 << 20, (error) => errors.push(error));
  const publisher = new RelayPublisher({ relay, onError: (error) => errors.push(error), checkpointBytes: options.checkpointBytes ?? 1 << 20, maxQueueBytes: options.maxQueueBytes ?? 1 << 20, retryMs: 1 });
  publisher.attach("s1", session);
  for (let i = 0; i < (options.turns ?? 3); i++) await agent.prompt(`go ${i}`);
  return { agent, session, publisher, errors };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("RelayPublisher: the hosting side", () => {
  it("publishes the log's first state and then every entry, in order, with the log's ids", async () => {
    const relay = recordingRelay();
    const { session } = await hostedRun(relay);
    await settle();
    const entries = relay.records.filter((record) => record.role === "entry");
    expect(entries[0]).toMatchObject({ sessionId: "s1", entry: { id: "ep.1", kind: "state" } });
    expect(entries.map((record) => record.entry.id)).toEqual(Array.from({ length: session.log.lastNumber }, (_, i) => `ep.${i + 1}`));
    expect(relay.records.some((record) => record.role !== "entry")).toBe(false);
    // Batched: fewer publishes than entries.
    expect(relay.calls).toBeLessThan(entries.length);
  });

  it("every checkpointBytes (or the state's size when larger), a checkpoint: the state after an entry where no message streams, with that entry's id", async () => {
    const relay = recordingRelay();
    const { session } = await hostedRun(relay, { checkpointBytes: 500, turns: 4 });
    await settle();
    const checkpoints = relay.records.filter((record) => record.role === "checkpoint");
    expect(checkpoints.length).toBeGreaterThan(1);
    for (const checkpoint of checkpoints) {
      const index = relay.records.indexOf(checkpoint);
      expect(relay.records[index - 1]!.entry.id).toBe(checkpoint.entry.id);
      expect(checkpoint.entry.kind).toBe("state");
      // Where no assistant message streams: a follower starting there is told the next answer from its start.
      expect((JSON.parse(checkpoint.entry.data) as { run: { streamingMessage?: { role: string } } }).run.streamingMessage?.role).not.toBe("assistant");
    }
    // The transcript of a checkpoint is the start of the final one.
    const final = JSON.parse(session.log.checkpointData()) as { messages: unknown[] };
    const last = JSON.parse(checkpoints.at(-1)!.entry.data) as { messages: unknown[] };
    expect(last.messages.length).toBeGreaterThan(0);
    expect(final.messages.slice(0, last.messages.length)).toEqual(last.messages);
  });

  it("a failing relay: the run ends as it would, the failure is reported, and the next publish starts with a resync", async () => {
    const relay = recordingRelay();
    relay.fail = true;
    const { agent, errors, session } = await hostedRun(relay);
    expect(agent.state.outcome).toBe("completed");
    await settle();
    expect(errors.some((error) => (error as Error).message === "relay down")).toBe(true);
    relay.fail = false;
    await expect.poll(() => relay.records.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(relay.records[0]).toMatchObject({ role: "resync", entry: { id: session.log.lastId, kind: "state" } });
    expect(JSON.parse(relay.records[0]!.entry.data)).toEqual(JSON.parse(session.log.checkpointData()));
  });

  it("one publish failing mid-run: what the relay then holds reads without a gap (the entries after the failure wait for the resync that replaces them)", async () => {
    const relay = recordingRelay();
    const publish = relay.publish;
    let calls = 0;
    // The failing publish takes a while: entries queue behind it meanwhile.
    relay.publish = (records) => (++calls === 3 ? new Promise((_, reject) => setTimeout(() => reject(new Error("relay down once")), 30)) : publish(records));
    const errors: unknown[] = [];
    const agent = new Agent({ streamFn: fauxProvider(longScript(2), { scheduler: asyncScheduler, delay: 1 }), initialState: { model } });
    const session = new HostedSession(agent, "ep", 1 << 20, (error) => errors.push(error));
    new RelayPublisher({ relay, onError: (error) => errors.push(error), checkpointBytes: 1 << 20, maxQueueBytes: 1 << 20, retryMs: 1 }).attach("s1", session);
    await agent.prompt("one");
    await agent.prompt("two");
    await expect.poll(() => relay.records.some((record) => record.role === "resync"), { timeout: 10_000 }).toBe(true);
    expect(errors.map(String)).toEqual(["Error: relay down once"]);
    let last: EntryPosition | undefined;
    for (const record of relay.records.filter((one) => one.role !== "checkpoint")) {
      expect(continues(last, record), `${record.role} ${record.entry.id} after ${JSON.stringify(last)}`).toBe(true);
      last = entryPosition(record.entry.id);
    }
    expect(relay.records.filter((record) => record.role === "entry").length).toBeLessThan(session.log.lastNumber);
  });

  it("a relay that never answers: the run ends, and what waits is bounded (the queue dropped, reported)", async () => {
    const relay = recordingRelay();
    relay.stall = true;
    const { agent, errors } = await hostedRun(relay, { maxQueueBytes: 2_000, turns: 5 });
    expect(agent.state.outcome).toBe("completed");
    expect(relay.calls).toBe(1);
    expect(errors.some((error) => /fell behind/.test((error as Error).message))).toBe(true);
  });

  it("a closed session publishes nothing more; close() ends what was queued", async () => {
    const relay = recordingRelay();
    const { session, publisher } = await hostedRun(relay, { turns: 1 });
    session.close();
    const count = relay.records.length;
    await publisher.close();
    expect(relay.records.length).toBeGreaterThanOrEqual(count);
    const last = relay.records.length;
    await settle();
    expect(relay.records.length).toBe(last);
  });
});

describe("checkedAnswer: what an instance sends on of an answer read from the database", () => {
  it("a host's answers pass as they are", () => {
    expect(checkedAnswer({ status: 202, body: { at: "ep.4" } })).toEqual({ status: 202, body: { at: "ep.4" } });
    expect(checkedAnswer({ status: 409, body: { error: "No." } })).toEqual({ status: 409, body: { error: "No." } });
  });

  it("anything else (a row written by another hand) is held to a known status and short strings", () => {
    expect(checkedAnswer({ status: 200, body: { at: "x" } }).status).toBe(502);
    expect(checkedAnswer({ status: 302, body: {} }).status).toBe(502);
    expect(checkedAnswer({ status: 202, body: { at: 7 } }).status).toBe(502);
    expect(checkedAnswer({ status: 409, body: { error: "x".repeat(5000), extra: "<script>" } })).toEqual({ status: 409, body: { error: "x".repeat(1000) } });
    expect(checkedAnswer({ status: 400, body: "text" })).toEqual({ status: 400, body: { error: "Refused by the session's host." } });
    expect(checkedAnswer(null as never).status).toBe(502);
  });
});

describe("RelayPublisher.flushed: a session let go waits for its last entries, within a limit", () => {
  it("SRV8: a publish that hangs holds the release at most the limit; what is still queued is dropped and reported", async () => {
    const errors: unknown[] = [];
    const hung: SessionRelay = { publish: () => new Promise<void>(() => undefined), follow: () => EMPTY };
    const { session } = await hostedRun(recordingRelay());
    const scheduler = new VirtualTimeScheduler();
    const publisher = new RelayPublisher({ relay: hung, onError: (error) => errors.push(error), checkpointBytes: 1 << 20, maxQueueBytes: 1 << 20, retryMs: 1, scheduler });
    publisher.attach("s1", session);
    // The hung publish holds the session's first batch: only the limit, on the scheduler, ends the wait, and says so.
    let flushed = false;
    const done = publisher.flushed("s1", 30).then(() => (flushed = true));
    await flushPromises();
    expect(flushed).toBe(false);
    expect(errors).toEqual([]);
    scheduler.flush();
    await done;
    expect(errors.map(String).join("\n")).toContain("did not take session \"s1\"'s last entries within 30 ms");
  });
});
