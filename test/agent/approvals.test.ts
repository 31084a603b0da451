/**
 * The Agent's approvals (SPEC R1), budgets (R2), scheduling (R3) and usage totals (R5): calls
 * wait in `state.pendingApprovals` until `approve()` / `deny()` / `answerApprovals()` answer
 * them, an abort answers every one, and with a session a pending approval outlives the process
 * that asked: a fresh Agent lists it and its answer resumes the run, nothing run twice.
 */
import { firstValueFrom, Subject, toArray, take, type Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { interpretingValidator } from "../../src/tools/validators/interpreting-validator.js";
import { agentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentTool, Usage } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxReply } from "../../src/testing/index.js";
import { InMemorySessionStore } from "../../src/session/stores/memory-store.js";
import { agentSession } from "../../src/session/agent-session.js";
import type { SessionStore } from "../../src/session/session-store.js";
import type { Message } from "../../src/model/messages.js";
import { model, roles, textOf, textResult, tool } from "./support.js";

/** Replies by how many assistant messages the request holds, so a resumed process gets the same one. */
function byTurn(replies: FauxReply[]) {
  const pick = (request: { messages: Message[] }): FauxReply => replies[request.messages.filter((m) => m.role === "assistant").length] ?? { content: "more" };
  return fauxProvider(Array.from({ length: 20 }, () => pick));
}

function guardedAgent(ran: string[], options: { store?: SessionStore; replies?: FauxReply[]; owner?: string; takeover?: boolean } = {}): Agent {
  const rm: AgentTool = tool("rm", (id) => (ran.push(`rm ${id}`), textResult("removed")), { needsApproval: true, replay: "never" });
  const ls: AgentTool = tool("ls", (id) => (ran.push(`ls ${id}`), textResult("a b c")));
  const replies = options.replies ?? [{ content: [fauxToolCall("ls", {}, "l1"), fauxToolCall("rm", { path: "b" }, "r1")] }, { content: "done" }];
  return new Agent({
    initialState: { model, tools: [ls, rm] },
    streamFn: byTurn(replies),
    ...(options.store ? { session: agentSession({ store: options.store, id: "s", owner: options.owner ?? "a", ...(options.takeover ? { takeover: true } : {}) }) } : {}),
  });
}

/** Resolves with the request event once a call asks. */
function nextRequest(agent: Agent): Promise<Extract<AgentEvent, { type: "tool_approval_request" }>> {
  return new Promise((resolve) => {
    const off = agent.subscribe((event) => {
      if (event.type === "tool_approval_request") {
        off();
        resolve(event);
      }
    });
  });
}

/**
 * A first Agent on a fresh store prompts and stops while `r1` waits for approval (another owner
 * takes the session over); the second Agent, resumed, is returned.
 */
/** A first Agent's run asks for approval of r1 in `store`; never answered there: that process "stops" while the call waits. */
async function waitingInJournal(ran: string[], store: SessionStore): Promise<void> {
  const first = guardedAgent(ran, { store, owner: "a" });
  await first.resume();
  const asked = nextRequest(first);
  void first.prompt("clean up").catch(() => undefined);
  await asked;
}

async function resumedWhileWaiting(ran: string[], store: SessionStore = new InMemorySessionStore()): Promise<Agent> {
  await waitingInJournal(ran, store);
  const second = guardedAgent(ran, { store, owner: "b", takeover: true });
  await second.resume();
  return second;
}

