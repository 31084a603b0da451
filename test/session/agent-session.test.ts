/**
 * The Agent with a session (SPEC S1, S3, S5, S6): what it journals, what a new Agent on the same
 * session gets back, the order of writes and listeners with a store that answers later, fencing,
 * and a whole resumed run in virtual time with the in-memory store (SPEC L12).
 */
import { filter, map, Observable, of, delay as delayBy, Subscriber, type SchedulerLike } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentStateSnapshot } from "../../src/agent/agent-state.js";
import type { AgentEvent, AgentTool, Message } from "../../src/index.js";
import type { JournalEntry } from "../../src/session/journal-entry.js";
import { replayJournal } from "../../src/session/session-image.js";
import { SessionFencedError, SessionLeaseHeldError } from "../../src/session/session-errors.js";
import type { SessionStore } from "../../src/session/session-store.js";
import { InMemorySessionStore } from "../../src/session/stores/memory-store.js";
import { agentSession } from "../../src/session/agent-session.js";
import { fauxProvider, fauxToolCall, type FauxReply } from "../../src/testing/index.js";
import { label, newScheduler, progressTool, timerTool } from "../helpers/marbles.js";
import { userTexts } from "./scenario.js";
import { storeAppending, storeWith } from "./store-contract.js";

const model = { id: "faux-1", api: "faux", provider: "faux" };
const echo: AgentTool = {
  name: "echo",
  label: "Echo",
  description: "Echoes.",
  parameters: { type: "object", properties: { text: { type: "string" } } },
  execute: (_id, params: { text?: string }) => ({ content: [{ type: "text", text: params.text ?? "" }] }),
};

/** Replies by how many assistant messages the request holds: a resumed process gets the same one. */
function byTurn(replies: FauxReply[], scheduler?: SchedulerLike) {
  const pick = (request: { messages: Message[] }): FauxReply => replies[request.messages.filter((m) => m.role === "assistant").length] ?? { content: "more" };
  return fauxProvider(Array.from({ length: 50 }, () => pick), scheduler ? { scheduler, delay: 1 } : {});
}

function agentOn(store: SessionStore, options: { id?: string; owner?: string; tools?: AgentTool[]; replies?: FauxReply[]; scheduler?: SchedulerLike; takeover?: boolean } = {}): Agent {
  return new Agent({
    initialState: { systemPrompt: "Be brief.", model, tools: options.tools ?? [echo] },
    streamFn: byTurn(options.replies ?? [{ content: [fauxToolCall("echo", { text: "hi" }, "e1")] }, { content: "done" }], options.scheduler),
    scheduler: options.scheduler,
    session: agentSession({ store, id: options.id ?? "s", owner: options.owner ?? "a", ...(options.takeover ? { takeover: true } : {}) }),
  });
}

