/**
 * pi-ai compatibility (SPEC M1, M3): a pi-ai-shaped async iterable — a hand-written async
 * generator, pi-ai's own AssistantMessageEventStream, pi-ai's faux provider `streamSimple` —
 * works as a provider without conversion, and pi-ai messages go into the transcript as they are.
 */
import {
  createAssistantMessageEventStream,
  createFauxCore,
  fauxAssistantMessage,
  fauxToolCall as piFauxToolCall,
  normalizeContext,
  type AssistantMessage as PiAssistantMessage,
  type AssistantMessageEvent as PiAssistantMessageEvent,
  type Message as PiMessage,
} from "@earendil-works/pi-ai";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentMessage, AssistantMessage, AssistantMessageEvent, Message, StreamFn } from "../../src/index.js";
import { agentEnd, assistantMessage, contextWith, model, protocolEvents, roles, textOf, textResult, tool, types, user } from "../helpers/fixtures.js";

async function run(streamFn: StreamFn, prompts: AgentMessage[] = [user("hi")], context = { messages: [] as AgentMessage[] }): Promise<AgentEvent[]> {
  return lastValueFrom(agentLoop(prompts, context, { model }, undefined, streamFn).pipe(toArray()));
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("M3: pi-ai-shaped async iterables work as providers unchanged", () => {
  it("M3: an async generator yielding pi-ai protocol events", async () => {
    const reply = assistantMessage([{ type: "thinking", thinking: "hmm" }, { type: "text", text: "hello" }]);
    async function* streamSimple(): AsyncGenerator<PiAssistantMessageEvent> {
      for (const event of protocolEvents(reply)) {
        await tick();
        yield event as PiAssistantMessageEvent;
      }
    }
    const events = await run(() => (streamSimple()));
    expect(types(events)).toEqual([
      "agent_start",
      "turn_start",
      "message_start",
      "message_end",
      "message_start",
      "message_update",
      "message_update",
      "message_update",
      "message_update",
      "message_update",
      "message_end",
      "turn_end",
      "agent_end",
    ]);
    expect(agentEnd(events).messages[1]).toEqual(reply);
  });

  it("M3: an async generator that throws after some events becomes an error message keeping the partial", async () => {
    const reply = assistantMessage("partial text");
    async function* broken(): AsyncGenerator<AssistantMessageEvent> {
      const [start, textStart, delta] = protocolEvents(reply);
      yield start!;
      yield textStart!;
      yield delta!;
      await tick();
      throw new Error("connection reset");
    }
    const events = await run(() => broken());
    const final = agentEnd(events).messages[1] as AssistantMessage;
    expect(final).toMatchObject({ stopReason: "error", errorMessage: "connection reset" });
    expect(textOf(final)).toBe("partial text");
  });

  it("M3 L10: unsubscribing returns the generator (its finally block runs) and fires the signal", async () => {
    let finalized = false;
    let signal: AbortSignal | undefined;
    async function* endless(): AsyncGenerator<AssistantMessageEvent> {
      try {
        yield protocolEvents(assistantMessage("x"))[0]!;
        for (;;) {
          await tick();
          yield { type: "text_delta", contentIndex: 0, delta: ".", partial: assistantMessage(".") };
        }
      } finally {
        finalized = true;
      }
    }
    const seen: AgentEvent[] = [];
    const subscription = agentLoop([user("hi")], { messages: [] }, { model }, undefined, (_m, _c, options) => {
      signal = options.signal;
      return endless();
    }).subscribe((e) => seen.push(e));
    for (let i = 0; i < 5; i++) await tick();
    subscription.unsubscribe();
    const count = seen.length;
    for (let i = 0; i < 5; i++) await tick();
    expect(signal?.aborted).toBe(true);
    expect(finalized).toBe(true);
    expect(seen.length).toBe(count);
  });

  it("M3: pi-ai's AssistantMessageEventStream, pushed to asynchronously", async () => {
    const reply = assistantMessage("from pi-ai");
    const streamFn: StreamFn = () => {
      const stream = createAssistantMessageEventStream();
      void (async () => {
        for (const event of protocolEvents(reply)) {
          await tick();
          stream.push(event as PiAssistantMessageEvent);
        }
        stream.end();
      })();
      return (stream);
    };
    const events = await run(streamFn);
    const final = agentEnd(events).messages[1] as AssistantMessage;
    expect(textOf(final)).toBe("from pi-ai");
    expect(final.stopReason).toBe("stop");
  });

  it("M3 M1: pi-ai's faux provider streamSimple drives a tool round trip; pi-ai messages need no conversion", async () => {
    const core = createFauxCore({ api: "faux-pi", provider: "faux-pi" });
    const piModel = core.getModel();
    core.setResponses([fauxAssistantMessage([piFauxToolCall("add", { a: 2, b: 3 }, { id: "call-1" })], { stopReason: "toolUse" }), fauxAssistantMessage("5")]);
    // pi-ai's provider API takes a normalized TranscriptContext; the stream it returns is used as is
    const streamFn: StreamFn = (_model, context, options) =>
      (core.streamSimple(piModel, normalizeContext({ messages: context.messages as PiMessage[] }), options));
    const add = tool("add", (_id, params) => textResult(String((params as { a: number; b: number }).a + (params as { a: number; b: number }).b)), {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    // a pi-ai message goes into the transcript as it is (M1)
    const earlier: PiMessage = { role: "user", content: [{ type: "text", text: "earlier question" }], timestamp: 1 };
    const events = await run(streamFn, [user("2+3?")], contextWith([add], [earlier]));
    const messages = agentEnd(events).messages;
    expect(roles(messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(messages[2]).toMatchObject({ role: "toolResult", toolCallId: "call-1", toolName: "add", isError: false, content: [{ type: "text", text: "5" }] });
    expect(textOf(messages[3])).toBe("5");
    const final: PiAssistantMessage = messages[3] as PiAssistantMessage;
    expect(final.api).toBe("faux-pi");
    expect(core.state.callCount).toBe(2);
  });

  it("M1: rxagent and pi-ai messages are assignable both ways without a cast", () => {
    const ourAssistant: AssistantMessage = assistantMessage("y");
    const toPi: PiMessage = ourAssistant;
    const piUser: PiMessage = user("x");
    const back: Message = piUser as Extract<PiMessage, { role: "user" }>;
    // pi-ai → rxagent: a pi-ai assistant message (its StopReason includes pending/deferred) needs no cast either
    const piAssistant: PiAssistantMessage = fauxAssistantMessage("hi");
    const ours: AgentMessage = piAssistant;
    expect([ours, back, toPi].map((m) => (m as { role: string }).role)).toEqual(["assistant", "user", "assistant"]);
  });
});
