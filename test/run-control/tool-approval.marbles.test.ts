/**
 * Approvals (SPEC R1) in virtual time: a call waits for its answer at exact frames while the
 * other calls of its batch go on; an approval, a denial, edited arguments, an abort while it
 * waits; and runs without approvals keep pi's event order. The virtual-time scenarios run in
 * rxjs-marbles' context (`marbles((m) => …)`, TestScheduler run mode: frame 1 = 1 ms), with
 * `m.scheduler` given to the loop; the others are synchronous runs.
 */
import { map, NEVER, type Observable, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentLoopConfig, AgentTool, ToolApprovalDecision, ToolApprovalRequest, ToolResultMessage } from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { agentEnd, collectSync, committed, contextWith, model, textOf, textResult, tool, user } from "../helpers/fixtures.js";
import { labelsByFrame, timerTool } from "../helpers/marbles.js";
import { marbles } from "../helpers/rxjs-marbles.js";

const onlyTools = map((labels: string[]) => labels.filter((l) => l.startsWith("tool_")));

function results(events: readonly AgentEvent[]): [string, boolean, string][] {
  return committed(events).flatMap((m) => ((m as ToolResultMessage).role === "toolResult" ? [[(m as ToolResultMessage).toolCallId, (m as ToolResultMessage).isError, textOf(m as ToolResultMessage)] as [string, boolean, string]] : []));
}

/** `timerTool` that asks for approval. */
function guarded(name: string, frames: number, extra: Partial<AgentTool> = {}): AgentTool {
  return timerTool(name, frames, name, { needsApproval: true, ...extra });
}

