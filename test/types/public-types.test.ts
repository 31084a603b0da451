/**
 * The public types, checked by the compiler (`npm run typecheck` covers the tests): tools typed
 * by their parameters (SPEC T1), the hooks derived from one list (SPEC A1, L3), app messages by
 * declaration merging (SPEC M2), and the read-only transcript (I1). `expectTypeOf` does nothing
 * at run time; the run-time checks beside it keep the lists honest.
 */
import type { Observable, ObservedValueOf } from "rxjs";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  Agent,
  type AfterToolCallContext,
  type AgentEvent,
  type AgentLoopConfig,
  type AgentMessage,
  type AgentOptions,
  type AgentState,
  type AgentStateSnapshot,
  isPlaceholderModel,
  type Model,
  type RunOutcome,
  type AgentTool,
  type AgentToolResult,
  type AgentTurnContext,
  type AgentTurnDecision,
  type BeforeToolCallContext,
  type BeforeToolCallResult,
  type MaybeAsync,
  type Message,
  type ProviderOptions,
  type UntakenMessages,
  type CallCancellation,
  type LimitReached,
  type RunLimits,
  type ToolApprovalContext,
  type ToolApprovalDecision,
  type ToolApprovalRequest,
  type ToolCancellation,
  type Usage,
} from "../../src/index.js";
import { ofType } from "../../src/operators/index.js";
import type { AgentLike } from "../../src/index.js";
// Internals the public types are derived from (not exported by the package).
import { LOOP_HOOKS, LOOP_KEYS, type LoopHookName, type LoopHooks, type LoopKey } from "../../src/loop/loop-config.js";
import { reduceRunState, type RunState } from "../../src/loop/run-state.js";
import { placeholderModel } from "../../src/model/placeholder-model.js";

declare module "../../src/model/types.js" {
  interface CustomAgentMessages {
    typeTestNote: { role: "typeTestNote"; text: string; timestamp: number };
  }
}

