/**
 * The loop's timing in virtual time (SPEC L12): every scenario runs in rxjs-marbles' context
 * (`marbles((m) => …)`, TestScheduler run mode: frame 1 = 1 ms), with `m.scheduler` passed to the
 * loop (timestamps, durations) and to the scripted provider (one event per frame where the test
 * says so). Each busy frame is one marble value: the labels of that frame's events (see
 * test/helpers/marbles.ts). Contents are asserted separately, after `m.flush()` has run the
 * virtual time out.
 */
import { concat, finalize, from, map, type ObservableInput, of, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop, runAgentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentMessage, AgentTool, AssistantMessageEvent, StreamFn, ToolResultMessage } from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { agentEnd, committed, contextWith, model, roles, textOf, textResult, tool, user } from "../helpers/fixtures.js";
import { label, labelsByFrame, progress, timerTool } from "../helpers/marbles.js";
import { marbles } from "../helpers/rxjs-marbles.js";

const PROMPT = ["agent_start", "turn_start", "message_start:user", "message_end:user"];

function toolResults(events: readonly AgentEvent[]): ToolResultMessage[] {
  return committed(events).filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult");
}

describe("agentLoop in virtual time", () => {
  it(
    "L12 L5: a plain text reply streams one event per frame and ends in the frame of `done`",
    marbles((m) => {
      const events: AgentEvent[] = [];
      // start at 0, text_start 1, text_delta 2, text_end 3, done 4
      const provider = fauxProvider([{ content: "Hi" }], { scheduler: m.scheduler, delay: 1 });
      const run$ = agentLoop([user("hello")], { messages: [] }, { model, scheduler: m.scheduler }, undefined, provider);
      m.expect(run$.pipe(map((e) => (events.push(e), e)), labelsByFrame(m.scheduler))).toBeObservable("abcd(e|)", {
        a: [...PROMPT, "message_start:assistant"],
        b: ["message_update:text_start"],
        c: ["message_update:text_delta"],
        d: ["message_update:text_end"],
        e: ["message_end:assistant", "turn_end", "agent_end"],
      });
      m.flush();
      const end = agentEnd(events);
      expect(roles(end.messages)).toEqual(["user", "assistant"]);
      expect(textOf(end.messages[1])).toBe("Hi");
      // the assistant's timestamp comes from the virtual clock
      expect((end.messages[1] as { timestamp: number }).timestamp).toBe(0);
    }),
  );

  it(
    "L3 T4: a tool round trip — request, tool for 5 frames, second request",
    marbles((m) => {
      const events: AgentEvent[] = [];
      // request 1: start 0, toolcall_start 1, toolcall_delta 2, toolcall_end 3, done 4
      // tool: 4 → 9; request 2: start 9, text 10..12, done 13
      const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "a")] }, { content: "ok" }], { scheduler: m.scheduler, delay: 1 });
      const run$ = agentLoop([user("go")], contextWith([timerTool("echo", 5, "echoed")]), { model, scheduler: m.scheduler }, undefined, provider);
      m.expect(run$.pipe(map((e) => (events.push(e), e)), labelsByFrame(m.scheduler))).toBeObservable("abcde 4ms fghi(j|)", {
        a: [...PROMPT, "message_start:assistant"],
        b: ["message_update:toolcall_start"],
        c: ["message_update:toolcall_delta"],
        d: ["message_update:toolcall_end"],
        e: ["message_end:assistant", "tool_execution_start:a"],
        f: ["tool_execution_end:a", "message_start:toolResult:a", "message_end:toolResult:a", "turn_end", "turn_start", "message_start:assistant"],
        g: ["message_update:text_start"],
        h: ["message_update:text_delta"],
        i: ["message_update:text_end"],
        j: ["message_end:assistant", "turn_end", "agent_end"],
      });
      m.flush();
      const [result] = toolResults(events);
      expect(textOf(result)).toBe("echoed");
      expect(result!.durationMs).toBe(5);
      expect(result!.timestamp).toBe(9);
      expect(roles(agentEnd(events).messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    }),
  );

  it(
    "T4: three parallel tools of 30/10/20 frames end in completion order; results keep source order",
    marbles((m) => {
      const events: AgentEvent[] = [];
      const tools = [timerTool("slow", 30), timerTool("fast", 10), timerTool("medium", 20)];
      const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "a"), fauxToolCall("fast", {}, "b"), fauxToolCall("medium", {}, "c")] }, { content: "done" }]);
      const run$ = agentLoop([user("go")], contextWith(tools), { model, scheduler: m.scheduler }, undefined, provider);
      //                                                          frame: 0      10       20       30
      m.expect(run$.pipe(map((e) => (events.push(e), e)), labelsByFrame(m.scheduler, { updates: false }))).toBeObservable("a 9ms b 9ms c 9ms (d|)", {
        a: [...PROMPT, "message_start:assistant", "message_end:assistant", "tool_execution_start:a", "tool_execution_start:b", "tool_execution_start:c"],
        b: ["tool_execution_end:b"],
        c: ["tool_execution_end:c"],
        d: [
          "tool_execution_end:a",
          "message_start:toolResult:a",
          "message_end:toolResult:a",
          "message_start:toolResult:b",
          "message_end:toolResult:b",
          "message_start:toolResult:c",
          "message_end:toolResult:c",
          "turn_end",
          "turn_start",
          "message_start:assistant",
          "message_end:assistant",
          "turn_end",
          "agent_end",
        ],
      });
      m.flush();
      const results = toolResults(events);
      expect(results.map((r) => [r.toolCallId, textOf(r), r.durationMs])).toEqual([
        ["a", "slow", 30],
        ["b", "fast", 10],
        ["c", "medium", 20],
      ]);
      const turnEnd = events.find((e): e is Extract<AgentEvent, { type: "turn_end" }> => e.type === "turn_end")!;
      expect(turnEnd.toolResults.map((r) => r.toolCallId)).toEqual(["a", "b", "c"]);
      const ends = events.filter((e): e is Extract<AgentEvent, { type: "tool_execution_end" }> => e.type === "tool_execution_end");
      expect(ends.map((e) => e.durationMs)).toEqual([10, 20, 30]);
    }),
  );

  it(
    "T4: the same batch in sequential mode runs one call at a time, each result right after its call",
    marbles((m) => {
      const tools = [timerTool("slow", 30), timerTool("fast", 10), timerTool("medium", 20)];
      const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "a"), fauxToolCall("fast", {}, "b"), fauxToolCall("medium", {}, "c")] }, { content: "done" }]);
      const run$ = agentLoop([user("go")], contextWith(tools), { model, scheduler: m.scheduler, toolExecution: "sequential" }, undefined, provider);
      //                                                          frame: 0      30       40        60
      m.expect(run$.pipe(labelsByFrame(m.scheduler, { updates: false }))).toBeObservable("a 29ms b 9ms c 19ms (d|)", {
        a: [...PROMPT, "message_start:assistant", "message_end:assistant", "tool_execution_start:a"],
        b: ["tool_execution_end:a", "message_start:toolResult:a", "message_end:toolResult:a", "tool_execution_start:b"],
        c: ["tool_execution_end:b", "message_start:toolResult:b", "message_end:toolResult:b", "tool_execution_start:c"],
        d: [
          "tool_execution_end:c",
          "message_start:toolResult:c",
          "message_end:toolResult:c",
          "turn_end",
          "turn_start",
          "message_start:assistant",
          "message_end:assistant",
          "turn_end",
          "agent_end",
        ],
      });
    }),
  );

  it(
    "L7: steering sent while a tool runs appears only after the whole batch",
    marbles((m) => {
      const events: AgentEvent[] = [];
      const polledAt: number[] = [];
      const queue: AgentMessage[] = [];
      const tools = [timerTool("slow", 30), timerTool("fast", 10)];
      const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "a"), fauxToolCall("fast", {}, "b")] }, { content: "steered" }]);
      // the user types at frame 15, while "slow" still runs
      m.cold("15ms s", { s: user("change of plan") }).subscribe((message) => queue.push(message));
      const getSteeringMessages = () => {
        polledAt.push(m.scheduler.now());
        return queue.splice(0);
      };
      const run$ = agentLoop([user("go")], contextWith(tools), { model, scheduler: m.scheduler, getSteeringMessages }, undefined, provider);
      m.expect(run$.pipe(map((e) => (events.push(e), e)), labelsByFrame(m.scheduler, { updates: false }))).toBeObservable("a 9ms b 19ms (c|)", {
        a: [...PROMPT, "message_start:assistant", "message_end:assistant", "tool_execution_start:a", "tool_execution_start:b"],
        b: ["tool_execution_end:b"],
        c: [
          "tool_execution_end:a",
          "message_start:toolResult:a",
          "message_end:toolResult:a",
          "message_start:toolResult:b",
          "message_end:toolResult:b",
          "turn_end",
          "turn_start",
          "message_start:user",
          "message_end:user",
          "message_start:assistant",
          "message_end:assistant",
          "turn_end",
          "agent_end",
        ],
      });
      m.flush();
      // polled at run start, after turn 1 (not again after prepareNextTurn: a message is pending), after turn 2
      expect(polledAt).toEqual([0, 30, 30]);
      expect(roles(agentEnd(events).messages)).toEqual(["user", "assistant", "toolResult", "toolResult", "user", "assistant"]);
      expect(roles(provider.requests[1]!.messages)).toEqual(["system", "user", "assistant", "toolResult", "toolResult", "user"]);
      expect(textOf(provider.requests[1]!.messages[5])).toBe("change of plan");
    }),
  );

  it(
    "L7: follow-up after a natural stop starts a new turn in the frame the run would have ended",
    marbles((m) => {
      const followUpPolledAt: number[] = [];
      const queue: AgentMessage[] = [];
      const events: AgentEvent[] = [];
      // reply 1: 0..4; the follow-up is queued at frame 2, while the reply streams; reply 2: 4..8
      const provider = fauxProvider([{ content: "one" }, { content: "two" }], { scheduler: m.scheduler, delay: 1 });
      m.cold("--f", { f: user("and then?") }).subscribe((message) => queue.push(message));
      const getFollowUpMessages = () => {
        followUpPolledAt.push(m.scheduler.now());
        return queue.splice(0, 1);
      };
      const run$ = agentLoop([user("hello")], { messages: [] }, { model, scheduler: m.scheduler, getFollowUpMessages }, undefined, provider);
      m.expect(run$.pipe(map((e) => (events.push(e), e)), labelsByFrame(m.scheduler, { updates: false }))).toBeObservable("a 3ms b 3ms (c|)", {
        a: [...PROMPT, "message_start:assistant"],
        b: ["message_end:assistant", "turn_end", "turn_start", "message_start:user", "message_end:user", "message_start:assistant"],
        c: ["message_end:assistant", "turn_end", "agent_end"],
      });
      m.flush();
      // only when the run would otherwise stop (SPEC L7)
      expect(followUpPolledAt).toEqual([4, 8]);
      expect(agentEnd(events).messages.map(textOf)).toEqual(["hello", "one", "and then?", "two"]);
    }),
  );

  it(
    "L10: abort during a tool tears the Observable tool down at that frame and ends with an aborted assistant message",
    marbles((m) => {
      const events: AgentEvent[] = [];
      let tornDownAt: number | undefined;
      let signalFiredAt: number | undefined;
      const controller = new AbortController();
      m.cold("15ms x").subscribe(() => controller.abort());
      const slow: AgentTool = tool("slow", (_id, _params, signal) => {
        signal.addEventListener("abort", () => (signalFiredAt = m.scheduler.now()));
        return timer(30).pipe(
          map(() => textResult("finished")),
          finalize(() => (tornDownAt = m.scheduler.now())),
        );
      });
      const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "a")] }, { content: "never sent" }]);
      const run$ = agentLoop([user("go")], contextWith([slow]), { model, scheduler: m.scheduler }, controller.signal, provider);
      m.expect(run$.pipe(map((e) => (events.push(e), e)), labelsByFrame(m.scheduler, { updates: false }))).toBeObservable("a 14ms (b|)", {
        a: [...PROMPT, "message_start:assistant", "message_end:assistant", "tool_execution_start:a"],
        b: [
          "tool_execution_end:a",
          "message_start:toolResult:a",
          "message_end:toolResult:a",
          "turn_end",
          "turn_start",
          "message_start:assistant",
          "message_end:assistant",
          "turn_end",
          "agent_end",
        ],
      });
      m.flush();
      expect(tornDownAt).toBe(15);
      expect(signalFiredAt).toBe(15);
      const [result] = toolResults(events);
      expect(result).toMatchObject({ toolCallId: "a", isError: true, content: [{ type: "text", text: "Operation aborted" }] });
      const messages = agentEnd(events).messages;
      expect(messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
      expect(provider.requests).toHaveLength(1);
    }),
  );

  it(
    "L10: a graceful abort while streaming ends the response at that frame with an aborted message keeping the partial",
    marbles((m) => {
      const events: AgentEvent[] = [];
      const controller = new AbortController();
      m.cold("---x").subscribe(() => controller.abort());
      // start 0, text_start 1, text_delta "ab" 2, text_delta "cd" 3 would come next
      const provider = fauxProvider([{ content: "abcdef" }], { scheduler: m.scheduler, delay: 1, chunkSize: 2 });
      const run$ = agentLoop([user("hello")], { messages: [] }, { model, scheduler: m.scheduler }, controller.signal, provider);
      m.expect(run$.pipe(map((e) => (events.push(e), e)), labelsByFrame(m.scheduler))).toBeObservable("abc(d|)", {
        a: [...PROMPT, "message_start:assistant"],
        b: ["message_update:text_start"],
        c: ["message_update:text_delta"],
        d: ["message_end:assistant", "turn_end", "agent_end"],
      });
      m.flush();
      const final = agentEnd(events).messages[1];
      expect(final).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted" });
      expect(textOf(final)).toBe("ab");
    }),
  );

  it(
    "L10: unsubscribing during streaming aborts the provider's signal and unsubscribes it at that frame; nothing more is emitted",
    marbles((m) => {
      let abortedAt: number | undefined;
      let providerTornDownAt: number | undefined;
      const faux = fauxProvider([{ content: "a long reply in many chunks" }], { scheduler: m.scheduler, delay: 1, chunkSize: 2 });
      const streamFn: StreamFn = (requested, context, options) => {
        options.signal?.addEventListener("abort", () => (abortedAt = m.scheduler.now()));
        return from(faux(requested, context, options) as ObservableInput<AssistantMessageEvent>).pipe(finalize(() => (providerTornDownAt = m.scheduler.now())));
      };
      const run$ = agentLoop([user("hello")], { messages: [] }, { model, scheduler: m.scheduler }, undefined, streamFn);
      m.expect(run$.pipe(labelsByFrame(m.scheduler)), "^--!").toBeObservable("abc", {
        a: [...PROMPT, "message_start:assistant"],
        b: ["message_update:text_start"],
        c: ["message_update:text_delta"],
      });
      m.flush();
      expect(abortedAt).toBe(3);
      expect(providerTornDownAt).toBe(3);
    }),
  );

  it(
    "L10: unsubscribing during a tool unsubscribes the Observable tool and fires its AbortSignal at that frame",
    marbles((m) => {
      let tornDownAt: number | undefined;
      let signalFiredAt: number | undefined;
      const after: AgentEvent[] = [];
      const slow: AgentTool = tool("slow", (_id, _params, signal) => {
        signal.addEventListener("abort", () => (signalFiredAt = m.scheduler.now()));
        return timer(30).pipe(
          map(() => textResult("finished")),
          finalize(() => (tornDownAt = m.scheduler.now())),
        );
      });
      const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "a")] }, { content: "never" }]);
      const run$ = agentLoop([user("go")], contextWith([slow]), { model, scheduler: m.scheduler }, undefined, provider);
      m.expect(
        run$.pipe(
          map((e) => {
            if (m.scheduler.now() > 0) after.push(e);
            return e;
          }),
          labelsByFrame(m.scheduler, { updates: false }),
        ),
        "^ 11ms !",
      ).toBeObservable("a", {
        a: [...PROMPT, "message_start:assistant", "message_end:assistant", "tool_execution_start:a"],
      });
      m.flush();
      expect(tornDownAt).toBe(12);
      expect(signalFiredAt).toBe(12);
      expect(after).toEqual([]);
    }),
  );

  it(
    "L10: after unsubscribing mid-batch nothing runs on: no hook, no emit, no request; every running tool is torn down",
    marbles((m) => {
      const calls: string[] = [];
      const tornDown: Record<string, number> = {};
      const timed = (name: string, frames: number) =>
        tool(name, () => timer(frames).pipe(map(() => textResult(name)), finalize(() => (tornDown[name] = m.scheduler.now()))));
      const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "a"), fauxToolCall("fast", {}, "b")] }, { content: "never" }]);
      const at = (name: string) => () => void calls.push(`${name}@${m.scheduler.now()}`);
      const run$ = runAgentLoop({
        prompts: [user("go")],
        context: contextWith([timed("slow", 30), timed("fast", 20)]),
        config: { model, scheduler: m.scheduler, afterToolCall: at("afterToolCall"), finishTurn: at("finishTurn"), getSteeringMessages: () => (at("steering")(), []), getFollowUpMessages: () => (at("followUp")(), []) },
        streamFn: provider,
        // the emit sees every event before the subscriber: nothing may reach it after the cancel
        emit: (event) => void calls.push(`emit ${event.type}@${m.scheduler.now()}`),
      });
      m.expect(run$.pipe(labelsByFrame(m.scheduler, { updates: false })), "^ 11ms !").toBeObservable("a", {
        a: [...PROMPT, "message_start:assistant", "message_end:assistant", "tool_execution_start:a", "tool_execution_start:b"],
      });
      m.flush();
      expect(calls.filter((c) => !c.endsWith("@0"))).toEqual([]);
      expect(tornDown).toEqual({ slow: 12, fast: 12 });
      expect(provider.requests).toHaveLength(1);
    }),
  );

  it(
    "L11: an emit returning timer(50) delays the next phase by exactly 50 frames",
    marbles((m) => {
      const seen: string[] = [];
      const provider = fauxProvider([{ content: "Hi" }]);
      const emit = (event: AgentEvent) => {
        seen.push(label(event));
        // the loop waits after the prompt is committed (the Agent uses this as its listener barrier)
        return event.type === "message_end" && (event.message as { role: string }).role === "user" ? timer(50) : undefined;
      };
      const run$ = runAgentLoop({ prompts: [user("hello")], context: { messages: [] }, config: { model, scheduler: m.scheduler }, streamFn: provider, emit });
      m.expect(run$.pipe(labelsByFrame(m.scheduler, { updates: false }))).toBeObservable("a 49ms (b|)", {
        a: PROMPT,
        b: ["message_start:assistant", "message_end:assistant", "turn_end", "agent_end"],
      });
      m.flush();
      expect(seen.filter((t) => !t.startsWith("message_update"))).toEqual([...PROMPT, "message_start:assistant", "message_end:assistant", "turn_end", "agent_end"]);
    }),
  );

  it(
    "L11: emit is called with each event before the subscriber sees it, and an emit Observable per tool update waits too",
    marbles((m) => {
      const log: string[] = [];
      const provider = fauxProvider([{ content: [fauxToolCall("t", {}, "a")] }, { content: "ok" }]);
      // emits at 0, 10, 20 and completes at 20: ticks 0 and 1 stand, so they are shown in their
      // own frames (T1); tick 2 is followed by completion in the same frame, so it is the result only
      const t = tool("t", () => concat(of(textResult("tick 0")), progress(1, 10, (i) => textResult(`tick ${i + 1}`))));
      // each update's emit waits 5 frames (0→5, 10→15); the tool runs on meanwhile, its result at 20
      const emit = (event: AgentEvent) => {
        log.push(`emit ${event.type}`);
        return event.type === "tool_execution_update" ? timer(5) : undefined;
      };
      const run$ = runAgentLoop({ prompts: [user("go")], context: contextWith([t]), config: { model, scheduler: m.scheduler }, streamFn: provider, emit });
      const labels = run$.pipe(
        map((e) => {
          log.push(`next ${e.type}`);
          return e;
        }),
        labelsByFrame(m.scheduler, { updates: false }),
      );
      m.expect(labels).toBeObservable("a 9ms b 9ms (d|)", {
        a: [...PROMPT, "message_start:assistant", "message_end:assistant", "tool_execution_start:a", "tool_execution_update:a"],
        b: ["tool_execution_update:a"],
        d: ["tool_execution_end:a", "message_start:toolResult:a", "message_end:toolResult:a", "turn_end", "turn_start", "message_start:assistant", "message_end:assistant", "turn_end", "agent_end"],
      });
      m.flush();
      expect(log.slice(0, 4)).toEqual(["emit agent_start", "next agent_start", "emit turn_start", "next turn_start"]);
    }),
  );
});
