/**
 * The entry's own statement of AG-UI's shapes (`ag-ui-types.ts`) fits `@ag-ui/core` 1.0, in the
 * direction each is used: every event the entry emits is that event of the protocol, the
 * interrupts it sends are the protocol's, and what a client sends (`RunAgentInput`, messages,
 * resume entries) is something the entry reads. The assignments fail the type check (`npx tsc`)
 * when the two drift apart; the runtime half parses sample events with the protocol's schemas.
 */
import type { Event, Interrupt, Message, ResumeEntry, RunAgentInput as CoreRunAgentInput } from "@ag-ui/core";
import { EventSchema } from "@ag-ui/core/schemas";
import { approvalInterrupt } from "../../src/ag-ui/ag-ui-options.js";
import { describe, expect, it } from "vitest";
import { type AgUiEvent, type AgUiEventType, type AgUiInterrupt, type AgUiMessage, type AgUiResumeEntry, type RunAgentInput } from "../../src/ag-ui/index.js";

/** Compiles only when `Source` is assignable to `Target`. */
function assignable<Target>() {
  return <Source extends Target>(check?: Source): Source | undefined => check;
}

/** Each of the entry's events, without its discriminator, is the protocol's event of that type. */
type Fits = { [T in AgUiEventType]: Omit<Extract<AgUiEvent, { type: T }>, "type"> extends Omit<Extract<Event, { type: T }>, "type"> ? true : false };

describe("the AG-UI shapes the entry declares", () => {
  it("fit @ag-ui/core's: events and interrupts out, input, messages and resume entries in", () => {
    const fits: Fits = {
      RUN_STARTED: true,
      RUN_FINISHED: true,
      RUN_ERROR: true,
      STEP_STARTED: true,
      STEP_FINISHED: true,
      TEXT_MESSAGE_START: true,
      TEXT_MESSAGE_CONTENT: true,
      TEXT_MESSAGE_END: true,
      REASONING_START: true,
      REASONING_MESSAGE_START: true,
      REASONING_MESSAGE_CONTENT: true,
      REASONING_MESSAGE_END: true,
      REASONING_END: true,
      TOOL_CALL_START: true,
      TOOL_CALL_ARGS: true,
      TOOL_CALL_END: true,
      TOOL_CALL_RESULT: true,
      STATE_DELTA: true,
      CUSTOM: true,
    };
    assignable<Interrupt>()<AgUiInterrupt>();
    assignable<RunAgentInput>()<CoreRunAgentInput>();
    assignable<AgUiMessage>()<Exclude<Message, { role: "activity" }>>();
    assignable<AgUiResumeEntry>()<ResumeEntry>();
    expect(Object.values(fits).every(Boolean)).toBe(true);
  });

  it("parse with the protocol's own schemas", () => {
    const samples: AgUiEvent[] = [
      { type: "RUN_STARTED", threadId: "t", runId: "r", protocolVersion: "1.0" },
      { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: [approvalInterrupt({ toolCallId: "c", toolName: "rm", args: { path: "/" } })] } },
      { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "cancelled" }, usage: [{ provider: "p", model: "m", inputTokens: 3, outputTokens: 1, totalTokens: 4, cachedInputTokens: 1, cacheWriteInputTokens: 0 }] },
      { type: "RUN_ERROR", message: "The agent run failed", code: "failed" },
      { type: "TOOL_CALL_RESULT", messageId: "c-result", toolCallId: "c", content: [{ type: "image", source: { type: "data", value: "iVBORw0KGgo=", mimeType: "image/png" } }], role: "tool" },
      { type: "STATE_DELTA", delta: [{ op: "add", path: "/agent", value: { status: "running" } }] },
    ];
    for (const sample of samples) expect(EventSchema.safeParse(sample).success).toBe(true);
    expect(EventSchema.safeParse({ type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: [] } }).success).toBe(false);
  });
});