const types = (entries: readonly JournalEntry[]): string[] => entries.map((e) => e.type);
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe("an Agent keeps its session (SPEC S1, S5)", () => {
  it("S1: a new session starts with the current transcript; a run journals its events; another Agent gets the same state back", async () => {
    const store = new InMemorySessionStore();
    const agent = agentOn(store);
    await agent.resume();
    expect(types(store.load("s")!.entries)).toEqual(["created", "transcript"]);
    await agent.prompt("go");
    expect(types(store.load("s")!.entries)).toEqual(["created", "transcript", "run_started", "message", "message", "tool_started", "tool_executing", "tool_ended", "message", "message", "run_ended"]);
    const again = agentOn(store, { owner: "b", takeover: true });
    await again.resume();
    expect(plain(again.state.messages)).toEqual(plain(agent.state.messages));
    expect(again.state.systemPrompt).toBe("Be brief.");
    expect(again.state.isStreaming).toBe(false);
  });

  it("S1 A7: the state$ snapshot a resume ends with has the journal's transcript, last error and totals", async () => {
    const store = new InMemorySessionStore();
    const agent = agentOn(store, { replies: [{ content: [], stopReason: "error", errorMessage: "the provider broke", usage: { input: 3, output: 4, totalTokens: 7 } }] });
    await agent.resume();
    await agent.prompt("go");
    const again = agentOn(store, { owner: "b", takeover: true });
    let last: AgentStateSnapshot | undefined;
    again.state$.subscribe((snapshot) => (last = snapshot));
    await again.resume();
    expect(last!.errorMessage).toBe("the provider broke");
    expect(last!.usage.totalTokens).toBe(7);
    expect(plain(last!.messages)).toEqual(plain(agent.state.messages));

    // A process that stopped before the failed run was closed: the resume closes it, with its error.
    const copy = cutJournal(store, (e) => e.type === "message" && (e.message as Message).role === "assistant");
    const third = new Agent({ initialState: { systemPrompt: "Be brief.", model, tools: [echo] }, streamFn: byTurn([]), session: agentSession({ store: copy, id: "s", owner: "c" }) });
    let closed: AgentStateSnapshot | undefined;
    third.state$.subscribe((snapshot) => (closed = snapshot));
    await third.resume();
    expect(third.state.errorMessage).toBe("the provider broke");
    expect(closed!.errorMessage).toBe("the provider broke");
  });

  it("S1: queues, a replaced transcript and the last error come back as they were", async () => {
    const store = new InMemorySessionStore();
    const agent = agentOn(store, { replies: [{ content: [], stopReason: "error", errorMessage: "the provider broke" }] });
    await agent.resume();
    await agent.prompt("go");
    expect(agent.state.errorMessage).toBe("the provider broke");
    agent.steer("steer me");
    agent.followUp("then this");
    agent.followUp("and this");
    agent.clearSteeringQueue();
    agent.steer("kept");
    agent.setSystemPrompt("Be verbose.");
    const again = agentOn(store, { owner: "b", takeover: true });
    await again.resume();
    expect(again.state.errorMessage).toBe("the provider broke");
    expect(again.state.systemPrompt).toBe("Be verbose.");
    expect(plain(again.state.messages)).toEqual(plain(agent.state.messages));
    expect(userTexts(again.peekQueuedMessages())).toEqual(["kept"]);
    again.clearSteeringQueue();
    expect(userTexts(again.peekQueuedMessages())).toEqual(["then this"]);
    again.followUpMode = "all";
    expect(userTexts(again.peekQueuedMessages())).toEqual(["then this", "and this"]);
    // reset() forgets the error, in the journal too.
    again.reset();
    expect(again.state.errorMessage).toBeUndefined();
    const third = agentOn(store, { owner: "c", takeover: true });
    await third.resume();
    expect(third.state.errorMessage).toBeUndefined();
    expect(third.peekQueuedMessages()).toEqual([]);
  });

  it("R5 S1: resume() restores state.usage from the journal's assistant messages, and the next run adds to it", async () => {
    const store = new InMemorySessionStore();
    const used = (input: number, output: number) => ({ input, output, totalTokens: input + output });
    const agent = agentOn(store, { replies: [{ content: "a", usage: used(10, 5) }, { content: "b", usage: used(20, 7) }, { content: "c", usage: used(1, 1) }] });
    await agent.resume();
    await agent.prompt("one");
    await agent.prompt("two");
    const again = agentOn(store, { owner: "b", takeover: true, replies: [{ content: "a" }, { content: "b" }, { content: "c", usage: used(1, 1) }] });
    expect(again.state.usage.totalTokens).toBe(0);
    const totals: number[] = [];
    again.usage$.subscribe((usage) => totals.push(usage.totalTokens));
    await again.resume();
    expect(again.state.usage).toMatchObject({ input: 30, output: 12, totalTokens: 42 });
    expect(totals).toEqual([0, 42]);
    await again.prompt("three");
    expect(again.state.usage).toMatchObject({ input: 31, output: 13, totalTokens: 44 });
  });

  it("S1: a transcript replaced by assignment or reset() is journaled as it was then; the runs after it do not change the entry", async () => {
    const store = new InMemorySessionStore();
    const agent = agentOn(store, { replies: [{ content: "a" }, { content: "b" }, { content: "c" }, { content: "d" }] });
    await agent.resume();
    agent.state.messages = [{ role: "user", content: "assigned", timestamp: 1 }];
    await agent.prompt("after the assignment");
    const again = agentOn(store, { owner: "b", takeover: true });
    await again.resume();
    expect(plain(again.state.messages)).toEqual(plain(agent.state.messages));
    again.reset();
    await again.prompt("after the reset");
    const third = agentOn(store, { owner: "c", takeover: true });
    await third.resume();
    expect(plain(third.state.messages)).toEqual(plain(again.state.messages));
    expect(userTexts(third.state.messages)).toEqual(["after the reset"]);
  });

  it("S5: one message object queued twice is two queued entries: both delivered once, neither again after a resume", async () => {
    const store = new InMemorySessionStore();
    const agent = agentOn(store, { replies: [{ content: "a" }, { content: "b" }, { content: "c" }] });
    await agent.resume();
    const note = { role: "user" as const, content: "remember the milk", timestamp: 1 };
    agent.followUp(note);
    agent.followUp(note);
    agent.steer(note);
    agent.clearSteeringQueue();
    await agent.prompt("start");
    expect(agent.peekQueuedMessages()).toEqual([]);
    expect(userTexts(agent.state.messages)).toEqual(["start", "remember the milk", "remember the milk"]);
    const image = replayJournal(store.load("s")!.entries);
    expect(image.followUp).toEqual([]);
    expect(image.steering).toEqual([]);
    const again = agentOn(store, { owner: "b", takeover: true });
    await again.resume();
    expect(again.peekQueuedMessages()).toEqual([]);
  });

  it("S5: messages queued before resume() are kept after the journal's and journaled", async () => {
    const store = new InMemorySessionStore();
    const first = agentOn(store);
    await first.resume();
    first.followUp("from the journal");
    const agent = agentOn(store, { owner: "b", takeover: true });
    agent.followUp("early");
    await agent.resume();
    expect(userTexts(agent.peekQueuedMessages())).toEqual(["from the journal"]);
    expect(replayJournal(store.load("s")!.entries).followUp.map((q) => userTexts([q.message])[0])).toEqual(["from the journal", "early"]);
  });

  it("S5: prompt() before resume(), resume() twice or without a session are clear errors", async () => {
    const agent = agentOn(new InMemorySessionStore());
    await expect(agent.prompt("go")).rejects.toThrow('The Agent keeps session "s": call `await agent.resume()` before the first prompt.');
    await agent.resume();
    await expect(agent.resume()).rejects.toThrow('resume(): the session "s" is open already.');
    await expect(new Agent({ initialState: { model } }).resume()).rejects.toThrow("resume() needs a session: pass `session: agentSession({ store, id })` (from rxagent/session) in the Agent's options.");
    expect(() => agentSession({ store: new InMemorySessionStore(), id: "" })).toThrow("session.id must be a non-empty string.");
    expect(() => agentSession({ store: {} as SessionStore, id: "s" })).toThrow("session.store must be a SessionStore");
    expect(() => agentSession({ store: new InMemorySessionStore(), id: "s", leaseTtlMs: 0 })).toThrow("session.leaseTtlMs must be a positive number");
  });

  it("S5: the session option is a value agentSession() built, for one Agent", async () => {
    const options = { store: new InMemorySessionStore(), id: "s" };
    // The options themselves, as the Agent took them before sessions were an entry point of their own.
    expect(() => new Agent({ initialState: { model }, session: options as never })).toThrow('session must be built by agentSession() from "rxagent/session": `session: agentSession({ store, id })`.');
    for (const wrong of [null, "s", 42]) expect(() => new Agent({ initialState: { model }, session: wrong as never })).toThrow(new TypeError('session must be built by agentSession() from "rxagent/session": `session: agentSession({ store, id })`.'));
    const session = agentSession(options);
    const first = new Agent({ initialState: { model }, streamFn: byTurn([]), session });
    const second = new Agent({ initialState: { model }, streamFn: byTurn([]), session });
    await first.resume();
    await expect(second.resume()).rejects.toThrow('resume(): the session "s" belongs to another Agent; build one agentSession() per Agent.');
    expect(session.isOpen).toBe(true);
    // Open, but not for the other Agent: its runs are refused rather than left out of the journal.
    await expect(second.prompt("x")).rejects.toThrow('The Agent keeps session "s": call `await agent.resume()` before the first prompt.');
    await expect(second.closeSession()).rejects.toThrow('closeSession(): the session "s" belongs to another Agent');
    expect(second.state.messages).toHaveLength(0);
    await first.closeSession();
    expect(session.isOpen).toBe(false);
    await expect(second.resume()).rejects.toThrow("belongs to another Agent");
  });

  it("S5: a failed first resume() binds the session to no Agent; an open session says so before a running run does", async () => {
    const store = new InMemorySessionStore();
    const acquire = store.acquire.bind(store);
    let down = true;
    store.acquire = (...args: Parameters<typeof acquire>) => {
      if (down) throw new Error("db down");
      return acquire(...args);
    };
    const session = agentSession({ store, id: "s" });
    const first = new Agent({ initialState: { model }, streamFn: byTurn([]), session });
    await expect(first.resume()).rejects.toThrow("db down");
    down = false;
    const second = new Agent({ initialState: { model }, streamFn: byTurn([{ content: "hi" }]), session });
    await second.resume();
    expect(session.isOpen).toBe(true);
    const running = second.prompt("go");
    await expect(second.resume()).rejects.toThrow('resume(): the session "s" is open already.');
    await running;
  });

  it("S3: a session another owner holds is refused until it is released; the Agent can then try again", async () => {
    const store = new InMemorySessionStore();
    const holder = agentOn(store, { owner: "tab-1" });
    await holder.resume();
    const other = agentOn(store, { owner: "tab-2" });
    const refused = await other.resume().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SessionLeaseHeldError);
    expect((refused as Error).message).toContain('leased by "tab-1"');
    const lease = store.acquire("s", { owner: "tab-1", ttlMs: 1 });
    store.release("s", lease.token);
    await other.resume();
    await other.prompt("mine now");
    expect(userTexts(other.state.messages)).toEqual(["mine now"]);
  });

  it("S3: an Agent whose lease was taken over ends its run with the fence as its error and writes nothing more", async () => {
    const store = new InMemorySessionStore();
    let takeOver: (() => void) | undefined;
    const slow: AgentTool = { ...echo, name: "slow", execute: () => new Promise((resolve) => (takeOver = () => resolve({ content: [{ type: "text", text: "late" }] }))) };
    const agent = agentOn(store, { tools: [slow], replies: [{ content: [fauxToolCall("slow", {}, "s1")] }, { content: "done" }] });
    await agent.resume();
    const running = agent.prompt("go");
    await new Promise((resolve) => setTimeout(resolve, 10));
    const usurper = agentOn(store, { owner: "b", takeover: true });
    await usurper.resume();
    const before = store.load("s")!.entries.length;
    takeOver!();
    await running;
    expect(agent.state.errorMessage).toMatch(/^The session journal could not be written: .*lease \(fencing token 1\) was taken over by token 2/);
    expect(store.load("s")!.entries.length).toBe(before);
    expect(agent.state.isStreaming).toBe(false);
    expect(new SessionFencedError("s", 1, 2).name).toBe("SessionFencedError");
  });
});

