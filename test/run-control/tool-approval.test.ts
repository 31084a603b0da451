/**
 * Approvals (SPEC R1, T3, L10, L12): what `tool_approval_end` says for each kind of answer, the
 * text the model reads, whether a call asks at all, and the abort cases around the question.
 */
import { getEventListeners } from "node:events";
import { EMPTY, NEVER, Subject } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentLoopConfig, AgentTool, ToolApprovalDecision, ToolResultMessage } from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { collectSync, committed, contextWith, model, textOf, textResult, tool, user } from "../helpers/fixtures.js";

type ApprovalEnd = Extract<AgentEvent, { type: "tool_approval_end" }>;

const params = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };

/** One call of `rm` (needs approval) answered by `answer`; its approval end and what the model read. */
function answeredWith(answer: unknown, extra: Partial<AgentTool> = {}, config: Partial<AgentLoopConfig> = {}): { end: ApprovalEnd | undefined; text: string; isError: boolean; ran: unknown[] } {
  const ran: unknown[] = [];
  const rm = tool("rm", (_id, args) => (ran.push(args), textResult("removed")), params, { needsApproval: true, ...extra });
  const provider = fauxProvider([{ content: [fauxToolCall("rm", { path: "/a" }, "1")] }, { content: "ok" }]);
  const events = collectSync(agentLoop([user("go")], contextWith([rm]), { model, requestApproval: () => answer as ToolApprovalDecision, ...config }, undefined, provider));
  const end = events.find((e): e is ApprovalEnd => e.type === "tool_approval_end");
  const result = committed(events).find((m) => (m as ToolResultMessage).role === "toolResult") as ToolResultMessage;
  return { end, text: textOf(result), isError: result.isError, ran };
}

describe("R1: the answer, as tool_approval_end and as the result", () => {
  it("R1: approved without edits: approved, no reason and no args on the event; the call runs with its own arguments", () => {
    const { end, text, ran } = answeredWith({ approved: true });
    expect(end).toEqual({ type: "tool_approval_end", toolCallId: "1", toolName: "rm", approved: true });
    expect("reason" in end!).toBe(false);
    expect("args" in end!).toBe(false);
    expect(text).toBe("removed");
    expect(ran).toEqual([{ path: "/a" }]);
  });

  it("R1 T2: approved with edits: the event carries the edited arguments", () => {
    const { end, ran } = answeredWith({ approved: true, args: { path: "/b" } });
    expect(end).toEqual({ type: "tool_approval_end", toolCallId: "1", toolName: "rm", approved: true, args: { path: "/b" } });
    expect(ran).toEqual([{ path: "/b" }]);
  });

  it("R1 T3: denied with a reason, with an empty one, with one that is not text", () => {
    expect(answeredWith({ approved: false, reason: "not today" })).toMatchObject({ end: { approved: false, reason: "not today" }, text: 'Tool call "rm" was denied: not today', isError: true, ran: [] });
    for (const reason of ["", 42, undefined]) {
      const { end, text } = answeredWith({ approved: false, reason });
      expect(end).toEqual({ type: "tool_approval_end", toolCallId: "1", toolName: "rm", approved: false });
      expect(text).toBe('Tool call "rm" was denied.');
    }
  });

  it("R1 T3: a non-answer is described: nothing, a value JSON cannot write, a cyclic object, null, approved not a boolean", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const got = (answer: unknown) => /got ([^]*)\.$/.exec(answeredWith(answer).text)?.[1];
    expect(got(undefined)).toBe("nothing");
    expect(got(10n)).toBe("10");
    expect(got(cyclic)).toBe("[object Object]");
    expect(got(null)).toBe("null");
    expect(got({ approved: "yes" })).toBe('{"approved":"yes"}');
    expect(got(Symbol.for("s"))).toBe("Symbol(s)");
    expect(answeredWith(null)).toMatchObject({ end: { approved: false, reason: "no decision" }, isError: true, ran: [] });
  });

  it("R1 T3: edited arguments that fail validation: the event says why, the call does not run", () => {
    const { end, text, ran } = answeredWith({ approved: true, args: {} });
    expect(end).toEqual({ type: "tool_approval_end", toolCallId: "1", toolName: "rm", approved: false, reason: "invalid arguments" });
    expect(text).toMatch(/^The arguments given with the approval are not valid: /);
    expect(ran).toEqual([]);
  });
});