describe("R1: the Agent's approvals", () => {
  it("R1 A4: a waiting call is listed in state; approve() runs it; the list empties", async () => {
    const ran: string[] = [];
    const agent = guardedAgent(ran);
    const asked = nextRequest(agent);
    const done = agent.prompt("clean up");
    const request = await asked;
    expect(request).toEqual({ type: "tool_approval_request", toolCallId: "r1", toolName: "rm", args: { path: "b" } });
    expect(agent.state.pendingApprovals).toEqual([{ toolCallId: "r1", toolName: "rm", args: { path: "b" } }]);
    expect(ran).toEqual(["ls l1"]);
    agent.approve("r1");
    await done;
    expect(ran).toEqual(["ls l1", "rm r1"]);
    expect(agent.state.pendingApprovals).toEqual([]);
    expect(roles(agent.state.messages)).toEqual(["system", "user", "assistant", "toolResult", "toolResult", "assistant"]);
  });

  it("R1: deny() gives the model an error result with the reason", async () => {
    const ran: string[] = [];
    const agent = guardedAgent(ran);
    const asked = nextRequest(agent);
    const done = agent.prompt("clean up");
    await asked;
    agent.deny("r1", "Keep b.");
    await done;
    expect(ran).toEqual(["ls l1"]);
    const denied = agent.state.messages.find((m) => (m as { toolCallId?: string }).toolCallId === "r1");
    expect(textOf(denied)).toBe('Tool call "rm" was denied: Keep b.');
  });

  it("R1: approve() or deny() of a call that does not wait throws", () => {
    const agent = guardedAgent([]);
    expect(() => agent.approve("nope")).toThrow('No tool call "nope" is waiting for approval.');
    expect(() => agent.deny("nope")).toThrow('No tool call "nope" is waiting for approval.');
  });

  it("R1: answerApprovals() answers from a stream; an answer for no waiting call lands in errorMessage", async () => {
    const ran: string[] = [];
    const agent = guardedAgent(ran);
    const answers = new Subject<{ toolCallId: string; approved: true } | { toolCallId: string; approved: false; reason?: string }>();
    const answering = agent.answerApprovals(answers);
    answers.next({ toolCallId: "ghost", approved: true });
    expect(agent.state.errorMessage).toBe('No tool call "ghost" is waiting for approval.');
    const asked = nextRequest(agent);
    const done = agent.prompt("clean up");
    await asked;
    answers.next({ toolCallId: "r1", approved: true });
    await done;
    expect(ran).toEqual(["ls l1", "rm r1"]);
    answering.unsubscribe();
  });

  it("R1 R4 L10: abort() answers every waiting call: not started, and the list empties", async () => {
    const ran: string[] = [];
    const agent = guardedAgent(ran);
    const asked = nextRequest(agent);
    const done = agent.prompt("clean up");
    await asked;
    agent.abort();
    await done;
    expect(ran).toEqual(["ls l1"]);
    expect(agent.state.pendingApprovals).toEqual([]);
    expect(agent.state.cancellation).toEqual([{ toolCallId: "r1", toolName: "rm", status: "not_started" }]);
    expect(textOf(agent.state.messages.find((m) => (m as { toolCallId?: string }).toolCallId === "r1"))).toBe("Operation aborted");
    // The abort withdrew the request: nothing waits for an answer any more.
    expect(() => agent.approve("r1")).toThrow('No tool call "r1" is waiting for approval.');
  });

  it("R1: approve() of a call that does not wait throws while another waits; that one still waits", async () => {
    const ran: string[] = [];
    const agent = guardedAgent(ran);
    const asked = nextRequest(agent);
    const done = agent.prompt("clean up");
    await asked;
    expect(() => agent.approve("ghost")).toThrow('No tool call "ghost" is waiting for approval.');
    expect(agent.state.pendingApprovals.map((r) => r.toolCallId)).toEqual(["r1"]);
    agent.approve("r1");
    await done;
    expect(ran).toEqual(["ls l1", "rm r1"]);
  });

  it("R1: a failing answerApprovals() stream is named in state.errorMessage; the call still waits", async () => {
    const agent = guardedAgent([]);
    const answers = new Subject<{ toolCallId: string; approved: true }>();
    agent.answerApprovals(answers);
    const asked = nextRequest(agent);
    const done = agent.prompt("clean up");
    await asked;
    answers.error(new Error("socket closed"));
    expect(agent.state.errorMessage).toBe("The stream given to answerApprovals() failed: socket closed");
    expect(agent.state.pendingApprovals.map((r) => r.toolCallId)).toEqual(["r1"]);
    agent.deny("r1");
    await done;
  });

  it("R1 A4: of two waiting calls, the one answered leaves state.pendingApprovals at once; the other stays listed", async () => {
    const ran: string[] = [];
    const agent = guardedAgent(ran, { replies: [{ content: [fauxToolCall("rm", { path: "a" }, "r1"), fauxToolCall("rm", { path: "b" }, "r2")] }, { content: "done" }] });
    const lists: string[][] = [];
    agent.subscribe((event) => void (event.type === "tool_approval_end" && lists.push(agent.state.pendingApprovals.map((r) => r.toolCallId))));
    const both = new Promise<void>((resolve) => agent.subscribe((event) => void (event.type === "tool_approval_request" && event.toolCallId === "r2" && resolve())));
    const done = agent.prompt("clean up");
    await both;
    expect(agent.state.pendingApprovals.map((r) => r.toolCallId)).toEqual(["r1", "r2"]);
    agent.approve("r2");
    expect(agent.state.pendingApprovals).toEqual([{ toolCallId: "r1", toolName: "rm", args: { path: "a" } }]);
    agent.deny("r1");
    await done;
    expect(lists).toEqual([["r1"], []]);
    expect(ran).toEqual(["rm r2"]);
  });

  it("R4 A4: state.cancellation is the Agent's own frozen copy: a listener that edits the agent_end event's list changes neither", async () => {
    const ran: string[] = [];
    const agent = guardedAgent(ran);
    const edited: number[] = [];
    agent.subscribe((event) => {
      if (event.type === "agent_end" && event.cancellation) edited.push(event.cancellation.push({ toolCallId: "x", toolName: "ls", status: "not_started" }));
    });
    const asked = nextRequest(agent);
    const done = agent.prompt("clean up");
    await asked;
    agent.abort();
    await done;
    expect(edited).toEqual([2]);
    expect(agent.state.cancellation).toEqual([{ toolCallId: "r1", toolName: "rm", status: "not_started" }]);
    expect(Object.isFrozen(agent.state.cancellation)).toBe(true);
  });
});