describe("public types", () => {
  it("T1: AgentTool<TParams> types execute's params; execute may return a value, a promise or an Observable", () => {
    const weather: AgentTool<{ city: string; days?: number }> = {
      name: "weather",
      label: "Weather",
      description: "Forecast",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      execute: async (_id, params) => ({ content: [{ type: "text", text: params.city }] }),
    };
    expectTypeOf(weather.execute).parameter(1).toEqualTypeOf<{ city: string; days?: number }>();
    expectTypeOf(weather.execute).parameter(2).toEqualTypeOf<AbortSignal>();
    expectTypeOf<ReturnType<AgentTool["execute"]>>().toEqualTypeOf<AgentToolResult | PromiseLike<AgentToolResult> | Observable<AgentToolResult>>();
    expect(weather.name).toBe("weather");
  });

  it("L3 T2: hook signatures", () => {
    expectTypeOf<NonNullable<AgentLoopConfig["beforeToolCall"]>>().parameters.toEqualTypeOf<[BeforeToolCallContext, AbortSignal]>();
    expectTypeOf<ReturnType<NonNullable<AgentLoopConfig["beforeToolCall"]>>>().toEqualTypeOf<MaybeAsync<BeforeToolCallResult | undefined | void>>();
    expectTypeOf<NonNullable<AgentLoopConfig["afterToolCall"]>>().parameter(0).toEqualTypeOf<AfterToolCallContext>();
    expectTypeOf<NonNullable<AgentLoopConfig["finishTurn"]>>().parameters.toEqualTypeOf<[AgentTurnContext, AbortSignal]>();
    expectTypeOf<ReturnType<NonNullable<AgentLoopConfig["finishTurn"]>>>().toEqualTypeOf<MaybeAsync<AgentTurnDecision | undefined | void>>();
    expectTypeOf<NonNullable<AgentLoopConfig["convertToLlm"]>>().returns.toEqualTypeOf<MaybeAsync<Message[]>>();
  });

  it("A1: the Agent's hook options and properties are the LOOP_HOOKS list, with the loop's types", () => {
    expectTypeOf<keyof LoopHooks>().toEqualTypeOf<LoopHookName>();
    expectTypeOf<Pick<AgentOptions, LoopHookName>>().toEqualTypeOf<LoopHooks>();
    expectTypeOf<Agent["prepareRequest"]>().toEqualTypeOf<AgentLoopConfig["prepareRequest"]>();
    expectTypeOf<Agent["finishTurn"]>().toEqualTypeOf<AgentLoopConfig["finishTurn"]>();
    const hooks = Object.fromEntries(LOOP_HOOKS.map((hook) => [hook, () => undefined]));
    const agent = new Agent(hooks as AgentOptions);
    // Every hook of the list becomes the Agent's property of the same name.
    for (const hook of LOOP_HOOKS) expect(agent[hook], hook).toBe(hooks[hook]);
    expect(LOOP_HOOKS).toHaveLength(8);
  });

  it("M3: every config key is either read by the loop (LOOP_KEYS) or a provider option", () => {
    expectTypeOf<Exclude<keyof AgentLoopConfig, keyof ProviderOptions | LoopKey>>().toEqualTypeOf<never>();
    expect(new Set(LOOP_KEYS).size).toBe(LOOP_KEYS.length);
  });

  it("M2: app messages join AgentMessage by declaration merging", () => {
    const note = { role: "typeTestNote" as const, text: "saved", timestamp: 0 };
    expectTypeOf(note).toMatchTypeOf<AgentMessage>();
    expectTypeOf<Extract<AgentMessage, { role: "typeTestNote" }>>().toEqualTypeOf<{ role: "typeTestNote"; text: string; timestamp: number }>();
    const convert: AgentLoopConfig["convertToLlm"] = (messages) => messages.filter((m): m is Message => m.role !== "typeTestNote");
    expect(convert).toBeTypeOf("function");
  });

  it("I1: the Agent's transcript is read-only; assigning takes any array", () => {
    expectTypeOf<AgentState["messages"]>().toEqualTypeOf<readonly AgentMessage[]>();
    const agent = new Agent();
    // @ts-expect-error a frozen transcript has no push
    expect(() => agent.state.messages.push({ role: "user", content: "x", timestamp: 0 })).toThrow(TypeError);
    agent.state.messages = [{ role: "user", content: "y", timestamp: 0 }];
    expect(agent.state.messages).toHaveLength(1);
  });

  it("A4 Q3: the reducer and the agent_end event", () => {
    expectTypeOf(reduceRunState).toEqualTypeOf<(state: RunState, event: AgentEvent) => RunState>();
    expectTypeOf<Extract<AgentEvent, { type: "agent_end" }>["untaken"]>().toEqualTypeOf<UntakenMessages | undefined>();
  });

  it("L15 A8 A9: the run's outcome on agent_end and in the state, and the placeholder model", () => {
    expectTypeOf<RunOutcome>().toEqualTypeOf<"completed" | "aborted" | "failed" | "limit">();
    expectTypeOf<Extract<AgentEvent, { type: "agent_end" }>["outcome"]>().toEqualTypeOf<RunOutcome>();
    expectTypeOf<AgentState["outcome"]>().toEqualTypeOf<RunOutcome | undefined>();
    expectTypeOf<AgentStateSnapshot["outcome"]>().toEqualTypeOf<RunOutcome | undefined>();
    expectTypeOf(placeholderModel).toEqualTypeOf<() => Model>();
    expect(isPlaceholderModel(new Agent().state.model)).toBe(true);
  });

  it("R1 R2 R4 R5: run control's public types", () => {
    expectTypeOf<NonNullable<AgentTool["needsApproval"]>>().toEqualTypeOf<boolean | ((args: any, context: ToolApprovalContext) => MaybeAsync<boolean>)>();
    expectTypeOf<ToolApprovalDecision>().toEqualTypeOf<{ approved: true; args?: unknown } | { approved: false; reason?: string }>();
    expectTypeOf<Agent["approve"]>().toEqualTypeOf<(toolCallId: string, options?: { args?: unknown }) => void>();
    expectTypeOf<Agent["deny"]>().toEqualTypeOf<(toolCallId: string, reason?: string) => void>();
    expectTypeOf<AgentState["pendingApprovals"]>().toEqualTypeOf<readonly ToolApprovalRequest[]>();
    expectTypeOf<AgentLoopConfig["limits"]>().toEqualTypeOf<RunLimits | undefined>();
    expectTypeOf<Extract<AgentEvent, { type: "agent_end" }>["usage"]>().toEqualTypeOf<Usage>();
    expectTypeOf<Extract<AgentEvent, { type: "agent_end" }>["limit"]>().toEqualTypeOf<LimitReached | undefined>();
    expectTypeOf<LimitReached["limit"]>().toEqualTypeOf<"maxTurns" | "maxToolCalls" | "maxTokens" | "maxCost" | "timeoutMs" | "maxRepeatedCalls">();
    expectTypeOf<CallCancellation["status"]>().toEqualTypeOf<ToolCancellation>();
    expectTypeOf<ToolCancellation>().toEqualTypeOf<"not_started" | "stopped" | "finished" | "ignored">();
    expectTypeOf<Agent["usage$"]>().toEqualTypeOf<Observable<Usage>>();
    // @ts-expect-error a decision needs `approved`
    const bad: ToolApprovalDecision = { reason: "no" };
    void bad;
  });

  it("ofType narrows: after ofType(\"tool_execution_end\") the event has the end's fields, and a name that is no event type does not compile", () => {
    const ends = new Agent().events$.pipe(ofType("tool_execution_end"));
    expectTypeOf(ends).toEqualTypeOf<Observable<Extract<AgentEvent, { type: "tool_execution_end" }>>>();
    expectTypeOf<ObservedValueOf<typeof ends>["isError"]>().toEqualTypeOf<boolean>();
    const either = new Agent().events$.pipe(ofType("message_start", "message_end"));
    expectTypeOf<ObservedValueOf<typeof either>["type"]>().toEqualTypeOf<"message_start" | "message_end">();
    // @ts-expect-error "tool_end" is no event type
    ofType("tool_end");
  });
  it("Agent is an AgentLike: a component written against AgentLike takes a local Agent", () => {
    expectTypeOf<Agent>().toMatchTypeOf<AgentLike>();
    const view: AgentLike = new Agent();
    expectTypeOf(view.state.messages).toEqualTypeOf<readonly AgentMessage[]>();
    // @ts-expect-error the tools run where the agent runs: a view has no tools
    void view.state.tools;
  });
});