/** A store whose appends answer a tick later, recording when each was confirmed. */
function laterStore(log: string[]): SessionStore {
  const memory = new InMemorySessionStore();
  return storeAppending(
    memory,
    (id, entries, condition) =>
      new Observable<number>((subscriber) => {
        const timer = setTimeout(() => {
          const seq = memory.append(id, entries, condition);
          log.push(`stored ${entries.map((e) => e.type).join("+")}`);
          subscriber.next(seq);
          subscriber.complete();
        }, 2);
        return () => clearTimeout(timer);
      }),
    (id, request) => of(memory.acquire(id, request)).pipe(delayBy(1)),
  );
}

describe("entries are on record before anyone is told (SPEC S6)", () => {
  it("S6: with a store that answers later, the state, events$ and listeners show each event only after its entry is stored, and a tool runs after its start is", async () => {
    const log: string[] = [];
    let shownBefore = 0;
    const tool: AgentTool = { ...echo, execute: (_id, params: { text?: string }) => (log.push("tool runs"), { content: [{ type: "text", text: params.text ?? "" }] }) };
    const agent = agentOn(laterStore(log), { tools: [tool] });
    agent.events$.pipe(filter((e) => e.type !== "message_update" && e.type !== "message_start" && e.type !== "turn_start" && e.type !== "turn_end")).subscribe((e) => log.push(`told ${label(e)}`));
    // The state shows a committed message only once it is stored.
    agent.state$.subscribe((state) => {
      const shown = state.messages.length;
      if (shown > shownBefore) log.push(`shows ${shown - 1 === 0 ? "system" : (state.messages[shown - 1] as Message).role}`);
      shownBefore = shown;
    });
    await agent.resume();
    await agent.prompt("go");
    expect(log).toEqual([
      "shows system",
      "stored created+transcript",
      "stored run_started",
      "told agent_start",
      "stored message",
      "shows user",
      "told message_end:user",
      "stored message",
      "shows assistant",
      "told message_end:assistant",
      "stored tool_started",
      "told tool_execution_start:e1",
      "stored tool_executing",
      "tool runs",
      "stored tool_ended",
      "told tool_execution_end:e1",
      "stored message",
      "shows toolResult",
      "told message_end:toolResult:e1",
      "stored message",
      "shows assistant",
      "told message_end:assistant",
      "told agent_end",
      "stored run_ended",
    ]);
  });
});