describe("R1 S5: a pending approval outlives its process", () => {
  it("R1 S5 S6: a fresh Agent lists the waiting call; approve() resumes the run; the call that finished is not run again", async () => {
    const store = new InMemorySessionStore();
    const ran: string[] = [];
    // Another owner takes the session over while the call waits.
    await waitingInJournal(ran, store);
    expect(store.load("s")!.entries.map((e) => e.type)).toContain("approval_requested");

    const second = guardedAgent(ran, { store, owner: "b", takeover: true });
    await second.resume();
    expect(second.state.isStreaming).toBe(false);
    expect(second.state.pendingApprovals).toEqual([{ toolCallId: "r1", toolName: "rm", args: { path: "b" } }]);
    await expect(second.prompt("something else")).rejects.toThrow("The resumed run waits for approval of tool call r1: approve() or deny() first.");
    second.approve("r1");
    await second.waitForIdle();
    expect(ran).toEqual(["ls l1", "rm r1"]);
    expect(roles(second.state.messages)).toEqual(["system", "user", "assistant", "toolResult", "toolResult", "assistant"]);
    expect(textOf(second.state.messages.at(-1))).toBe("done");
    expect(second.state.pendingApprovals).toEqual([]);
  });

  it("R1 S5: while a resumed run waits, approve() of another id throws, a prompt says which calls wait, and nothing runs", async () => {
    const ran: string[] = [];
    const second = await resumedWhileWaiting(ran);
    expect(() => second.approve("ghost")).toThrow('No tool call "ghost" is waiting for approval.');
    expect(second.state.pendingApprovals.map((r) => r.toolCallId)).toEqual(["r1"]);
    await expect(second.prompt("other")).rejects.toThrow("The resumed run waits for approval of tool call r1: approve() or deny() first.");
    expect(ran).toEqual(["ls l1"]);
  });

  it("R1 S5: a resumed run with two calls waiting: a prompt lists both; the first answer resumes the run, which waits for the second", async () => {
    const store = new InMemorySessionStore();
    const ran: string[] = [];
    const replies: FauxReply[] = [{ content: [fauxToolCall("rm", { path: "a" }, "r1"), fauxToolCall("rm", { path: "b" }, "r2")] }, { content: "done" }];
    const first = guardedAgent(ran, { store, owner: "a", replies });
    await first.resume();
    const both = new Promise<void>((resolve) => first.subscribe((event) => void (event.type === "tool_approval_request" && event.toolCallId === "r2" && resolve())));
    void first.prompt("clean up").catch(() => undefined);
    await both;
    const second = guardedAgent(ran, { store, owner: "b", takeover: true, replies });
    await second.resume();
    expect(second.state.pendingApprovals.map((r) => r.toolCallId)).toEqual(["r1", "r2"]);
    await expect(second.prompt("other")).rejects.toThrow("The resumed run waits for approval of tool calls r1, r2: approve() or deny() first.");
    const asked = new Promise<void>((resolve) => second.subscribe((event) => void (event.type === "tool_approval_request" && event.toolCallId === "r2" && resolve())));
    second.approve("r1");
    expect(second.state.isStreaming).toBe(true);
    await asked;
    second.deny("r2");
    await second.waitForIdle();
    expect(ran).toEqual(["rm r1"]);
    expect(textOf(second.state.messages.at(-1))).toBe("done");
  });

  it("R1 S3: closeSession() while a resumed run waits forgets it: nothing is listed, approve() throws, the transcript is free", async () => {
    const second = await resumedWhileWaiting([]);
    let last: readonly unknown[] | undefined;
    second.state$.subscribe((snapshot) => (last = snapshot.pendingApprovals));
    expect(last).toHaveLength(1);
    await second.closeSession();
    expect(second.state.pendingApprovals).toEqual([]);
    expect(last).toEqual([]);
    expect(() => second.approve("r1")).toThrow('No tool call "r1" is waiting for approval.');
    second.state.messages = [];
    expect(second.state.messages).toEqual([]);
  });

  it("R1 S5: an answer that cannot resume the run (no streamFn) throws, and the calls still wait", async () => {
    const ran: string[] = [];
    const second = await resumedWhileWaiting(ran);
    const streamFn = second.streamFn;
    second.streamFn = undefined;
    expect(() => second.approve("r1")).toThrow("The Agent has no streamFn");
    expect(second.state.pendingApprovals.map((r) => r.toolCallId)).toEqual(["r1"]);
    second.streamFn = streamFn;
    second.approve("r1");
    await second.waitForIdle();
    expect(ran).toEqual(["ls l1", "rm r1"]);
  });

  it("R1 S5: a denial given to the fresh Agent is what the model reads", async () => {
    const ran: string[] = [];
    const second = await resumedWhileWaiting(ran);
    second.deny("r1", "Not today.");
    await second.waitForIdle();
    expect(ran).toEqual(["ls l1"]);
    expect(textOf(second.state.messages.find((m) => (m as { toolCallId?: string }).toolCallId === "r1"))).toBe('Tool call "rm" was denied: Not today.');
  });
});