describe("R1 R3: edited arguments and the call's lane", () => {
  it("R3: the same key runs; a key that appears or changes is refused with both keys named, one that fails with its error", () => {
    const keyed = (keyOf: (args: unknown) => string | undefined) => ({ concurrencyKey: keyOf });
    const byPath = keyed((args) => (args as { path: string }).path);
    expect(answeredWith({ approved: true, args: { path: "/a" } }, byPath).ran).toEqual([{ path: "/a" }]);
    const moved = answeredWith({ approved: true, args: { path: "/b" } }, byPath);
    expect(moved.end).toMatchObject({ approved: false, reason: "concurrency key changed" });
    expect(moved.text).toBe('The arguments given with the approval change the call\'s concurrencyKey ("/a" → "/b"), so it was not run: ask again with the new arguments.');
    const appears = answeredWith({ approved: true, args: { path: "/etc" } }, keyed((args) => ((args as { path: string }).path === "/etc" ? "etc" : undefined)));
    expect(appears.text).toMatch(/\(null → "etc"\)/);
    const numeric = answeredWith({ approved: true, args: { path: "/a" } }, { concurrencyKey: () => 7 as unknown as string });
    expect(numeric.ran).toEqual([{ path: "/a" }]);
    const failing = answeredWith({ approved: true, args: { path: "/b" } }, keyed((args) => {
      if ((args as { path: string }).path === "/b") throw new Error("no key");
      return "k";
    }));
    expect(failing.text).toBe('concurrencyKey of tool "rm" failed on the approved arguments: no key');
    expect(failing.ran).toEqual([]);
  });
});

describe("R1 R4: aborts around the question", () => {
  it("R1 R4: an approver that aborts the run and approves: the call does not run, it was not started", () => {
    const controller = new AbortController();
    const ran: unknown[] = [];
    const rm = tool("rm", (_id, args) => (ran.push(args), textResult("removed")), params, { needsApproval: true });
    const provider = fauxProvider([{ content: [fauxToolCall("rm", { path: "/a" }, "1")] }, { content: "ok" }]);
    const events = collectSync(agentLoop([user("go")], contextWith([rm]), { model, requestApproval: () => (controller.abort(), { approved: true }) }, controller.signal, provider));
    expect(events.find((e) => e.type === "tool_approval_end")).toMatchObject({ approved: false, reason: "aborted" });
    expect(events.find((e) => e.type === "tool_execution_end")).toMatchObject({ cancellation: "not_started" });
    expect(ran).toEqual([]);
  });

  it("R1 T3: an approver that aborts the run and throws: the failure is what the event says", () => {
    const controller = new AbortController();
    const rm = tool("rm", () => textResult("removed"), params, { needsApproval: true });
    const provider = fauxProvider([{ content: [fauxToolCall("rm", { path: "/a" }, "1")] }, { content: "ok" }]);
    const requestApproval = (): ToolApprovalDecision => {
      controller.abort();
      throw new Error("desk closed");
    };
    const events = collectSync(agentLoop([user("go")], contextWith([rm]), { model, requestApproval }, controller.signal, provider));
    expect(events.find((e) => e.type === "tool_approval_end")).toMatchObject({ approved: false, reason: "requestApproval failed" });
  });

  it("R1 R4: a run aborted after preflight, before the question: nobody is asked, the call was not started", () => {
    const controller = new AbortController();
    const asked: string[] = [];
    const rm = tool("rm", () => textResult("removed"), params, { needsApproval: true });
    const ls = tool("ls", () => textResult("listed"));
    const provider = fauxProvider([{ content: [fauxToolCall("rm", { path: "/a" }, "1"), fauxToolCall("ls", {}, "2")] }, { content: "ok" }]);
    // The second call's preflight aborts the run: the first call's question would come after it.
    const beforeToolCall: AgentLoopConfig["beforeToolCall"] = ({ toolCall }) => void (toolCall.id === "2" && controller.abort());
    const events = collectSync(agentLoop([user("go")], contextWith([rm, ls]), { model, beforeToolCall, requestApproval: (r) => (asked.push(r.toolCallId), { approved: true }) }, controller.signal, provider));
    expect(asked).toEqual([]);
    expect(events.find((e) => e.type === "tool_approval_end")).toMatchObject({ toolCallId: "1", approved: false, reason: "aborted" });
  });
});