describe("R1: a call that needs approval waits; the others go on", () => {
  it(
    "R1 T4: approved at frame 20: the guarded call runs 20→30 while the free one ran 0→10",
    marbles((m) => {
      const requests: ToolApprovalRequest[] = [];
      const provider = fauxProvider([{ content: [fauxToolCall("rm", {}, "g"), fauxToolCall("ls", {}, "f")] }, { content: "done" }]);
      const config: AgentLoopConfig = {
        model,
        scheduler: m.scheduler,
        requestApproval: (request) => {
          requests.push(request);
          return m.cold<ToolApprovalDecision>("20ms (a|)", { a: { approved: true } });
        },
      };
      const run$ = agentLoop([user("go")], contextWith([guarded("rm", 10), timerTool("ls", 10)]), config, undefined, provider);
      m.expect(run$.pipe(labelsByFrame(m.scheduler, { updates: false }), onlyTools)).toBeObservable("a 9ms b 9ms c 9ms (d|)", {
        a: ["tool_execution_start:g", "tool_approval_request:g", "tool_execution_start:f"],
        b: ["tool_execution_end:f"],
        c: ["tool_approval_end:g:approved"],
        d: ["tool_execution_end:g"],
      });
      m.flush();
      expect(requests).toEqual([{ toolCallId: "g", toolName: "rm", args: {} }]);
    }),
  );

  it("R1 T3: a denial is an error result the model reads; the tool never runs", () => {
    let ran = false;
    const rm = tool("rm", () => ((ran = true), textResult("removed")), { type: "object" }, { needsApproval: true });
    const provider = fauxProvider([{ content: [fauxToolCall("rm", { path: "/" }, "1")] }, { content: "ok" }]);
    const events = collectSync(agentLoop([user("go")], contextWith([rm]), { model, requestApproval: () => ({ approved: false, reason: "Not the root folder." }) }, undefined, provider));
    expect(ran).toBe(false);
    expect(results(events)).toEqual([["1", true, 'Tool call "rm" was denied: Not the root folder.']]);
    const told = provider.requests[1]!.messages.at(-1) as ToolResultMessage;
    expect(textOf(told)).toBe('Tool call "rm" was denied: Not the root folder.');
    expect(events.find((e) => e.type === "tool_approval_end")).toEqual({ type: "tool_approval_end", toolCallId: "1", toolName: "rm", approved: false, reason: "Not the root folder." });
  });

  it("R1 L12: a plain-value answer keeps the whole run synchronous", () => {
    const provider = fauxProvider([{ content: [fauxToolCall("rm", {}, "1")] }, { content: "ok" }]);
    const rm = tool("rm", () => textResult("removed"), { type: "object" }, { needsApproval: true });
    const events = collectSync(agentLoop([user("go")], contextWith([rm]), { model, requestApproval: () => ({ approved: true }) }, undefined, provider));
    expect(results(events)).toEqual([["1", false, "removed"]]);
  });

  it("R1 T2: approved with edited arguments: they are validated again, and the call runs with them", () => {
    const seen: unknown[] = [];
    const params = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
    const rm = tool("rm", (_id, args) => (seen.push(args), textResult("removed")), params, { needsApproval: true });
    const provider = fauxProvider([{ content: [fauxToolCall("rm", { path: "/" }, "1"), fauxToolCall("rm", { path: "/tmp" }, "2")] }, { content: "ok" }]);
    const requestApproval = (request: ToolApprovalRequest): ToolApprovalDecision =>
      request.toolCallId === "1" ? { approved: true, args: { path: "/tmp/x" } } : { approved: true, args: {} };
    const events = collectSync(agentLoop([user("go")], contextWith([rm]), { model, requestApproval }, undefined, provider));
    expect(seen).toEqual([{ path: "/tmp/x" }]);
    const [first, second] = results(events);
    expect(first).toEqual(["1", false, "removed"]);
    expect(second![1]).toBe(true);
    expect(second![2]).toMatch(/^The arguments given with the approval are not valid: [^]*path: is required/);
  });

  it("R1: needsApproval as a function of the arguments decides per call", () => {
    const asked: string[] = [];
    const write = tool("write", () => textResult("written"), { type: "object", properties: { path: { type: "string" } } }, { needsApproval: (args) => (args as { path: string }).path.startsWith("/etc") });
    const provider = fauxProvider([{ content: [fauxToolCall("write", { path: "/tmp/a" }, "1"), fauxToolCall("write", { path: "/etc/b" }, "2")] }, { content: "ok" }]);
    collectSync(agentLoop([user("go")], contextWith([write]), { model, requestApproval: (r) => (asked.push(r.toolCallId), { approved: true }) }, undefined, provider));
    expect(asked).toEqual(["2"]);
  });

  it("R1 T2: beforeToolCall can ask for approval too", () => {
    const asked: string[] = [];
    const provider = fauxProvider([{ content: [fauxToolCall("ls", {}, "1")] }, { content: "ok" }]);
    collectSync(
      agentLoop([user("go")], contextWith([tool("ls", () => textResult("x"))]), { model, beforeToolCall: () => ({ needsApproval: true }), requestApproval: (r) => (asked.push(r.toolCallId), { approved: true }) }, undefined, provider),
    );
    expect(asked).toEqual(["1"]);
  });

  it("R1 T3: without requestApproval the call gets an error result that says so", () => {
    const provider = fauxProvider([{ content: [fauxToolCall("rm", {}, "1")] }, { content: "ok" }]);
    const events = collectSync(agentLoop([user("go")], contextWith([tool("rm", () => textResult("x"), { type: "object" }, { needsApproval: true })]), { model }, undefined, provider));
    expect(results(events)).toEqual([["1", true, 'Tool call "rm" needs approval, and nothing in this run can give it (no requestApproval).']]);
  });

  it("R1 T3: a failing requestApproval or a non-answer is an error result, never a crash", () => {
    const provider = fauxProvider([{ content: [fauxToolCall("rm", {}, "1"), fauxToolCall("rm", {}, "2")] }, { content: "ok" }]);
    const rm = tool("rm", () => textResult("x"), { type: "object" }, { needsApproval: true });
    const requestApproval = (r: ToolApprovalRequest): ToolApprovalDecision => {
      if (r.toolCallId === "1") throw new Error("desk closed");
      return "yes" as unknown as ToolApprovalDecision;
    };
    const events = collectSync(agentLoop([user("go")], contextWith([rm]), { model, requestApproval }, undefined, provider));
    expect(results(events)).toEqual([
      ["1", true, "requestApproval failed: desk closed"],
      ["2", true, 'requestApproval must answer { approved: true } or { approved: false, reason }, got "yes".'],
    ]);
  });

  it(
    "R1 R4 L10: an abort while a call waits answers it at once: approval ended 'aborted', the call not started, the wait unsubscribed",
    marbles((m) => {
      const answer = m.cold<ToolApprovalDecision>("-");
      const controller = new AbortController();
      m.scheduler.schedule(() => controller.abort(), 5);
      const provider = fauxProvider([{ content: [fauxToolCall("rm", {}, "g"), fauxToolCall("ls", {}, "f")] }, { content: "done" }]);
      const run$ = agentLoop([user("go")], contextWith([guarded("rm", 10), timerTool("ls", 3)]), { model, scheduler: m.scheduler, requestApproval: () => answer }, controller.signal, provider);
      const events: AgentEvent[] = [];
      m.expect(run$.pipe(map((e) => (events.push(e), e)), labelsByFrame(m.scheduler, { updates: false }), onlyTools)).toBeObservable("a 2ms b 1ms (c|)", {
        a: ["tool_execution_start:g", "tool_approval_request:g", "tool_execution_start:f"],
        b: ["tool_execution_end:f"],
        c: ["tool_approval_end:g:aborted", "tool_execution_end:g"],
      });
      m.expect(answer).toHaveSubscriptions("^----!");
      m.flush();
      const end = events.find((e) => e.type === "tool_execution_end" && e.toolCallId === "g") as Extract<AgentEvent, { type: "tool_execution_end" }>;
      expect(end.cancellation).toBe("not_started");
      expect(agentEnd(events).cancellation).toEqual([{ toolCallId: "g", toolName: "rm", status: "not_started" }]);
    }),
  );

  it(
    "R1 R3: a call waiting for approval holds no slot: with maxConcurrency 1 the others run meanwhile",
    marbles((m) => {
      const provider = fauxProvider([{ content: [fauxToolCall("rm", {}, "g"), fauxToolCall("ls", {}, "a"), fauxToolCall("ls", {}, "b")] }, { content: "done" }]);
      const run$ = agentLoop(
        [user("go")],
        contextWith([guarded("rm", 5), timerTool("ls", 4)]),
        { model, scheduler: m.scheduler, maxConcurrency: 1, requestApproval: () => m.cold<ToolApprovalDecision>("6ms (a|)", { a: { approved: true } }) },
        undefined,
        provider,
      );
      // a 0→4, b 4→8 (the slot), the answer at 6, g 8→13 once b frees the slot.
      m.expect(run$.pipe(labelsByFrame(m.scheduler, { updates: false }), onlyTools)).toBeObservable("a 3ms b 1ms c 1ms d 4ms (e|)", {
        a: ["tool_execution_start:g", "tool_approval_request:g", "tool_execution_start:a", "tool_execution_start:b"],
        b: ["tool_execution_end:a"],
        c: ["tool_approval_end:g:approved"],
        d: ["tool_execution_end:b"],
        e: ["tool_execution_end:g"],
      });
    }),
  );

  it(
    "R1 T4: sequential mode waits for the approval in place, then goes on",
    marbles((m) => {
      const provider = fauxProvider([{ content: [fauxToolCall("rm", {}, "g"), fauxToolCall("ls", {}, "f")] }, { content: "done" }]);
      const run$ = agentLoop(
        [user("go")],
        contextWith([guarded("rm", 2), timerTool("ls", 2)]),
        { model, scheduler: m.scheduler, toolExecution: "sequential", requestApproval: () => m.cold<ToolApprovalDecision>("3ms (a|)", { a: { approved: false } }) },
        undefined,
        provider,
      );
      m.expect(run$.pipe(labelsByFrame(m.scheduler, { updates: false }), onlyTools)).toBeObservable("a 2ms b 1ms (c|)", {
        a: ["tool_execution_start:g", "tool_approval_request:g"],
        b: ["tool_approval_end:g:denied", "tool_execution_end:g", "tool_execution_start:f"],
        c: ["tool_execution_end:f"],
      });
    }),
  );

  it("R1 L2: a run whose tools need no approval has pi's events exactly (no approval events, same order)", () => {
    const provider = () => fauxProvider([{ content: [fauxToolCall("ls", {}, "1"), fauxToolCall("ls", {}, "2")] }, { content: "ok" }]);
    const plain = collectSync(agentLoop([user("go")], contextWith([tool("ls", () => textResult("x"))]), { model }, undefined, provider())).map((e) => e.type);
    const withRule = collectSync(
      agentLoop([user("go")], contextWith([tool("ls", () => textResult("x"), { type: "object" }, { needsApproval: () => false })]), { model, requestApproval: () => NEVER as Observable<ToolApprovalDecision> }, undefined, provider()),
    ).map((e) => e.type);
    expect(withRule).toEqual(plain);
    expect(plain.some((t) => t.startsWith("tool_approval"))).toBe(false);
  });
});