/** A journal of "s" whose run stopped right after the user's message: a resume has that run to finish. */
async function journalWithOpenRun(): Promise<InMemorySessionStore> {
  const store = new InMemorySessionStore();
  const agent = agentOn(store);
  await agent.resume();
  await agent.prompt("go");
  return cutJournal(store, (e) => e.type === "message" && (e.message as Message).role === "user");
}

/** A copy of `store`'s journal of "s" up to and including the first entry `cut` picks. */
function cutJournal(store: InMemorySessionStore, cut: (entry: JournalEntry) => boolean): InMemorySessionStore {
  const entries = store.load("s")!.entries;
  return storeWith(entries.slice(0, entries.findIndex(cut) + 1));
}

describe("a subscriber that cancels while entries are being stored (SPEC S6, A5, L10)", () => {
  /** What the slow store saw: each append's entry types, and how many appends are unanswered. */
  interface StoreLog {
    appends: string[][];
    inFlight: number;
  }

  /** The in-memory store, each append answered `frames` later on `scheduler`. */
  function slowStore(scheduler: SchedulerLike, frames: number, log: StoreLog): { store: SessionStore; memory: InMemorySessionStore } {
    const memory = new InMemorySessionStore({ now: () => scheduler.now() });
    const store = storeAppending(memory, (id, entries, condition) => {
      log.appends.push(entries.map((e) => e.type));
      log.inFlight++;
      return of(0).pipe(
        delayBy(frames, scheduler),
        map(() => {
          log.inFlight--;
          return memory.append(id, entries, condition);
        }),
      );
    });
    return { store, memory };
  }

  interface Outcome {
    told: string[];
    listened: string[];
    seen: string[];
    /** Told events at which the state showed a message the journal did not hold yet (SPEC S6). */
    aheadOfJournal: string[];
    /** Appends of the run (after the session was opened), by entry types. */
    runAppends: string[][];
    /** An append was unanswered when the subscriber cancelled. */
    cancelledWhileStoring: boolean;
    completed: boolean;
    errors: unknown[];
    journaled: unknown;
    state: unknown;
    /** The model's last reply, "done", is in the transcript as a finished answer. */
    answered: boolean;
    results: string[];
    calls: string[];
    idle: boolean;
  }

  const replies: FauxReply[] = [{ content: [fauxToolCall("a", {}, "a1"), fauxToolCall("b", {}, "b1"), fauxToolCall("c", {}, "c1")] }, { content: "done" }];

  /** Three parallel tools with progress; the `prompt$` subscriber aborts or leaves inside `next` on event `at`. */
  function cancelAt(at: number, how: "abort" | "unsubscribe"): Outcome {
    const scheduler = newScheduler();
    const log: StoreLog = { appends: [], inFlight: 0 };
    const { store, memory } = slowStore(scheduler, 1, log);
    const tools = [progressTool("a", 2, 1), progressTool("b", 2, 1), progressTool("c", 1, 2)];
    const out: Outcome = {
      told: [],
      listened: [],
      seen: [],
      aheadOfJournal: [],
      runAppends: [],
      cancelledWhileStoring: false,
      completed: false,
      errors: [],
      journaled: undefined,
      state: undefined,
      answered: false,
      results: [],
      calls: [],
      idle: false,
    };
    let agent!: Agent;
    let opened = 0;
    scheduler.run(() => {
      agent = agentOn(store, { tools, replies, scheduler });
      agent.resume$().subscribe({ complete: () => (opened = log.appends.length) });
      agent.events$.subscribe((e) => out.told.push(label(e)));
      agent.subscribe((e) => {
        out.listened.push(label(e));
        const journal = replayJournal(memory.load("s")!.entries).messages;
        if (agent.state.messages.length > journal.length) out.aheadOfJournal.push(label(e));
      });
      let index = 0;
      const subscriber: Subscriber<AgentEvent> = new Subscriber<AgentEvent>({
        next: (e) => {
          out.seen.push(label(e));
          if (index++ !== at) return;
          out.cancelledWhileStoring = log.inFlight > 0;
          if (how === "abort") agent.abort();
          else subscriber.unsubscribe();
        },
        error: (error: unknown) => void out.errors.push(error),
        complete: () => (out.completed = true),
      });
      // Started once the session is open, so that appends before it are the session's own.
      scheduler.schedule(() => agent.prompt$("go").subscribe(subscriber), 2);
    });
    out.runAppends = log.appends.slice(opened);
    out.idle = !agent.state.isStreaming;
    out.state = JSON.parse(JSON.stringify(agent.state.messages));
    out.journaled = JSON.parse(JSON.stringify(replayJournal(memory.load("s")!.entries).messages));
    const messages = agent.state.messages as Message[];
    out.answered = messages.some((m) => m.role === "assistant" && m.stopReason === "stop" && m.content.some((block) => block.type === "text" && block.text === "done"));
    out.results = messages.filter((m) => m.role === "toolResult").map((m) => m.toolCallId);
    // An aborted response ends the run: its calls are not run and get no results (SPEC L6, L10).
    out.calls = messages.flatMap((m) => (m.role === "assistant" && m.stopReason === "toolUse" ? m.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : [])) : []));
    return out;
  }

  for (const how of ["abort", "unsubscribe"] as const) {
    it(`S6 A5 L10: a subscriber that calls ${how === "abort" ? "abort()" : "unsubscribe()"} inside next, at every event: the cancel takes effect; events$, the listener and the subscriber see one order; the journal is ahead of the state at every event and holds it at the end; every call has one result`, () => {
      const complete = cancelAt(-1, how);
      const events = complete.listened.length;
      expect(complete.seen).toEqual(complete.listened);
      expect(complete.completed).toBe(true);
      expect(complete.answered).toBe(true);
      expect(complete.results).toEqual(["a1", "b1", "c1"]);
      expect(complete.calls).toEqual(["a1", "b1", "c1"]);
      // From the final answer's message_end on, there is nothing left to cancel.
      const answeredAt = complete.listened.lastIndexOf("message_end:assistant");
      let whileStoring = 0;
      let batched = 0;
      for (let at = 0; at < events; at++) {
        const out = cancelAt(at, how);
        const where = `${how} at ${at} (${complete.listened[at]})`;
        expect(out.errors, where).toEqual([]);
        expect(out.told, where).toEqual(out.listened);
        expect(out.seen, where).toEqual(out.listened.slice(0, out.seen.length));
        expect(out.seen.length, where).toBe(how === "abort" ? out.listened.length : at + 1);
        expect(out.completed, where).toBe(how === "abort");
        expect(out.aheadOfJournal, where).toEqual([]);
        expect(out.journaled, where).toEqual(out.state);
        expect(out.idle, where).toBe(true);
        // The cancel took effect: the run ended without the final answer (an aborted reply at most).
        expect(out.answered, where).toBe(at >= answeredAt);
        if (at >= answeredAt) expect(out.state, where).toEqual(complete.state);
        // Every call the run went on with has exactly one result, in source order (SPEC L10).
        expect(out.results, where).toEqual(out.calls);
        if (out.cancelledWhileStoring) whileStoring++;
        if (out.runAppends.some((types) => types.length >= 2)) batched++;
      }
      // The case in question happened: cancels while an append was unanswered, and appends of
      // several run entries at once (each confirmed by one answer).
      expect(whileStoring).toBeGreaterThan(5);
      expect(batched).toBeGreaterThan(5);
    });
  }
});

