/**
 * The scenario model and its fast-check generator: a whole run described as data —
 * scripted model turns, what each tool call does, the hooks' decisions, and what the user does
 * at which virtual frame. A scenario is plain JSON, so a failing one can be pasted into a
 * regression test as it is.
 */
import fc from "fast-check";

export type ArgsKind = "valid" | "numericString" | "wrongType" | "missing" | "extra" | "nullOptional";
export type ToolName = "t0" | "t1" | "slow" | "seq" | "nope";

/** How a tool behaves when this call runs. */
export interface ToolBehaviour {
  /**
   * `plain`: returns (or throws) synchronously; `observable`: a virtual-time Observable;
   * `promise`: a promise-like settled on the TestScheduler (no microtask) that ignores the signal.
   */
  kind: "plain" | "observable" | "promise";
  /** Frames until the result (observable tools). */
  frames: number;
  /** Progress updates before the result. */
  updates: number;
  outcome: "ok" | "isError" | "throw" | "throwString" | "throwUndefined" | "terminate" | "undefined" | "nonObject" | "badContent" | "errorObservable" | "emptyObservable";
}

export type Block =
  | { t: "text"; text: string }
  | { t: "thinking"; text: string }
  | { t: "call"; id: string; tool: ToolName; args: ArgsKind; behaviour: ToolBehaviour };

/** One scripted response of the model. */
export interface ModelTurn {
  blocks: Block[];
  stop: "natural" | "length" | "error" | "aborted";
  /**
   * SPEC M4 faults; `thenable` is no fault but the (synchronous) promise-of-a-stream delivery;
   * `noise` interleaves unknown event types (ignored); `noStart` drops `start` (protocol violation).
   */
  fault: "none" | "throw" | "reject" | "error" | "incomplete" | "hang" | "thenable" | "noise" | "noStart" | "trailing";
}

export type HookName =
  | "beforeToolCall"
  | "afterToolCall"
  | "finishTurn"
  | "prepareNextTurn"
  | "prepareRequest"
  | "transformContext"
  | "convertToLlm"
  | "getApiKey"
  | "listener";

export interface Hooks {
  /** beforeToolCall decisions, one per call in order; absent means allow. */
  before: ("allow" | "block" | "blockTerminate")[] | null;
  after: ("keep" | "override" | "overrideError" | "overrideTerminate")[] | null;
  finishTurn: ("none" | "end" | "continue")[] | null;
  /** Messages prepareNextTurn adds before each next turn. */
  prepareNextTurn: number[] | null;
  /** Frames a hook takes (its decision comes later on the scheduler); 0 = plain value. */
  hookDelay: number;
  /** How a hook that takes frames delivers: an Observable or a promise-like on the scheduler. */
  hookAsync: "observable" | "promise";
  /** One hook (or the listener / waiting emit) throws on its `at`-th call (or errors / rejects later). */
  throwIn: { hook: HookName; at: number; how: "sync" | "observable" | "promise" } | null;
  /** Frames each listener (Agent) or waiting emit (loop) holds the loop; 0 = returns nothing. */
  listenerDelay: number;
  /** Context rewriting: prepareRequest replaces the context object or the model; transformContext prunes. */
  rewrite?: "copy" | "model" | "prune";
}

export interface UserAction {
  frame: number;
  /** `prompt`: the Agent is asked to prompt again (an error while a run is active, SPEC A2); ignored by the loop. */
  kind: "steer" | "followUp" | "abort" | "unsubscribe" | "prompt";
}

export interface Scenario {
  /** `loop`: `agentLoop` (no emit); `loop-emit`: `runAgentLoop` with a waiting emit; `agent`: `Agent.prompt$()`. */
  via: "loop" | "loop-emit" | "agent";
  steeringMode: "all" | "one-at-a-time";
  followUpMode: "all" | "one-at-a-time";
  toolExecution: "parallel" | "sequential";
  /** `sync`: the provider streams synchronously; otherwise one event every `n` frames (0 = scheduled, same frame). */
  providerDelay: "sync" | 0 | 1 | 2;
  turns: ModelTurn[];
  hooks: Hooks;
  actions: UserAction[];
  /** Messages queued before the run starts. */
  steerBeforeStart: number;
  /** Loop only: the queues as streams (`steering$`, `followUp$`, SPEC Q1–Q3) instead of the poll callbacks. */
  queueStreams?: boolean;
  /** Loop only: `agentLoopContinue` from a transcript that already ends with the prompt. */
  continueLoop?: boolean;
  /** Loop only: the signal is already aborted when the run is subscribed. */
  abortBeforeStart?: boolean;
  /** Agent only: a second run started from the first run's `complete` (re-entrant): `prompt$` or `continue$`. */
  secondRun?: "prompt" | "continue";
  /** Cancel from inside the subscriber's `next`, on the event with this index (cancellation sweep). */
  cancelAtEvent?: { index: number; kind: "abort" | "unsubscribe" };
  /** Agent and loop-emit: abort from inside the listener (the waiting emit), synchronously, on the event with this index. */
  abortInListenerAt?: number;
  /**
   * Agent only: a listener registered before the recording one, returning on the message and
   * tool updates and tool starts an Observable that settles while it is subscribed, or a
   * promise-like settled later in the same frame (the recording listener is then called once it
   * settled), and nothing on the other events.
   */
  leadingListener?: "settles-at-once" | "promise";
  /** User actions from inside the subscriber's `next`, on the event with this index (re-entrant). */
  eventActions?: { index: number; kind: UserAction["kind"] }[];
  /** Run control (SPEC R1–R3): approvals of `t1` calls, limits, a concurrency limit. */
  control?: RunControl;
}

