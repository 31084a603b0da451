/**
 * The Agent's state is the fold of its actions by one pure reducer (SPEC A4, A7, I1). Checked
 * against a naive model that copies everything on every action, over random action sequences,
 * including a second history folded from a value in the middle of the first (a value's transcript
 * shares its array with the next one, so that is where sharing could leak).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AgentStateAction, type AgentStateValue, initialAgentState, reduceAgentState, transcriptOf } from "../../src/agent/agent-state-reducer.js";
import type { AgentMessage, AgentTool, Model } from "../../src/index.js";
import { placeholderModel } from "../../src/model/placeholder-model.js";

const model: Model = placeholderModel();
const user = (n: number): AgentMessage => ({ role: "user", content: `u${n}`, timestamp: n });
const assistant = (n: number, input: number): AgentMessage =>
  ({ role: "assistant", content: [], api: "faux", provider: "faux", model: "m", stopReason: "stop", timestamp: n, usage: { input, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: input, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } } }) as AgentMessage;

const action: fc.Arbitrary<AgentStateAction> = fc.oneof(
  { weight: 5, arbitrary: fc.nat(1000).map((n) => ({ type: "message_end", message: user(n) }) as AgentStateAction) },
  { weight: 5, arbitrary: fc.tuple(fc.nat(1000), fc.nat(50)).map(([n, input]) => ({ type: "message_end", message: assistant(n, input) }) as AgentStateAction) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(4), fc.boolean()).map(([k, reset]) => ({ type: "[state] transcript", messages: Array.from({ length: k }, (_, i) => user(2000 + i)), reset }) as AgentStateAction) },
  { weight: 1, arbitrary: fc.constant<AgentStateAction>({ type: "[state] run begun" }) },
  { weight: 1, arbitrary: fc.constant<AgentStateAction>({ type: "[state] run ended" }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 3 }).map((id) => ({ type: "tool_approval_request", toolCallId: id, toolName: "t", args: {} }) as AgentStateAction) },
  { weight: 1, arbitrary: fc.string({ maxLength: 3 }).map((id) => ({ type: "tool_approval_end", toolCallId: id, toolName: "t", decision: { approved: true } }) as unknown as AgentStateAction) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 5 }), fc.boolean()).map(([errorMessage, inRun]) => ({ type: "[state] failed", errorMessage, inRun }) as AgentStateAction) },
  { weight: 1, arbitrary: fc.constantFrom<"off" | "low" | "high">("off", "low", "high").map((thinkingLevel) => ({ type: "[state] thinking level", thinkingLevel }) as AgentStateAction) },
);

/** What the value must say, computed the slow way. */
interface Model_ {
  transcript: AgentMessage[];
  input: number;
  isStreaming: boolean;
  approvals: string[];
  errorMessage: string | undefined;
  outcome: string | undefined;
  thinkingLevel: string;
}

function modelStep(m: Model_, a: AgentStateAction): Model_ {
  const next = { ...m, transcript: m.transcript.slice(), approvals: m.approvals.slice() };
  switch (a.type) {
    case "message_end":
      next.transcript.push(a.message);
      if ((a.message as { role: string }).role === "assistant") next.input += (a.message as { usage: { input: number } }).usage.input;
      break;
    case "[state] transcript":
      next.transcript = a.messages.slice();
      if (a.reset) next.outcome = undefined;
      break;
    case "[state] run begun":
      next.isStreaming = true;
      next.approvals = [];
      next.outcome = undefined;
      next.errorMessage = undefined;
      break;
    case "[state] run ended":
      next.isStreaming = false;
      next.approvals = [];
      break;
    case "tool_approval_request":
      next.approvals.push(a.toolCallId);
      break;
    case "tool_approval_end":
      next.approvals = next.approvals.filter((id) => id !== a.toolCallId);
      break;
    case "[state] failed":
      next.errorMessage = a.errorMessage;
      if (a.inRun || !m.isStreaming) next.outcome = "failed";
      break;
    case "[state] thinking level":
      next.thinkingLevel = a.thinkingLevel;
      break;
  }
  if (a.type === "[state] transcript" && a.reset) next.errorMessage = undefined;
  return next;
}

function observed(value: AgentStateValue): Model_ {
  return {
    transcript: transcriptOf(value),
    input: value.usage?.input ?? 0,
    isStreaming: value.isStreaming,
    approvals: value.pendingApprovals.map((request) => request.toolCallId),
    errorMessage: value.run.errorMessage,
    outcome: value.outcome,
    thinkingLevel: value.thinkingLevel,
  };
}

/** Folds `actions` from `start`, checking each value against the model; the values and what each said. */
function fold(start: AgentStateValue, model0: Model_, actions: AgentStateAction[]): { values: AgentStateValue[]; said: Model_[] } {
  const values = [start];
  const said = [model0];
  for (const a of actions) {
    const value = reduceAgentState(values[values.length - 1]!, a);
    const expected = modelStep(said[said.length - 1]!, a);
    expect(observed(value)).toEqual(expected);
    values.push(value);
    said.push(expected);
  }
  return { values, said };
}

describe("reduceAgentState", () => {
  it("A4 A7 I1: every value says what a naive fold says, and no later action (in either of two histories) changes it", () => {
    fc.assert(
      fc.property(fc.array(action, { maxLength: 40 }), fc.array(action, { maxLength: 40 }), fc.nat(), (first, second, at) => {
        const tools: AgentTool[] = [];
        const start = initialAgentState([user(-1)], model, "off", tools);
        const model0: Model_ = { transcript: [user(-1)], input: 0, isStreaming: false, approvals: [], errorMessage: undefined, outcome: undefined, thinkingLevel: "off" };
        const a = fold(start, model0, first);
        const from = at % a.values.length;
        const b = fold(a.values[from]!, a.said[from]!, second);
        // Both histories folded: each value still says what it said when it was made.
        a.values.forEach((value, i) => expect(observed(value)).toEqual(a.said[i]));
        b.values.forEach((value, i) => expect(observed(value)).toEqual(b.said[i]));
      }),
    );
  });

  it("A4: a streamed update of the partial already streaming leaves the value as it is; another partial is a new value", () => {
    const partial = assistant(1, 0);
    const streaming = reduceAgentState(initialAgentState([], model, "off", []), { type: "message_start", message: partial });
    const update = (message: AgentMessage) => ({ type: "message_update", message, assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "x", partial: message } }) as AgentStateAction;
    expect(reduceAgentState(streaming, update(partial))).toBe(streaming);
    const other = assistant(2, 0);
    const replaced = reduceAgentState(streaming, update(other));
    expect(replaced).not.toBe(streaming);
    expect(replaced.run.streamingMessage).toBe(other);
  });
});