describe("R1: whether a call asks at all", () => {
  /** One call of `rm` with `extra`; what the approver was asked and what the model read. */
  function askedFor(extra: Partial<AgentTool>, config: Partial<AgentLoopConfig> = {}): { asked: string[]; events: AgentEvent[]; text: string; ran: number } {
    const asked: string[] = [];
    let ran = 0;
    const rm = tool("rm", () => (ran++, textResult("removed")), params, extra);
    const provider = fauxProvider([{ content: [fauxToolCall("rm", { path: "/a" }, "1")] }, { content: "ok" }]);
    const requestApproval = (request: { toolCallId: string }): ToolApprovalDecision => (asked.push(request.toolCallId), { approved: true });
    const events = collectSync(agentLoop([user("go")], contextWith([rm]), { model, requestApproval, ...config }, undefined, provider));
    const result = committed(events).find((m) => (m as ToolResultMessage).role === "toolResult") as ToolResultMessage;
    return { asked, events, text: textOf(result), ran };
  }

  it("R1: needsApproval false, or absent: the call runs and nobody is asked", () => {
    expect(askedFor({ needsApproval: false })).toMatchObject({ asked: [], text: "removed", ran: 1 });
    expect(askedFor({})).toMatchObject({ asked: [], text: "removed", ran: 1 });
    // With a call budget every call goes through run control's admission, which reads the rule too.
    expect(askedFor({ needsApproval: false }, { limits: { maxToolCalls: 5 } })).toMatchObject({ asked: [], text: "removed", ran: 1 });
  });

  it("R1 T3: a needsApproval function that throws is an error result naming the tool; nobody is asked, nothing runs", () => {
    const { asked, events, text, ran } = askedFor({
      needsApproval: () => {
        throw new Error("policy store offline");
      },
    });
    expect(text).toBe('needsApproval of tool "rm" failed: policy store offline');
    expect({ asked, ran }).toEqual({ asked: [], ran: 0 });
    expect(events.some((e) => e.type === "tool_approval_request")).toBe(false);
  });

  it("R1 R4: a needsApproval that aborts the run and says yes: the call is not started, with no approval events", () => {
    const controller = new AbortController();
    const rm = tool("rm", () => textResult("removed"), params, { needsApproval: () => (controller.abort(), true) });
    const provider = fauxProvider([{ content: [fauxToolCall("rm", { path: "/a" }, "1")] }, { content: "ok" }]);
    const events = collectSync(agentLoop([user("go")], contextWith([rm]), { model, requestApproval: () => ({ approved: true }) }, controller.signal, provider));
    expect(events.filter((e) => e.type.startsWith("tool_approval"))).toEqual([]);
    expect(events.find((e) => e.type === "tool_execution_end")).toMatchObject({ toolCallId: "1", cancellation: "not_started" });
  });

  it("R1 T3: beforeToolCall asked for approval: that stands, the tool's own rule is not asked", () => {
    let rule = 0;
    const needsApproval = (): boolean => {
      rule++;
      throw new Error("must not be asked");
    };
    const { asked, text, ran } = askedFor({ needsApproval }, { beforeToolCall: () => ({ needsApproval: true }) });
    expect({ rule, asked, text, ran }).toEqual({ rule: 0, asked: ["1"], text: "removed", ran: 1 });
  });
});