/** What a scenario's run control does. */
export interface RunControl {
  /** The `t1` calls (by id) that need approval, and how each is answered; `never`: not at all (an abort ends the wait). */
  approvals: Record<string, "approve" | "deny" | "never">;
  /** Frames until an answer comes; 0: at once (a plain value from the loop's requestApproval; from the request's listener in the Agent). */
  approvalDelay: number;
  limits?: { maxTurns?: number; maxToolCalls?: number; maxRepeatedCalls?: number; toolTimeoutMs?: number; onLimit?: "end" | "tell" };
  maxConcurrency?: number;
  /** `slow` calls share one concurrency key, so they run one after another. */
  keyed?: boolean;
}

const behaviourArb: fc.Arbitrary<ToolBehaviour> = fc.record({
  kind: fc.constantFrom("plain", "observable", "observable", "promise"),
  frames: fc.integer({ min: 0, max: 6 }),
  updates: fc.integer({ min: 0, max: 3 }),
  outcome: fc.oneof(
    { weight: 10, arbitrary: fc.constant("ok" as const) },
    { weight: 4, arbitrary: fc.constantFrom("isError", "throw", "terminate") },
    { weight: 2, arbitrary: fc.constantFrom("throwString", "throwUndefined", "undefined", "nonObject", "badContent", "errorObservable", "emptyObservable") },
  ),
});

const callArb = fc.record({
  tool: fc.oneof({ weight: 16, arbitrary: fc.constantFrom<ToolName>("t0", "t1", "slow") }, { weight: 2, arbitrary: fc.constantFrom<ToolName>("seq", "nope") }),
  args: fc.oneof({ weight: 20, arbitrary: fc.constant<ArgsKind>("valid") }, { weight: 3, arbitrary: fc.constantFrom<ArgsKind>("numericString", "wrongType", "missing", "extra", "nullOptional") }),
  behaviour: behaviourArb,
});

const turnArb = fc
  .record({
    text: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
    thinking: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
    calls: fc.array(callArb, { maxLength: 5 }),
    stop: fc.oneof({ weight: 30, arbitrary: fc.constant("natural" as const) }, { weight: 3, arbitrary: fc.constantFrom("length" as const, "error" as const, "aborted" as const) }),
    fault: fc.oneof(
      { weight: 30, arbitrary: fc.constant("none" as const) },
      { weight: 3, arbitrary: fc.constantFrom("thenable" as const, "noise" as const, "trailing" as const) },
      { weight: 1, arbitrary: fc.constant("noStart" as const) },
      { weight: 3, arbitrary: fc.constantFrom("throw" as const, "reject" as const, "error" as const, "incomplete" as const, "hang" as const) },
    ),
  })
  .map(({ text, thinking, calls, stop, fault }) => ({ text, thinking, calls, stop, fault }));

function hooksArb(via: Scenario["via"]): fc.Arbitrary<Hooks> {
  const hookNames: HookName[] = ["beforeToolCall", "afterToolCall", "finishTurn", "prepareNextTurn", "prepareRequest", "transformContext", "convertToLlm", "getApiKey"];
  if (via !== "loop") hookNames.push("listener");
  return fc.record({
    before: fc.option(fc.array(fc.constantFrom("allow" as const, "allow" as const, "block" as const, "blockTerminate" as const), { maxLength: 8 }), { nil: null }),
    after: fc.option(fc.array(fc.constantFrom("keep" as const, "override" as const, "overrideError" as const, "overrideTerminate" as const), { maxLength: 8 }), { nil: null }),
    finishTurn: fc.option(fc.array(fc.constantFrom("none" as const, "end" as const, "continue" as const), { maxLength: 6 }), { nil: null }),
    prepareNextTurn: fc.option(fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 4 }), { nil: null }),
    hookDelay: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) }),
    hookAsync: fc.constantFrom("observable" as const, "promise" as const),
    throwIn: fc.oneof(
      { weight: 2, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.record({ hook: fc.constantFrom(...hookNames), at: fc.integer({ min: 0, max: 8 }), how: fc.constantFrom("sync" as const, "observable" as const, "promise" as const) }) },
    ),
    rewrite: fc.constantFrom(undefined, undefined, undefined, "copy" as const, "model" as const, "prune" as const),
    listenerDelay: via === "loop" ? fc.constant(0) : fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 }) }),
  });
}

const actionArb: fc.Arbitrary<UserAction> = fc.record({
  frame: fc.integer({ min: 0, max: 60 }),
  kind: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom("steer" as const, "followUp" as const) },
    { weight: 2, arbitrary: fc.constantFrom("abort" as const, "unsubscribe" as const) },
    { weight: 1, arbitrary: fc.constant("prompt" as const) },
  ),
});