describe("a run told to stop is not continued by a resume (SPEC S5)", () => {
  it("S5: finishTurn deciding `end` is on record: cut after the batch, the resume asks the model nothing", async () => {
    const store = new InMemorySessionStore();
    const agent = agentOn(store);
    agent.finishTurn = () => ({ action: "end" });
    await agent.resume();
    await agent.prompt("go");
    const copy = cutJournal(store, (e) => e.type === "run_stopping");
    const provider = byTurn([{ content: "should not be asked" }]);
    const resumed = new Agent({ initialState: { systemPrompt: "Be brief.", model, tools: [echo] }, streamFn: provider, session: agentSession({ store: copy, id: "s", owner: "b" }) });
    await resumed.resume();
    expect(provider.requests).toHaveLength(0);
    expect(replayJournal(copy.load("s")!.entries).runOpen).toBe(false);
    expect(resumed.state.messages.map((m) => (m as Message).role)).toEqual(["system", "user", "assistant", "toolResult"]);
  });

  it("S3 S5: a run to finish needs the Agent's streamFn and model: resume() says which is missing, the session stays closed, the lease is released", async () => {
    const copy = await journalWithOpenRun();
    const session = agentSession({ store: copy, id: "s", owner: "b" });
    const noModel = new Agent({ initialState: { tools: [echo] }, streamFn: byTurn([]), session });
    await expect(noModel.resume()).rejects.toThrow('resume(): session "s" has a run to finish, and the Agent has no model to finish it with.');
    const noStreamFn = new Agent({ initialState: { model, tools: [echo] }, session: agentSession({ store: copy, id: "s", owner: "c" }) });
    await expect(noStreamFn.resume()).rejects.toThrow('resume(): session "s" has a run to finish, and the Agent has no streamFn to finish it with.');
    expect(session.isOpen).toBe(false);
    // Released, not left to expire: another owner gets the lease at once.
    expect(copy.acquire("s", { owner: "d", ttlMs: 60_000 }).owner).toBe("d");
  });

  it("S5 A8: a run stopped inside a tool batch is not finished with the placeholder model either: no tool runs again, nothing is installed, the journal keeps the run open", async () => {
    let runs = 0;
    const rerun: AgentTool = { ...echo, name: "send", replay: "safe", execute: async () => (runs++, { content: [{ type: "text", text: "sent" }] }) };
    const store = new InMemorySessionStore();
    const first = agentOn(store, { tools: [rerun], replies: [{ content: [fauxToolCall("send", {}, "c1")] }, { content: "done" }] });
    await first.resume();
    await first.prompt("go");
    runs = 0;
    const copy = cutJournal(store, (e) => e.type === "tool_executing");
    const provider = byTurn([{ content: "never asked" }]);
    const modelLess = new Agent({ initialState: { tools: [rerun] }, streamFn: provider, session: agentSession({ store: copy, id: "s", owner: "b" }) });
    const before = modelLess.state.messages;
    await expect(modelLess.resume()).rejects.toThrow('resume(): session "s" has a run to finish, and the Agent has no model to finish it with.');
    expect(runs).toBe(0);
    expect(provider.requests).toHaveLength(0);
    expect(modelLess.state.messages).toBe(before);
    expect(replayJournal(copy.load("s")!.entries).runOpen).toBe(true);
  });

  it("S5 A8: a model-less Agent still opens a session with no run to finish: the transcript is installed, nothing is asked", async () => {
    const store = new InMemorySessionStore();
    const first = agentOn(store);
    await first.resume();
    await first.prompt("go");
    await first.closeSession();
    const provider = byTurn([]);
    const modelLess = new Agent({ initialState: { tools: [echo] }, streamFn: provider, session: agentSession({ store, id: "s", owner: "b" }) });
    await modelLess.resume();
    expect(modelLess.state.messages.map((m) => (m as Message).role)).toEqual(first.state.messages.map((m) => (m as Message).role));
    expect(provider.requests).toHaveLength(0);
  });

  it("S3 S5: a run to finish with tools the Agent cannot run (a validator that refuses their schema): resume() rejects before installing anything and releases the lease", async () => {
    const copy = await journalWithOpenRun();
    const session = agentSession({ store: copy, id: "s", owner: "b" });
    const refusing = { name: "refusing", compile: (): never => { throw new Error("no schema passes"); } };
    const agent = new Agent({ initialState: { model, tools: [echo] }, streamFn: byTurn([]), validator: refusing, session });
    const before = agent.state.messages;
    await expect(agent.resume()).rejects.toThrow('Tool "echo" has an invalid parameters schema (refusing): no schema passes');
    expect(session.isOpen).toBe(false);
    expect(agent.state.messages).toBe(before);
    expect(copy.acquire("s", { owner: "d", ttlMs: 60_000 }).owner).toBe("d");
  });

  it("S5: finishTurn deciding to go on, or nothing, puts no stop on record", async () => {
    const store = new InMemorySessionStore();
    const agent = agentOn(store, { replies: [{ content: [fauxToolCall("echo", { text: "a" }, "e1")] }, { content: [fauxToolCall("echo", { text: "b" }, "e2")] }, { content: "done" }] });
    const decisions = [{ action: "continue" as const }, undefined];
    agent.finishTurn = () => decisions.shift();
    await agent.resume();
    await agent.prompt("go");
    expect(decisions).toEqual([]);
    expect(types(store.load("s")!.entries)).not.toContain("run_stopping");
  });

  it("S5 A6: a finishTurn that throws, with a session, fails the run with its own error and puts no stop on record", async () => {
    const store = new InMemorySessionStore();
    const agent = agentOn(store);
    agent.finishTurn = () => {
      throw new Error("the hook broke");
    };
    await agent.resume();
    await agent.prompt("go");
    expect(agent.state.errorMessage).toBe("the hook broke");
    expect(types(store.load("s")!.entries)).not.toContain("run_stopping");
  });

  it("S5: abort() twice puts one stop on record", async () => {
    const store = new InMemorySessionStore();
    let agent!: Agent;
    const stopper: AgentTool = { ...echo, name: "stopper", execute: () => (agent.abort(), agent.abort(), { content: [{ type: "text", text: "stopped it" }] }) };
    agent = agentOn(store, { tools: [stopper], replies: [{ content: [fauxToolCall("stopper", {}, "x")] }] });
    await agent.resume();
    await agent.prompt("go");
    const stops = store.load("s")!.entries.filter((e) => e.type === "run_stopping");
    expect(stops).toHaveLength(1);
    expect(stops[0]).toMatchObject({ reason: "aborted" });
  });

  it("R2 S5: a turn limit is on record as an end, not an abort: a resume continues nothing and aborts nothing", async () => {
    const store = new InMemorySessionStore();
    const agent = new Agent({
      initialState: { systemPrompt: "Be brief.", model, tools: [echo] },
      streamFn: byTurn([{ content: [fauxToolCall("echo", { text: "a" }, "e1")] }, { content: "should not be asked" }]),
      limits: { maxTurns: 1 },
      session: agentSession({ store, id: "s", owner: "a" }),
    });
    await agent.resume();
    await agent.prompt("go");
    expect(agent.state.limit).toMatchObject({ limit: "maxTurns" });
    const stops = store.load("s")!.entries.filter((e) => e.type === "run_stopping");
    expect(stops).toEqual([expect.objectContaining({ reason: "ended" })]);
    // A process that stopped right after: its successor asks the model nothing and aborts nothing.
    const copy = cutJournal(store, (e) => e.type === "run_stopping");
    const provider = byTurn([{ content: "should not be asked" }]);
    const resumed = new Agent({ initialState: { systemPrompt: "Be brief.", model, tools: [echo] }, streamFn: provider, session: agentSession({ store: copy, id: "s", owner: "b" }) });
    await resumed.resume();
    expect(provider.requests).toHaveLength(0);
    expect(plain(resumed.state.messages)).toEqual(plain(agent.state.messages));
    expect(resumed.state.messages.some((m) => (m as { stopReason?: string }).stopReason === "aborted")).toBe(false);
  });

  it("S5: cut after the batch but before finishTurn decided, the resumed run ends the turn through finishTurn, which ends it", async () => {
    const store = new InMemorySessionStore();
    const agent = agentOn(store);
    agent.finishTurn = () => ({ action: "end" });
    await agent.resume();
    await agent.prompt("go");
    const copy = cutJournal(store, (e) => e.type === "message" && (e.message as Message).role === "toolResult");
    const provider = byTurn([{ content: "should not be asked" }]);
    const decided: string[] = [];
    const resumed = new Agent({
      initialState: { systemPrompt: "Be brief.", model, tools: [echo] },
      streamFn: provider,
      finishTurn: (turn) => (decided.push((turn.message as Message).role), { action: "end" }),
      session: agentSession({ store: copy, id: "s", owner: "b" }),
    });
    await resumed.resume();
    expect(decided).toEqual(["assistant"]);
    expect(provider.requests).toHaveLength(0);
  });

  it("S5: an abort is on record: a run aborted inside its batch resumes aborted — its open calls get the abort's results, the model is not asked to go on", async () => {
    const store = new InMemorySessionStore();
    let agent!: Agent;
    const stopper: AgentTool = { ...echo, name: "stopper", execute: () => (agent.abort(), { content: [{ type: "text", text: "stopped it" }] }) };
    const late: AgentTool = { ...echo, name: "late" };
    agent = agentOn(store, { tools: [stopper, late], replies: [{ content: [fauxToolCall("stopper", {}, "x"), fauxToolCall("late", {}, "y")] }, { content: "should not be asked" }] });
    await agent.resume();
    await agent.prompt("go");
    const copy = cutJournal(store, (e) => e.type === "run_stopping");
    const provider = byTurn([{ content: [fauxToolCall("stopper", {}, "x"), fauxToolCall("late", {}, "y")] }, { content: "should not be asked" }]);
    const resumed = new Agent({ initialState: { systemPrompt: "Be brief.", model, tools: [stopper, late] }, streamFn: provider, session: agentSession({ store: copy, id: "s", owner: "b" }) });
    await resumed.resume();
    const results = resumed.state.messages.filter((m): m is Message & { role: "toolResult" } => (m as Message).role === "toolResult");
    expect(results.map((r) => r.toolCallId)).toEqual(["x", "y"]);
    expect(results.every((r) => r.isError)).toBe(true);
    const last = resumed.state.messages.at(-1) as { role: string; stopReason?: string };
    expect(last).toMatchObject({ role: "assistant", stopReason: "aborted" });
    expect(replayJournal(copy.load("s")!.entries).runOpen).toBe(false);
  });
});