describe("R3: edited arguments of a call without a key", () => {
  it("R3: a concurrencyKey that gives no key for the sent and for the edited arguments: the edit runs", () => {
    const none = { concurrencyKey: () => undefined };
    const { end, ran } = answeredWith({ approved: true, args: { path: "/b" } }, none);
    expect(end).toMatchObject({ approved: true, args: { path: "/b" } });
    expect(ran).toEqual([{ path: "/b" }]);
  });
});

describe("R1 R4 L10: the wait and the run's signal", () => {
  it("R1 R4: an approver that aborts the run and answers with something that never settles: the wait ends at once, 'aborted'", () => {
    const controller = new AbortController();
    const rm = tool("rm", () => textResult("removed"), params, { needsApproval: true });
    const provider = fauxProvider([{ content: [fauxToolCall("rm", { path: "/a" }, "1")] }, { content: "ok" }]);
    const events = collectSync(agentLoop([user("go")], contextWith([rm]), { model, requestApproval: () => (controller.abort(), NEVER) }, controller.signal, provider));
    expect(events.find((e) => e.type === "tool_approval_end")).toMatchObject({ approved: false, reason: "aborted" });
    expect(events.at(-1)!.type).toBe("agent_end");
  });

  it("R1 R4: an approver that aborts the run and returns a promise: 'aborted' at once, and the promise's rejection is handled", () => {
    const controller = new AbortController();
    const rm = tool("rm", () => textResult("removed"), params, { needsApproval: true });
    const provider = fauxProvider([{ content: [fauxToolCall("rm", { path: "/a" }, "1")] }, { content: "ok" }]);
    // A thenable that never settles and records who listens for its rejection.
    const rejectionHandlers: unknown[] = [];
    const pending = { then: (_onValue: unknown, onRejection: unknown) => void rejectionHandlers.push(onRejection) } as unknown as Promise<ToolApprovalDecision>;
    const events = collectSync(agentLoop([user("go")], contextWith([rm]), { model, requestApproval: () => (controller.abort(), pending) }, controller.signal, provider));
    expect(events.find((e) => e.type === "tool_approval_end")).toMatchObject({ approved: false, reason: "aborted" });
    expect(rejectionHandlers).toHaveLength(1);
    expect(rejectionHandlers[0]).toBeTypeOf("function");
  });

  it("R1 T3: an approver whose Observable completes with no answer, the run not aborted: 'no decision'", () => {
    expect(answeredWith(EMPTY)).toMatchObject({ end: { approved: false, reason: "no decision" }, isError: true, ran: [] });
  });

  it("R1 R4: an abort from a listener of tool_approval_end is the run's: one approval end, not a second answer", () => {
    const controller = new AbortController();
    const answer = new Subject<ToolApprovalDecision>();
    const rm = tool("rm", () => textResult("removed"), params, { needsApproval: true });
    const provider = fauxProvider([{ content: [fauxToolCall("rm", { path: "/a" }, "1")] }, { content: "ok" }]);
    const events: AgentEvent[] = [];
    agentLoop([user("go")], contextWith([rm]), { model, requestApproval: () => answer }, controller.signal, provider).subscribe((event) => {
      events.push(event);
      if (event.type === "tool_approval_end") controller.abort();
    });
    answer.next({ approved: true });
    answer.complete();
    expect(events.filter((e) => e.type === "tool_approval_end")).toEqual([{ type: "tool_approval_end", toolCallId: "1", toolName: "rm", approved: true }]);
  });

  it("R1 L10: an unsubscribe while a call waits leaves no abort listener on the signal the approver got", () => {
    let signal: AbortSignal | undefined;
    const rm = tool("rm", () => textResult("removed"), params, { needsApproval: true });
    const provider = fauxProvider([{ content: [fauxToolCall("rm", { path: "/a" }, "1")] }, { content: "ok" }]);
    const subscription = agentLoop([user("go")], contextWith([rm]), { model, requestApproval: (_request, given) => ((signal = given), NEVER) }, undefined, provider).subscribe();
    expect(getEventListeners(signal!, "abort").length).toBeGreaterThan(0);
    subscription.unsubscribe();
    expect(getEventListeners(signal!, "abort")).toEqual([]);
  });
});