const controlArb = fc.record({
  answers: fc.array(fc.oneof({ weight: 4, arbitrary: fc.constant("approve" as const) }, { weight: 2, arbitrary: fc.constant("deny" as const) }, { weight: 1, arbitrary: fc.constant("never" as const) }), { minLength: 1, maxLength: 4 }),
  approvalDelay: fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 8 }) }),
  limits: fc.option(
    fc.record(
      {
        maxTurns: fc.integer({ min: 1, max: 4 }),
        maxToolCalls: fc.integer({ min: 1, max: 6 }),
        maxRepeatedCalls: fc.integer({ min: 2, max: 3 }),
        toolTimeoutMs: fc.integer({ min: 1, max: 6 }),
        onLimit: fc.constantFrom("end" as const, "tell" as const),
      },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  ),
  maxConcurrency: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
  keyed: fc.boolean(),
});

/** A whole run, through the given entry points. */
export function scenarioArb(vias: Scenario["via"][] = ["loop", "loop-emit", "agent"], control: "sometimes" | "always" = "sometimes"): fc.Arbitrary<Scenario> {
  return fc.constantFrom(...vias).chain((via) =>
    fc
      .record({
        via: fc.constant(via),
        steeringMode: fc.constantFrom("all" as const, "one-at-a-time" as const),
        followUpMode: fc.constantFrom("all" as const, "one-at-a-time" as const),
        toolExecution: fc.constantFrom("parallel" as const, "sequential" as const),
        providerDelay: fc.constantFrom("sync" as const, 0 as const, 1 as const, 2 as const),
        turns: fc.array(turnArb, { minLength: 1, maxLength: 6 }),
        hooks: hooksArb(via),
        actions: fc.array(actionArb, { maxLength: 5 }),
        eventActions: fc.array(fc.record({ index: fc.integer({ min: 0, max: 80 }), kind: actionArb.map((a) => a.kind) }), { maxLength: 2 }),
        steerBeforeStart: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 }) }),
        hangCancel: fc.constantFrom("abort" as const, "unsubscribe" as const),
        continueLoop: via === "loop" ? fc.boolean() : fc.constant(undefined),
        queueStreams: via === "agent" ? fc.constant(undefined) : fc.constantFrom(undefined, true),
        abortBeforeStart: via === "agent" ? fc.constant(undefined) : fc.oneof({ weight: 15, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant(true) }),
        secondRun: via === "agent" ? fc.constantFrom(undefined, undefined, "prompt" as const, "continue" as const) : fc.constant(undefined),
        control: control === "always" ? controlArb : fc.option(controlArb, { nil: undefined, freq: 3 }),
      })
      .map(({ hangCancel, turns, actions, secondRun, continueLoop, abortBeforeStart, queueStreams, control, ...rest }) => {
        const scenario: Scenario = {
          ...rest,
          ...(queueStreams ? { queueStreams } : {}),
          ...(abortBeforeStart ? { abortBeforeStart } : {}),
          ...(continueLoop ? { continueLoop } : {}),
          ...(secondRun ? { secondRun } : {}),
          turns: turns.map((turn, t) => ({
            stop: turn.stop,
            fault: turn.fault,
            blocks: [
              ...(turn.thinking !== undefined ? [{ t: "thinking" as const, text: turn.thinking }] : []),
              ...(turn.text !== undefined ? [{ t: "text" as const, text: turn.text }] : []),
              ...turn.calls.map((call, i) => ({ t: "call" as const, id: `c${t}_${i}`, ...call })),
            ],
          })),
          actions: actions.slice().sort((a, b) => a.frame - b.frame),
        };
        if (control) {
          // Every t1 call of the run needs approval, answered as drawn.
          const approvals: RunControl["approvals"] = {};
          let k = 0;
          for (const turn of scenario.turns) for (const block of turn.blocks) if (block.t === "call" && block.tool === "t1") approvals[block.id] = control.answers[k++ % control.answers.length]!;
          scenario.control = { approvals, approvalDelay: control.approvalDelay, ...(control.limits ? { limits: control.limits } : {}), ...(control.maxConcurrency ? { maxConcurrency: control.maxConcurrency } : {}), ...(control.keyed ? { keyed: true } : {}) };
          // A call never answered is ended by an abort.
          if (Object.values(approvals).includes("never")) {
            scenario.actions.push({ frame: 3000, kind: "abort" });
            // The Agent's second run may wait for one of its own.
            if (secondRun) scenario.actions.push({ frame: 6000, kind: "abort" });
          }
        }
        // A provider that never finishes is ended by abort (or unsubscribe): make sure one comes.
        if (scenario.turns.some((turn) => turn.fault === "hang")) {
          scenario.actions.push({ frame: 1000, kind: hangCancel });
          // The Agent's second run may meet a hanging turn of its own.
          if (secondRun) scenario.actions.push({ frame: 2000, kind: hangCancel });
        }
        return scenario;
      }),
  );
}
