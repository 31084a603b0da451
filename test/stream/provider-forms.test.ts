/**
 * Provider forms and the emit barrier on their fast paths (SPEC M3, L4, L11): async iterables
 * (pi-ai's stream type, async generators) are read natively, events leave the turn recursion by
 * the side, and a synchronous `emit` lets events straight through while a waiting one still
 * holds back the events behind it. Behaviour only; the numbers live in bench/.
 */
import { createAssistantMessageEventStream } from "@earendil-works/pi-ai";
import { lastValueFrom, Observable, take, timer, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop, runAgentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentTool, AssistantMessageEvent, StreamFn } from "../../src/index.js";
import { assistantMessage, collectSync, model, protocolEvents, textResult, types, user } from "../helpers/fixtures.js";

const RUN_TYPES = ["agent_start", "turn_start", "message_start", "message_end", "message_start", "message_update", "message_update", "message_update", "message_end", "turn_end", "agent_end"];

function run(streamFn: StreamFn): Promise<AgentEvent[]> {
  return lastValueFrom(agentLoop([user("hi")], { messages: [] }, { model }, undefined, streamFn).pipe(toArray()));
}

describe("M3: async-iterable providers", () => {
  it("M3: pi-ai's AssistantMessageEventStream works unchanged", async () => {
    const streamFn: StreamFn = () => {
      const stream = createAssistantMessageEventStream();
      // Pushed later, as a network provider would.
      setTimeout(() => {
        for (const event of protocolEvents(assistantMessage("hello"))) stream.push(event as never);
        stream.end();
      }, 0);
      return stream as unknown as AsyncIterable<AssistantMessageEvent>;
    };
    const events = await run(streamFn);
    expect(types(events)).toEqual(RUN_TYPES);
    const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(end.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop", content: [{ type: "text", text: "hello" }] });
  });

  it("M3: an async generator works, and one that throws ends in an error message", async () => {
    async function* good(): AsyncGenerator<AssistantMessageEvent> {
      yield* protocolEvents(assistantMessage("hello"));
    }
    expect(types(await run(() => good()))).toEqual(RUN_TYPES);

    async function* bad(): AsyncGenerator<AssistantMessageEvent> {
      yield { type: "start", partial: assistantMessage([]) };
      throw new Error("socket closed");
    }
    const events = await run(() => bad());
    const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(end.messages.at(-1)).toMatchObject({ stopReason: "error", errorMessage: "socket closed" });
  });

  it("M4: an async iterable that ends without done is an error", async () => {
    async function* incomplete(): AsyncGenerator<AssistantMessageEvent> {
      yield { type: "start", partial: assistantMessage([]) };
    }
    const events = await run(() => incomplete());
    const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(end.messages.at(-1)).toMatchObject({ stopReason: "error", errorMessage: 'Provider stream ended without a final "done" or "error" event.' });
  });

  it("L10: unsubscribing stops reading the iterable (its return() runs)", async () => {
    let finalized = false;
    let pulled = 0;
    async function* endless(): AsyncGenerator<AssistantMessageEvent> {
      try {
        const partial = assistantMessage("x");
        yield { type: "start", partial: assistantMessage([]) };
        for (;;) {
          pulled++;
          yield { type: "text_delta", contentIndex: 0, delta: "x", partial };
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      } finally {
        finalized = true;
      }
    }
    const seen = await lastValueFrom(agentLoop([user("hi")], { messages: [] }, { model }, undefined, () => endless()).pipe(take(7), toArray()));
    expect(types(seen).slice(-2)).toEqual(["message_update", "message_update"]);
    await lastValueFrom(timer(20));
    expect(finalized).toBe(true);
    expect(pulled).toBeLessThan(5);
  });
});

describe("L4: the turn recursion", () => {
  it("L4: 3 000 synchronous tool turns complete without overflowing, events in order", () => {
    const turns = 3000;
    let request = 0;
    const streamFn: StreamFn = () => {
      request++;
      const message = request <= turns ? assistantMessage([{ type: "toolCall", id: `c${request}`, name: "echo", arguments: {} }], "toolUse") : assistantMessage("done");
      return protocolEvents(message);
    };
    const echo: AgentTool = { name: "echo", label: "echo", description: "", parameters: { type: "object" }, execute: () => textResult("ok") };
    const events = collectSync(agentLoop([user("go")], { messages: [], tools: [echo] }, { model }, undefined, streamFn));
    expect(events.filter((e) => e.type === "turn_end")).toHaveLength(turns + 1);
    expect(events.at(-1)!.type).toBe("agent_end");
    expect((events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>).messages).toHaveLength(1 + 2 * turns + 1 + 1);
  });
});

describe("L11: emit as a barrier on the fast path", () => {
  const streamFn: StreamFn = () => protocolEvents(assistantMessage("hello"));

  it("L11: a synchronous emit sees each event before the subscriber, in order", () => {
    const log: string[] = [];
    const events = collectSync(
      runAgentLoop({ prompts: [user("hi")], context: { messages: [] }, config: { model }, streamFn, emit: (event) => void log.push(`emit ${event.type}`) }).pipe(
        (source) => new Observable<AgentEvent>((subscriber) => source.subscribe({ next: (e) => (log.push(`next ${e.type}`), subscriber.next(e)), complete: () => subscriber.complete() })),
      ),
    );
    expect(types(events)).toEqual(RUN_TYPES);
    expect(log).toEqual(RUN_TYPES.flatMap((type) => [`emit ${type}`, `next ${type}`]));
  });

  it("L11: a waiting emit holds back every later event until it settles", async () => {
    const log: string[] = [];
    let pending = 0;
    const emit = (event: AgentEvent): Promise<void> => {
      expect(pending).toBe(0);
      pending++;
      log.push(`emit ${event.type}`);
      return new Promise((resolve) =>
        setTimeout(() => {
          pending--;
          log.push(`done ${event.type}`);
          resolve();
        }, 0),
      );
    };
    const events = await lastValueFrom(runAgentLoop({ prompts: [user("hi")], context: { messages: [] }, config: { model }, streamFn, emit }).pipe(toArray()));
    expect(types(events)).toEqual(RUN_TYPES);
    expect(log).toEqual(RUN_TYPES.flatMap((type) => [`emit ${type}`, `done ${type}`]));
  });

  it("L11: a throwing emit mid-stream still lets its event out, then the run fails cleanly", async () => {
    let count = 0;
    const emit = (event: AgentEvent): void => {
      if (event.type === "message_update" && ++count === 2) throw new Error("listener broke");
    };
    const events = await lastValueFrom(runAgentLoop({ prompts: [user("hi")], context: { messages: [] }, config: { model }, streamFn, emit }).pipe(toArray()));
    expect(types(events).filter((t) => t === "message_update")).toHaveLength(2);
    expect(events.at(-1)!.type).toBe("agent_end");
    const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(end.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error" });
  });
});