describe("R2 R3 R5: limits, concurrency and usage through the Agent", () => {
  it("R2 A4: limits end the run; state.limit says which, until the next run", async () => {
    const replies: FauxReply[] = Array.from({ length: 10 }, (_, i) => ({ content: [fauxToolCall("ls", {}, `l${i}`)] }));
    const agent = new Agent({ initialState: { model, tools: [tool("ls", () => textResult("x"))] }, streamFn: byTurn(replies), limits: { maxTurns: 2 } });
    await agent.prompt("go");
    expect(agent.state.limit).toMatchObject({ limit: "maxTurns", value: 2, used: 2 });
    // A limit is not a failure.
    expect(agent.state.errorMessage).toBeUndefined();
    agent.limits = undefined;
    agent.streamFn = fauxProvider([{ content: "ok" }]);
    await agent.prompt("again");
    expect(agent.state.limit).toBeUndefined();
  });

  it("R2: a run that would go on for a queued follow-up though it had no tool calls reports the limit it reached", async () => {
    const agent = new Agent({ initialState: { model }, streamFn: fauxProvider([{ content: "first" }, { content: "second" }]), limits: { maxTurns: 1 } });
    agent.followUp("then this");
    await agent.prompt("go");
    expect(agent.state.limit).toMatchObject({ limit: "maxTurns", value: 1, used: 1 });
    expect(agent.peekQueuedMessages().map(textOf)).toEqual(["then this"]);
  });

  it("R2 R3: bad limits or concurrency are refused when the Agent is made, and when a run starts", async () => {
    expect(() => new Agent({ limits: { maxTurns: -2 } })).toThrow("limits.maxTurns must be a positive integer, got -2.");
    expect(() => new Agent({ maxConcurrency: 0 })).toThrow("maxConcurrency must be a positive integer, got 0.");
    const agent = new Agent({ initialState: { model }, streamFn: fauxProvider([{ content: "x" }]) });
    agent.maxConcurrency = 1.5;
    await expect(agent.prompt("go")).rejects.toThrow("maxConcurrency must be a positive integer, got 1.5.");
  });

  it("R5 A7: state.usage sums every run's assistant messages; usage$ emits each new total once", async () => {
    const usage = (input: number, output: number): Partial<Usage> => ({ input, output, totalTokens: input + output, cost: { input: input / 1000, output: output / 1000, cacheRead: 0, cacheWrite: 0, total: (input + output) / 1000 } });
    const agent = new Agent({ initialState: { model }, streamFn: fauxProvider([{ content: "a", usage: usage(10, 5) }, { content: "b", usage: usage(20, 7) }]) });
    const totals: Observable<Usage[]> = agent.usage$.pipe(take(3), toArray());
    const seen = firstValueFrom(totals);
    const ends: AgentEvent[] = [];
    agent.subscribe((e) => void (e.type === "agent_end" && ends.push(e)));
    await agent.prompt("one");
    await agent.prompt("two");
    expect(agent.state.usage).toMatchObject({ input: 30, output: 12, totalTokens: 42 });
    expect(agent.state.usage.cost.total).toBeCloseTo(0.042);
    expect((await seen).map((u) => u.totalTokens)).toEqual([0, 15, 42]);
    expect(ends.map((e) => (e as Extract<AgentEvent, { type: "agent_end" }>).usage.totalTokens)).toEqual([15, 27]);
  });
});