describe("resuming a sequential batch (SPEC S5, T4)", () => {
  it("S5: the calls left of a sequential batch still run one at a time", async () => {
    const tools: AgentTool[] = [
      { ...echo, name: "s", executionMode: "sequential" },
      { ...echo, name: "b" },
      { ...echo, name: "c" },
    ];
    const replies: FauxReply[] = [{ content: [fauxToolCall("s", {}, "s1"), fauxToolCall("b", {}, "b1"), fauxToolCall("c", {}, "c1")] }, { content: "done" }];
    const store = new InMemorySessionStore();
    const agent = agentOn(store, { tools, replies });
    await agent.resume();
    await agent.prompt("go");
    // The journal as a crash right after s's result was committed leaves it.
    const copy = cutJournal(store, (e) => e.type === "message" && (e.message as { toolCallId?: string }).toolCallId === "s1");
    const resumed = agentOn(copy, { tools, replies, owner: "second" });
    const seen: string[] = [];
    resumed.subscribe((e) => {
      if (e.type === "tool_execution_start" || e.type === "tool_execution_end") seen.push(label(e));
    });
    await resumed.resume();
    expect(seen).toEqual(["tool_execution_start:b1", "tool_execution_end:b1", "tool_execution_start:c1", "tool_execution_end:c1"]);
  });
});