describe("R1: a tool that never answers", () => {
  it(
    "R1 L10: an unsubscribe while a call waits tears the wait down and emits nothing more",
    marbles((m) => {
      const answer = m.cold<ToolApprovalDecision>("-");
      const provider = fauxProvider([{ content: [fauxToolCall("rm", {}, "g")] }, { content: "done" }]);
      const events: AgentEvent[] = [];
      const subscription = agentLoop([user("go")], contextWith([guarded("rm", 1)]), { model, scheduler: m.scheduler, requestApproval: () => answer }, undefined, provider).subscribe((e) => events.push(e));
      m.scheduler.schedule(() => subscription.unsubscribe(), 7);
      m.expect(answer).toHaveSubscriptions("^------!");
      m.flush();
      expect(events.at(-1)!.type).toBe("tool_approval_request");
    }),
  );
});

describe("R1: a needsApproval that answers later", () => {
  it(
    "R1 T3: a needsApproval Observable that errors at frame 4: an error result then, nobody asked; the next call's preflight waited for it",
    marbles((m) => {
      const asked: string[] = [];
      const rule = m.cold<boolean>("4ms #", undefined, new Error("policy store offline"));
      const provider = fauxProvider([{ content: [fauxToolCall("rm", {}, "g"), fauxToolCall("ls", {}, "f")] }, { content: "done" }]);
      const tools = [timerTool("rm", 1, "rm", { needsApproval: () => rule }), timerTool("ls", 2)];
      const events: AgentEvent[] = [];
      const run$ = agentLoop([user("go")], contextWith(tools), { model, scheduler: m.scheduler, requestApproval: (r) => (asked.push(r.toolCallId), { approved: true }) }, undefined, provider);
      m.expect(run$.pipe(map((e) => (events.push(e), e)), labelsByFrame(m.scheduler, { updates: false }), onlyTools)).toBeObservable("a 3ms b 1ms (c|)", {
        a: ["tool_execution_start:g"],
        b: ["tool_execution_end:g", "tool_execution_start:f"],
        c: ["tool_execution_end:f"],
      });
      m.flush();
      expect(asked).toEqual([]);
      expect(results(events)).toEqual([
        ["g", true, 'needsApproval of tool "rm" failed: policy store offline'],
        ["f", false, "ls"],
      ]);
    }),
  );

  it("R1 R4 L10: an abort at frame 2 while needsApproval decides (it would say yes at 6, or never): the call ends not started at 2, the rule unsubscribed, nobody asked", () => {
    for (const ruleMarbles of ["6ms (a|)", "-"]) {
      // one rxjs-marbles context (a fresh TestScheduler) per rule
      marbles((m) => {
        const asked: string[] = [];
        const controller = new AbortController();
        m.scheduler.schedule(() => controller.abort(), 2);
        const rule = m.cold<boolean>(ruleMarbles, { a: true });
        const provider = fauxProvider([{ content: [fauxToolCall("rm", {}, "g")] }, { content: "done" }]);
        const tools = [timerTool("rm", 1, "rm", { needsApproval: () => rule })];
        const events: AgentEvent[] = [];
        const run$ = agentLoop([user("go")], contextWith(tools), { model, scheduler: m.scheduler, requestApproval: (r) => (asked.push(r.toolCallId), { approved: true }) }, controller.signal, provider);
        m.expect(run$.pipe(map((e) => (events.push(e), e)), labelsByFrame(m.scheduler, { updates: false }), onlyTools)).toBeObservable("a 1ms (b|)", {
          a: ["tool_execution_start:g"],
          b: ["tool_execution_end:g"],
        });
        m.expect(rule).toHaveSubscriptions("^-!");
        m.flush();
        expect(asked).toEqual([]);
        expect(events.find((e) => e.type === "tool_execution_end")).toMatchObject({ toolCallId: "g", cancellation: "not_started" });
      })();
    }
  });
});

// `timer` keeps its import used by timerTool's users above.
void timer;