describe("R1: answering from the request's own listener", () => {
  it("R1 A5: a listener that approves as the request arrives (before the call waits) is heard", async () => {
    const ran: string[] = [];
    const agent = guardedAgent(ran);
    agent.subscribe((event) => {
      if (event.type === "tool_approval_request") agent.approve(event.toolCallId);
    });
    await agent.prompt("clean up");
    expect(ran).toEqual(["ls l1", "rm r1"]);
  });
});

describe("R1 R2 R4: review regressions", () => {
  it("R1: an answer kept for a call that an abort then ended does not approve a later call with the same id", async () => {
    const ran: string[] = [];
    const rm: AgentTool = tool("rm", (id, args) => (ran.push(`${id} ${JSON.stringify(args)}`), textResult("removed")), { needsApproval: true, concurrencyKey: () => "disk" });
    const slow: AgentTool = tool("hold", () => new Promise((resolve) => setTimeout(() => resolve(textResult("held")), 30)), { concurrencyKey: () => "disk" });
    const streamFn = fauxProvider([
      { content: [fauxToolCall("hold", {}, "h"), fauxToolCall("rm", { p: 2 }, "b")] },
      { content: [fauxToolCall("rm", { p: 3 }, "b")] },
      { content: "done" },
    ]);
    const agent = new Agent({ initialState: { model, tools: [rm, slow] }, streamFn });
    const requests: string[] = [];
    agent.subscribe((event) => {
      if (event.type === "tool_approval_request") {
        requests.push(`${event.toolCallId} ${JSON.stringify(event.args)}`);
        // The first time: approved while b still waits behind hold, then the run is aborted.
        if (requests.length === 1) {
          agent.approve("b");
          agent.abort();
        }
      }
    });
    await agent.prompt("one");
    expect(ran).toEqual([]);
    const second = agent.prompt("two");
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Asked anew, not answered by the old approval.
    expect(agent.state.pendingApprovals.map((r) => r.args)).toEqual([{ p: 3 }]);
    agent.deny("b", "no");
    await second;
    expect(ran).toEqual([]);
  });

  it("R1 S5: edited arguments survive a second stop: the third process runs the human's arguments", async () => {
    const store = new InMemorySessionStore();
    const seen: unknown[] = [];
    const write = (hang: boolean): AgentTool =>
      tool("write", (_id, args) => (seen.push(args), hang ? new Promise(() => {}) : textResult("written")), { needsApproval: true, replay: "safe" });
    const agentWith = (owner: string, hang: boolean) =>
      new Agent({
        initialState: { model, tools: [{ ...write(hang), parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }] },
        streamFn: byTurn([{ content: [fauxToolCall("write", { path: "/etc/passwd" }, "w1")] }, { content: "done" }]),
        session: agentSession({ store, id: "s", owner, ...(owner === "a" ? {} : { takeover: true }) }),
      });
    const first = agentWith("a", true);
    await first.resume();
    const asked = nextRequest(first);
    void first.prompt("write it").catch(() => undefined);
    await asked;
    first.approve("w1", { args: { path: "/tmp/x" } });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const second = agentWith("b", true);
    // replay "safe": runs again with the approved arguments, and hangs again (so resume() never settles here).
    void second.resume().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const third = agentWith("c", false);
    await third.resume();
    await third.waitForIdle();
    expect(seen).toEqual([{ path: "/tmp/x" }, { path: "/tmp/x" }, { path: "/tmp/x" }]);
  });

  it("R1: while a resumed run waits for approvals the transcript cannot be replaced", async () => {
    const ran: string[] = [];
    const second = await resumedWhileWaiting(ran);
    expect(() => (second.state.messages = [])).toThrow("The resumed run waits for approvals: approve() or deny() them before changing the transcript.");
    expect(() => second.reset()).toThrow("The resumed run waits for approvals");
    expect(() => second.setSystemPrompt("x")).toThrow("The resumed run waits for approvals");
    second.deny("r1");
    await second.waitForIdle();
    second.state.messages = [];
    expect(second.state.messages).toEqual([]);
  });

  it("R1 R3: approved arguments that would move the call to another concurrency lane are refused", async () => {
    const ran: string[] = [];
    const write: AgentTool = tool("write", (id) => (ran.push(id), textResult("ok")), { needsApproval: true, concurrencyKey: (args) => (args as { path: string }).path });
    const agent = new Agent({ initialState: { model, tools: [write] }, streamFn: fauxProvider([{ content: [fauxToolCall("write", { path: "/a" }, "w1")] }, { content: "done" }]) });
    agent.subscribe((event) => {
      if (event.type === "tool_approval_request") agent.approve(event.toolCallId, { args: { path: "/b" } });
    });
    await agent.prompt("go");
    expect(ran).toEqual([]);
    expect(textOf(agent.state.messages.find((m) => (m as { toolCallId?: string }).toolCallId === "w1"))).toBe(
      'The arguments given with the approval change the call\'s concurrencyKey ("/a" → "/b"), so it was not run: ask again with the new arguments.',
    );
  });

  it("R2 S5: a run the time limit ends is journaled as aborted, so a resume does not continue it", async () => {
    const store = new InMemorySessionStore();
    const hang = tool("hang", () => new Promise(() => {}), { replay: "safe" });
    const agent = new Agent({
      initialState: { model, tools: [hang] },
      streamFn: byTurn([{ content: [fauxToolCall("hang", {}, "h1")] }, { content: "done" }]),
      limits: { timeoutMs: 20 },
      abortGraceMs: 10,
      session: agentSession({ store, id: "s" }),
    });
    await agent.resume();
    await agent.prompt("go");
    expect(agent.state.limit?.limit).toBe("timeoutMs");
    const types = store.load("s")!.entries.map((e) => e.type);
    expect(types.slice(types.indexOf("tool_started"))).toEqual(["tool_started", "tool_executing", "run_stopping", "tool_ended", "message", "message", "run_ended"]);
    expect(store.load("s")!.entries.find((e) => e.type === "run_stopping")).toMatchObject({ reason: "aborted" });
    // The result, then the answer the abort ended (SPEC L10).
    expect(roles(agent.state.messages).slice(-2)).toEqual(["toolResult", "assistant"]);
  });

  it("R4 R2: a call the abort reached that then runs into its time limit is reported 'ignored'", async () => {
    const hang = tool("hang", () => new Promise(() => {}));
    const agent = new Agent({ initialState: { model, tools: [hang] }, streamFn: fauxProvider([{ content: [fauxToolCall("hang", {}, "h1")] }, { content: "x" }]), limits: { toolTimeoutMs: 30 } });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") setTimeout(() => agent.abort(), 5);
    });
    await agent.prompt("go");
    expect(agent.state.cancellation).toEqual([{ toolCallId: "h1", toolName: "hang", status: "ignored" }]);
  });

  it("R1 L2: without requestApproval no tool_approval_request is emitted (nothing left unanswered)", () => {
    const provider = fauxProvider([{ content: [fauxToolCall("rm", {}, "1")] }, { content: "ok" }]);
    const types: string[] = [];
    const rm = tool("rm", () => textResult("x"), { needsApproval: true });
    collectLoop(provider, rm, types);
    expect(types.filter((t) => t.startsWith("tool_"))).toEqual(["tool_execution_start", "tool_execution_end"]);
  });

  it("R2 A4: reset() forgets the last run's limit and cancellation", async () => {
    const replies: FauxReply[] = Array.from({ length: 5 }, (_, i) => ({ content: [fauxToolCall("ls", {}, `l${i}`)] }));
    const agent = new Agent({ initialState: { model, tools: [tool("ls", () => textResult("x"))] }, streamFn: byTurn(replies), limits: { maxTurns: 1 } });
    await agent.prompt("go");
    expect(agent.state.limit).toBeDefined();
    agent.reset();
    expect(agent.state.limit).toBeUndefined();
    expect(agent.state.cancellation).toBeUndefined();
  });
});

function collectLoop(provider: ReturnType<typeof fauxProvider>, t: AgentTool, types: string[]): void {
  agentLoop([{ role: "user", content: "go", timestamp: 0 }], { messages: [], tools: [t] }, { model }, undefined, provider).subscribe((e) => types.push(e.type));
}