describe("opening a session (SPEC S5)", () => {
  it("S5: a resume$() left before the store answered leaves the session closed: resume() works afterwards", async () => {
    const log: string[] = [];
    const agent = agentOn(laterStore(log));
    agent.resume$().subscribe().unsubscribe();
    await agent.resume();
    await agent.prompt("go");
    expect(agent.state.messages.map((m) => (m as Message).role)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
  });
});

describe("closing a session (SPEC S3)", () => {
  it("S3: closeSession() releases the lease at once: another owner takes the session without a takeover; reopening reads the journal again", async () => {
    const store = new InMemorySessionStore();
    const agent = agentOn(store, { owner: "worker-1" });
    await agent.resume();
    await agent.prompt("go");
    agent.followUp("later");
    await agent.closeSession();
    await expect(agent.prompt("after close")).rejects.toThrow("call `await agent.resume()` before the first prompt");
    const next = agentOn(store, { owner: "worker-2", replies: [{ content: "done later" }] });
    await next.resume();
    expect(userTexts(next.peekQueuedMessages())).toEqual(["later"]);
    await next.continue();
    await next.closeSession();
    await agent.resume();
    expect(userTexts(agent.state.messages)).toEqual(["go", "later"]);
    expect(agent.peekQueuedMessages()).toEqual([]);
  });

  it("S3: closeSession() during a run is refused; without a session it does nothing", async () => {
    let finish!: () => void;
    const slow: AgentTool = { ...echo, name: "slow", execute: () => new Promise((resolve) => (finish = () => resolve({ content: [] }))) };
    const agent = agentOn(new InMemorySessionStore(), { tools: [slow], replies: [{ content: [fauxToolCall("slow", {}, "s1")] }, { content: "ok" }] });
    await agent.resume();
    const running = agent.prompt("go");
    await new Promise((resolve) => setTimeout(resolve, 5));
    await expect(agent.closeSession()).rejects.toThrow("closeSession() while a run is active");
    finish();
    await running;
    await agent.closeSession();
    await new Agent({ initialState: { model } }).closeSession();
  });
});

describe("a resumed run in virtual time (SPEC S5, L12)", () => {
  it("L12 S5: with the in-memory store, a session stopped inside a tool batch resumes and finishes frame-exact under TestScheduler.run", () => {
    const scheduler = newScheduler();
    const store = new InMemorySessionStore({ now: () => scheduler.now() });
    const replies: FauxReply[] = [{ content: [fauxToolCall("slow", {}, "a"), fauxToolCall("fast", {}, "b")] }, { content: "done" }];
    const tools = [timerTool("slow", 30, "slow", { replay: "safe" }), timerTool("fast", 10)];
    const stamped: string[] = [];
    let resumed: Agent | undefined;
    scheduler.run(() => {
      const first = agentOn(store, { tools, replies, scheduler });
      first.resume$().subscribe();
      const running = first.prompt$("go").subscribe();
      // Frame 25: `fast` (b) finished at 10 + its request's frames, `slow` (a) still runs. The
      // journal as it is then is what a crash leaves; then the first process goes away.
      scheduler.schedule(() => {
        const copy = storeWith(store.load("s")!.entries, { now: () => scheduler.now() });
        running.unsubscribe();
        resumed = agentOn(copy, { tools, replies, scheduler, owner: "second" });
        resumed.resume$().subscribe((e) => {
          if (e.type !== "message_update") stamped.push(`${scheduler.now()} ${label(e)}`);
        });
      }, 25);
    });
    expect(stamped).toEqual([
      "25 agent_start",
      "25 turn_start",
      "25 tool_execution_start:a",
      // b finished before the crash: its recorded outcome, not a second run.
      "25 tool_execution_start:b",
      "25 tool_execution_end:b",
      // a (replay: "safe") runs again: 30 frames from its restart.
      "55 tool_execution_end:a",
      "55 message_start:toolResult:a",
      "55 message_end:toolResult:a",
      "55 message_start:toolResult:b",
      "55 message_end:toolResult:b",
      "55 turn_end",
      "55 turn_start",
      "55 message_start:assistant",
      "59 message_end:assistant",
      "59 turn_end",
      "59 agent_end",
    ]);
    expect(resumed!.state.messages.map((m) => (m as Message).role)).toEqual(["system", "user", "assistant", "toolResult", "toolResult", "assistant"]);
  });
});

describe("a resumed batch stops only when every result asked to (SPEC S5, L6)", () => {
  const stopping = (name: string, terminate: boolean): AgentTool => ({ ...echo, name, executionMode: "sequential", execute: () => ({ content: [{ type: "text", text: name }], terminate }) });
  const replies: FauxReply[] = [{ content: [fauxToolCall("first", {}, "f1"), fauxToolCall("second", {}, "s1")] }, { content: "asked again" }];

  async function resumeAfterFirst(firstTerminates: boolean): Promise<ReturnType<typeof byTurn>> {
    const tools = [stopping("first", firstTerminates), stopping("second", true)];
    const store = new InMemorySessionStore();
    const agent = agentOn(store, { tools, replies });
    await agent.resume();
    await agent.prompt("go");
    // A crash right after the first result was committed.
    const copy = cutJournal(store, (e) => e.type === "message" && (e.message as { toolCallId?: string }).toolCallId === "f1");
    const provider = byTurn(replies);
    const resumed = new Agent({ initialState: { systemPrompt: "Be brief.", model, tools }, streamFn: provider, session: agentSession({ store: copy, id: "s", owner: "b" }) });
    await resumed.resume();
    return provider;
  }

  it("L6 S5: the earlier result asked to stop and the resumed one does: the model is not asked again", async () => {
    expect((await resumeAfterFirst(true)).requests).toHaveLength(0);
  });

  it("L6 S5: the earlier result did not ask to stop: the run goes on with both results", async () => {
    const provider = await resumeAfterFirst(false);
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]!.messages.filter((m) => m.role === "toolResult").map((m) => (m as { toolCallId: string }).toolCallId)).toEqual(["f1", "s1"]);
  });
});
