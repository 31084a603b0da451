/**
 * The provider boundary (SPEC M3, M4, L5): whatever a StreamFn returns or does, one response
 * becomes message_start, message_update*, message_end with exactly one final assistant message,
 * and the run ends normally.
 */
import { lastValueFrom, NEVER, Observable, of, Subject, throwError, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import { streamAssistantResponse } from "../../src/stream/assistant-stream.js";
import type { AgentEvent, AssistantMessage, AssistantMessageEvent, StreamFn, StreamOptions } from "../../src/index.js";
import { agentEnd, assistantMessage, collectSync, model, protocolEvents, textOf, types, user } from "../helpers/fixtures.js";

const RUN_TYPES = ["agent_start", "turn_start", "message_start", "message_end", "message_start", "message_end", "turn_end", "agent_end"];

function run(streamFn: StreamFn): Promise<AgentEvent[]> {
  return lastValueFrom(agentLoop([user("hi")], { messages: [] }, { model }, undefined, streamFn).pipe(toArray()));
}

function finalAssistant(events: readonly AgentEvent[]): AssistantMessage {
  const end = [...events].reverse().find((e) => e.type === "message_end" && (e.message as { role: string }).role === "assistant");
  return (end as Extract<AgentEvent, { type: "message_end" }>).message as AssistantMessage;
}

function respond(streamFn: StreamFn, signal = new AbortController().signal): AgentEvent[] {
  return collectSync(streamAssistantResponse({ model, messages: [], options: { signal }, streamFn, now: () => 7 }));
}

const reply = assistantMessage("hello");

describe("M4: misbehaving providers still yield one final assistant message", () => {
  it("M4: a StreamFn that throws synchronously → stopReason error, clear errorMessage, run ends normally", async () => {
    const events = await run(() => {
      throw new Error("boom");
    });
    expect(types(events)).toEqual(RUN_TYPES);
    expect(finalAssistant(events)).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "boom", content: [{ type: "text", text: "" }] });
  });

  it("M4: a StreamFn that rejects", async () => {
    const events = await run(() => Promise.reject<AssistantMessageEvent[]>(new Error("no network")));
    expect(types(events)).toEqual(RUN_TYPES);
    expect(finalAssistant(events)).toMatchObject({ stopReason: "error", errorMessage: "no network" });
  });

  it("M4: an Observable that errors mid-stream keeps what was streamed", async () => {
    const partial = assistantMessage("hel");
    const streamFn: StreamFn = () =>
      new Observable<AssistantMessageEvent>((subscriber) => {
        subscriber.next({ type: "start", partial: assistantMessage([]) });
        subscriber.next({ type: "text_start", contentIndex: 0, partial });
        subscriber.error(new Error("socket closed"));
      });
    const events = await run(streamFn);
    expect(types(events)).toEqual(["agent_start", "turn_start", "message_start", "message_end", "message_start", "message_update", "message_end", "turn_end", "agent_end"]);
    const final = finalAssistant(events);
    expect(final).toMatchObject({ stopReason: "error", errorMessage: "socket closed" });
    expect(textOf(final)).toBe("hel");
  });

  it("M4: an Observable that errors with a non-Error value", async () => {
    const events = await run(() => throwError(() => ({ code: 42 })));
    expect(finalAssistant(events).errorMessage).toBe('{"code":42}');
  });

  it("M4: a stream that completes without done or error", async () => {
    const events = await run(() => protocolEvents(reply).slice(0, -1));
    expect(types(events)).toEqual(["agent_start", "turn_start", "message_start", "message_end", "message_start", "message_update", "message_update", "message_update", "message_end", "turn_end", "agent_end"]);
    expect(finalAssistant(events)).toMatchObject({ stopReason: "error", errorMessage: 'Provider stream ended without a final "done" or "error" event.' });
  });

  it("M4: an empty stream", async () => {
    const events = await run(() => []);
    expect(types(events)).toEqual(RUN_TYPES);
    expect(finalAssistant(events).stopReason).toBe("error");
  });

  it("M4: updates before start are a protocol violation", async () => {
    const events = await run(() => [{ type: "text_delta", contentIndex: 0, delta: "x", partial: reply }, ...protocolEvents(reply)]);
    expect(types(events)).toEqual(RUN_TYPES);
    expect(finalAssistant(events)).toMatchObject({ stopReason: "error", errorMessage: 'Provider protocol violation: "text_delta" arrived before "start".' });
  });

  it("M4: a second start is a protocol violation", async () => {
    const events = await run(() => [protocolEvents(reply)[0]!, ...protocolEvents(reply)]);
    expect(finalAssistant(events).errorMessage).toBe('Provider protocol violation: a second "start" event arrived.');
  });

  it("M4: unknown event types are ignored", async () => {
    const [start, ...rest] = protocolEvents(reply);
    const events = await run(() => [{ type: "ping" } as unknown as AssistantMessageEvent, start!, { type: "vendor_extension", data: 1 } as unknown as AssistantMessageEvent, ...rest]);
    const final = finalAssistant(events);
    expect(final).toEqual(reply);
    expect(events.filter((e) => e.type === "message_update")).toHaveLength(3);
  });

  it("M4: a stream may send error without start", async () => {
    const failed = assistantMessage([], "error", { errorMessage: "HTTP 401: bad key" });
    const events = await run(() => [{ type: "error", reason: "error", error: failed }]);
    expect(types(events)).toEqual(RUN_TYPES);
    expect(finalAssistant(events)).toEqual(failed);
  });

  it("M4: an error event without errorMessage gets one, and its stopReason follows the event's reason", async () => {
    const events = await run(() => [{ type: "error", reason: "aborted", error: assistantMessage([], "stop") }]);
    expect(finalAssistant(events)).toMatchObject({ stopReason: "aborted", errorMessage: "Provider reported an error" });
  });

  it("M4: done without a message, error without a message", async () => {
    const done = await run(() => [{ type: "done", reason: "stop" } as unknown as AssistantMessageEvent]);
    expect(finalAssistant(done)).toMatchObject({ stopReason: "error", errorMessage: 'Provider protocol violation: "done" carried no assistant message.' });
    const error = await run(() => [{ type: "error", reason: "error" } as unknown as AssistantMessageEvent]);
    expect(finalAssistant(error)).toMatchObject({ stopReason: "error", errorMessage: "Provider reported an error without a final message." });
  });

  it("M4: a StreamFn that returns something that is not a stream", async () => {
    const events = await run(() => null as never);
    expect(finalAssistant(events)).toMatchObject({ stopReason: "error", errorMessage: expect.stringContaining("returned null") });
    const number = await run(() => 42 as never);
    expect(finalAssistant(number).errorMessage).toContain("returned a number");
  });

  it("M4: events after the final one are ignored", async () => {
    const events = await run(() => [...protocolEvents(reply), ...protocolEvents(assistantMessage("again"))]);
    expect(types(events)).toEqual(["agent_start", "turn_start", "message_start", "message_end", "message_start", "message_update", "message_update", "message_update", "message_end", "turn_end", "agent_end"]);
    expect(finalAssistant(events)).toEqual(reply);
  });
});

describe("M3: what a StreamFn may return", () => {
  it("M3: an array of events", () => {
    const events = collectSync(agentLoop([user("hi")], { messages: [] }, { model }, undefined, () => protocolEvents(reply)));
    expect(finalAssistant(events)).toEqual(reply);
  });

  it("M3: an Observable, delivered synchronously", () => {
    const events = collectSync(agentLoop([user("hi")], { messages: [] }, { model }, undefined, () => of(...protocolEvents(reply))));
    expect(finalAssistant(events)).toEqual(reply);
  });

  it("M3: a promise of an Observable", async () => {
    const events = await run(() => Promise.resolve(of(...protocolEvents(reply))));
    expect(types(events)).toEqual(["agent_start", "turn_start", "message_start", "message_end", "message_start", "message_update", "message_update", "message_update", "message_end", "turn_end", "agent_end"]);
    expect(finalAssistant(events)).toEqual(reply);
  });

  it("M3: a promise of an array, and a promise that resolves the final event only", async () => {
    expect(finalAssistant(await run(() => Promise.resolve(protocolEvents(reply))))).toEqual(reply);
    expect(finalAssistant(await run(() => Promise.resolve(of<AssistantMessageEvent>({ type: "done", reason: "stop", message: reply }))))).toEqual(reply);
  });

  it("M3: options carry the signal, apiKey (from getApiKey, per request), reasoning, sessionId and other provider settings", () => {
    const seen: StreamOptions[] = [];
    const keys = ["key-1", "key-2"];
    const streamFn: StreamFn = (_model, _context, options) => {
      seen.push(options);
      return protocolEvents(seen.length === 1 ? assistantMessage("", "stop") : reply);
    };
    const providers: string[] = [];
    collectSync(
      agentLoop([user("hi")], { messages: [] }, {
        model,
        reasoning: "high",
        sessionId: "session-9",
        maxTokens: 100,
        apiKey: "static",
        getApiKey: (provider) => {
          providers.push(provider);
          return keys.shift();
        },
        finishTurn: () => (seen.length === 1 ? { action: "continue" } : undefined),
      }, undefined, streamFn),
    );
    expect(seen.map((o) => o.apiKey)).toEqual(["key-1", "key-2"]);
    expect(providers).toEqual(["faux", "faux"]);
    expect(seen[0]).toMatchObject({ reasoning: "high", sessionId: "session-9", maxTokens: 100 });
    expect(seen[0]!.signal).toBeInstanceOf(AbortSignal);
    // hooks stay in the loop: the provider never sees them
    expect(seen[0]).not.toHaveProperty("getApiKey");
    expect(seen[0]).not.toHaveProperty("finishTurn");
    expect(seen[0]).not.toHaveProperty("model");
  });

  it("M3: without getApiKey (or when it returns nothing) the configured apiKey is used", () => {
    const seen: StreamOptions[] = [];
    const streamFn: StreamFn = (_m, _c, options) => (seen.push(options), protocolEvents(reply));
    collectSync(agentLoop([user("hi")], { messages: [] }, { model, apiKey: "static" }, undefined, streamFn));
    collectSync(agentLoop([user("hi")], { messages: [] }, { model, apiKey: "static", getApiKey: () => undefined }, undefined, streamFn));
    expect(seen.map((o) => o.apiKey)).toEqual(["static", "static"]);
  });
});

describe("L5: streaming updates replace one partial message", () => {
  it("L5: each update carries the provider's latest partial; the final message is committed once", () => {
    const partials = [assistantMessage([]), assistantMessage("a"), assistantMessage("ab"), assistantMessage("abc")];
    const final = assistantMessage("abc");
    const streamFn: StreamFn = () => [
      { type: "start", partial: partials[0]! },
      { type: "text_start", contentIndex: 0, partial: partials[1]! },
      { type: "text_delta", contentIndex: 0, delta: "b", partial: partials[2]! },
      { type: "text_end", contentIndex: 0, content: "abc", partial: partials[3]! },
      { type: "done", reason: "stop", message: final },
    ];
    const events = collectSync(agentLoop([user("hi")], { messages: [] }, { model }, undefined, streamFn));
    const updates = events.filter((e): e is Extract<AgentEvent, { type: "message_update" }> => e.type === "message_update");
    expect(updates.map((u) => u.message)).toEqual([partials[1], partials[2], partials[3]]);
    expect(updates.map((u) => u.assistantMessageEvent.type)).toEqual(["text_start", "text_delta", "text_end"]);
    expect(events.filter((e) => e.type === "message_start" && (e.message as { role: string }).role === "assistant")).toHaveLength(1);
    const messages = agentEnd(events).messages;
    expect(messages).toHaveLength(2);
    expect(messages[1]).toBe(final);
  });

  it("L5: an update without a partial keeps the last one", () => {
    const start = assistantMessage([]);
    const streamFn: StreamFn = () => [{ type: "start", partial: start }, { type: "text_delta", contentIndex: 0, delta: "x" } as unknown as AssistantMessageEvent, { type: "done", reason: "stop", message: reply }];
    const events = respond(streamFn);
    expect(events.map((e) => e.type)).toEqual(["message_start", "message_update", "message_end"]);
    expect((events[1] as Extract<AgentEvent, { type: "message_update" }>).message).toBe(start);
  });
});

describe("streamAssistantResponse and the abort signal (L10)", () => {
  it("L10: an abort the provider ignores ends the response at once with an aborted message that keeps the partial", () => {
    const controller = new AbortController();
    const streamed = assistantMessage("par");
    let unsubscribed = false;
    const streamFn: StreamFn = () =>
      new Observable<AssistantMessageEvent>((subscriber) => {
        subscriber.next({ type: "start", partial: assistantMessage([]) });
        subscriber.next({ type: "text_delta", contentIndex: 0, delta: "par", partial: streamed });
        return () => (unsubscribed = true);
      });
    const events: AgentEvent[] = [];
    let completed = false;
    streamAssistantResponse({ model, messages: [], options: { signal: controller.signal }, streamFn, now: () => 7 }).subscribe({
      next: (e) => events.push(e),
      complete: () => (completed = true),
    });
    expect(completed).toBe(false);
    controller.abort();
    expect(completed).toBe(true);
    expect(unsubscribed).toBe(true);
    const final = (events.at(-1) as Extract<AgentEvent, { type: "message_end" }>).message as AssistantMessage;
    expect(final).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted" });
    expect(textOf(final)).toBe("par");
  });

  it("L10: an already aborted signal does not call the provider", () => {
    const controller = new AbortController();
    controller.abort();
    let called = false;
    const events = respond(() => {
      called = true;
      return NEVER;
    }, controller.signal);
    expect(called).toBe(false);
    expect(events.map((e) => e.type)).toEqual(["message_start", "message_end"]);
    expect((events[1] as Extract<AgentEvent, { type: "message_end" }>).message).toMatchObject({ stopReason: "aborted", timestamp: 7 });
  });

  it("M4: a provider that throws after the signal aborted reports aborted, not error", () => {
    const controller = new AbortController();
    const events = respond(() => {
      controller.abort();
      throw new Error("AbortError");
    }, controller.signal);
    expect((events.at(-1) as Extract<AgentEvent, { type: "message_end" }>).message).toMatchObject({ stopReason: "aborted" });
  });
});

describe("L11: a response that waits on its events itself", () => {
  it("L11: updates wait behind a held start; the end waits behind a held update; order as emitted", () => {
    const log: string[] = [];
    const gates = new Map<string, Subject<void>>();
    const streamFn: StreamFn = () => of(...protocolEvents(assistantMessage("hi")));
    const signal = new AbortController().signal;
    const wait = (event: AgentEvent) => {
      log.push(`wait ${event.type}`);
      if (event.type !== "message_start" && !(event.type === "message_update" && event.assistantMessageEvent.type === "text_delta")) return undefined;
      const gate = new Subject<void>();
      gates.set(event.type, gate);
      return gate;
    };
    let completed = false;
    streamAssistantResponse({ model, messages: [], options: { signal }, streamFn, now: () => 7, wait }).subscribe({
      next: (event) => log.push(`out ${event.type}`),
      complete: () => (completed = true),
    });
    expect(log).toEqual(["wait message_start", "out message_start"]);
    gates.get("message_start")!.complete();
    expect(log.slice(2)).toEqual(["wait message_update", "out message_update", "wait message_update", "out message_update"]);
    expect(completed).toBe(false);
    gates.get("message_update")!.complete();
    expect(log.slice(6)).toEqual(["wait message_update", "out message_update", "wait message_end", "out message_end"]);
    expect(completed).toBe(true);
  });

  it("A6: an error of a wait errors the response after its event; nothing after it goes out", () => {
    const seen: string[] = [];
    let failure: unknown;
    const streamFn: StreamFn = () => of(...protocolEvents(assistantMessage("hi")));
    const wait = (event: AgentEvent) => (event.type === "message_start" ? throwError(() => new Error("listener failed")) : undefined);
    streamAssistantResponse({ model, messages: [], options: { signal: new AbortController().signal }, streamFn, now: () => 7, wait }).subscribe({
      next: (event) => seen.push(event.type),
      error: (error) => (failure = error),
    });
    expect(seen).toEqual(["message_start"]);
    expect((failure as Error).message).toBe("listener failed");
  });

  it("A6: a provider that fails at once, with a wait that errors on message_start: message_end is never waited on", () => {
    const waited: string[] = [];
    const streamFn: StreamFn = () => {
      throw new Error("boom");
    };
    const wait = (event: AgentEvent) => {
      waited.push(event.type);
      return event.type === "message_start" ? throwError(() => new Error("listener failed")) : undefined;
    };
    let failure: unknown;
    streamAssistantResponse({ model, messages: [], options: { signal: new AbortController().signal }, streamFn, now: () => 7, wait }).subscribe({ error: (error) => (failure = error) });
    expect(waited).toEqual(["message_start"]);
    expect((failure as Error).message).toBe("listener failed");
  });
});

describe("M4: what counts as a message, and how an error event's message is read", () => {
  const endOf = (events: readonly AgentEvent[]) => (events.at(-1) as Extract<AgentEvent, { type: "message_end" }>).message as AssistantMessage;

  it("M4: null, and a function shaped like a message, are no assistant message in start, done or error", () => {
    const shaped = Object.assign(() => undefined, { role: "assistant", content: [] });
    const fromUser = { role: "user", content: [], timestamp: 1 };
    for (const message of [null, shaped, fromUser]) {
      const start = respond(() => [{ type: "start", partial: message } as unknown as AssistantMessageEvent, { type: "done", reason: "stop", message: reply }]);
      expect(endOf(start)).toMatchObject({ stopReason: "error", errorMessage: 'Provider protocol violation: "start" carried no assistant message.' });
      const done = respond(() => [{ type: "done", reason: "stop", message } as unknown as AssistantMessageEvent]);
      expect(endOf(done)).toMatchObject({ stopReason: "error", errorMessage: 'Provider protocol violation: "done" carried no assistant message.' });
      const error = respond(() => [{ type: "error", reason: "error", error: message } as unknown as AssistantMessageEvent]);
      expect(endOf(error)).toMatchObject({ stopReason: "error", errorMessage: "Provider reported an error without a final message." });
    }
  });

  it("M4: an error event's message that says aborted stays aborted, whatever the event's reason", () => {
    const aborted = assistantMessage([], "aborted", { errorMessage: "Cancelled upstream" });
    const events = respond(() => [{ type: "error", reason: "error", error: aborted }]);
    expect(endOf(events)).toMatchObject({ stopReason: "aborted", errorMessage: "Cancelled upstream" });
  });

  it("M4: a complete error message is committed as it is; one whose stopReason is not the event's is corrected, its words kept", () => {
    const complete = assistantMessage([], "error", { errorMessage: "HTTP 500" });
    expect(endOf(respond(() => [{ type: "error", reason: "error", error: complete }]))).toBe(complete);
    const saysStop = assistantMessage("half", "stop", { errorMessage: "HTTP 500" });
    const corrected = endOf(respond(() => [{ type: "error", reason: "error", error: saysStop }]));
    expect(corrected).not.toBe(saysStop);
    expect(corrected).toMatchObject({ stopReason: "error", errorMessage: "HTTP 500" });
    expect(textOf(corrected)).toBe("half");
    // The stopReason fits but the words are missing: they are added.
    const unworded = endOf(respond(() => [{ type: "error", reason: "error", error: assistantMessage([], "error") }]));
    expect(unworded).toMatchObject({ stopReason: "error", errorMessage: "Provider reported an error" });
  });
});

describe("M4 L5: the events between start and the final one", () => {
  it("L5: thinking deltas are updates like text deltas; null and unknown events change nothing", () => {
    const partial = assistantMessage([]);
    const thinking = { ...assistantMessage([]), content: [{ type: "thinking" as const, thinking: "hm" }] };
    const events = respond(() => [
      { type: "start", partial },
      null as unknown as AssistantMessageEvent,
      { type: "thinking_start", contentIndex: 0, partial: thinking },
      { type: "thinking_delta", contentIndex: 0, delta: "hm", partial: thinking },
      { type: "thinking_end", contentIndex: 0, content: "hm", partial: thinking },
      { type: "usage_report", partial } as unknown as AssistantMessageEvent,
      { type: "done", reason: "stop", message: reply },
    ]);
    const updates = events.filter((e): e is Extract<AgentEvent, { type: "message_update" }> => e.type === "message_update");
    expect(updates.map((u) => u.assistantMessageEvent.type)).toEqual(["thinking_start", "thinking_delta", "thinking_end"]);
    expect(updates.every((u) => u.message === thinking)).toBe(true);
    expect(events.at(-1)).toEqual({ type: "message_end", message: reply });
  });

  it("M4 L5: each of the nine content event types is an update of the one partial, in the provider's order; start and other types are not", () => {
    const partial = assistantMessage([]);
    const call = { type: "toolCall" as const, id: "c1", name: "echo", arguments: { i: 1 } };
    const content: AssistantMessageEvent[] = [
      { type: "thinking_start", contentIndex: 0, partial },
      { type: "thinking_delta", contentIndex: 0, delta: "hm", partial },
      { type: "thinking_end", contentIndex: 0, content: "hm", partial },
      { type: "text_start", contentIndex: 1, partial },
      { type: "text_delta", contentIndex: 1, delta: "a", partial },
      { type: "text_end", contentIndex: 1, content: "a", partial },
      { type: "toolcall_start", contentIndex: 2, partial },
      { type: "toolcall_delta", contentIndex: 2, delta: '{"i":1}', partial },
      { type: "toolcall_end", contentIndex: 2, toolCall: call, partial },
    ];
    const others = ["text_deltas", "delta", "", "image_delta", "response_start"].map((type) => ({ type, partial })) as unknown as AssistantMessageEvent[];
    const events = respond(() => [{ type: "start", partial }, ...others, ...content, ...others, { type: "done", reason: "stop", message: reply }]);
    const updates = events.filter((e): e is Extract<AgentEvent, { type: "message_update" }> => e.type === "message_update");
    expect(updates.map((u) => u.assistantMessageEvent)).toEqual(content);
    expect(updates.every((u) => u.message === partial)).toBe(true);
    expect(events.map((e) => e.type)).toEqual(["message_start", ...content.map(() => "message_update"), "message_end"]);
  });

  it("M4 L11: a synchronous provider that breaks the protocol while an event is held is stopped at once; what it sends after is dropped", () => {
    const held = new Subject<void>();
    let stopped = false;
    const streamFn: StreamFn = () =>
      new Observable<AssistantMessageEvent>((subscriber) => {
        subscriber.next({ type: "start", partial: assistantMessage([]) });
        subscriber.next({ type: "start", partial: assistantMessage([]) });
        subscriber.next({ type: "text_delta", contentIndex: 0, delta: "late", partial: assistantMessage("late") });
        return () => (stopped = true);
      });
    const seen: string[] = [];
    let completed = false;
    const wait = (event: AgentEvent) => (event.type === "message_start" ? held : undefined);
    streamAssistantResponse({ model, messages: [], options: { signal: new AbortController().signal }, streamFn, now: () => 7, wait }).subscribe({
      next: (event) => seen.push(event.type),
      complete: () => (completed = true),
    });
    // The provider is stopped while message_start is still held: it cannot run on meanwhile.
    expect(stopped).toBe(true);
    expect(completed).toBe(false);
    held.complete();
    expect(seen).toEqual(["message_start", "message_end"]);
    expect(completed).toBe(true);
  });
});

describe("L10: the response and the run's signal", () => {
  /** A signal whose abort listeners are counted: what a response adds it removes when it is done. */
  function countedSignal(controller = new AbortController()): { signal: AbortSignal; listening: () => number } {
    const signal = controller.signal;
    const listeners = new Set<unknown>();
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((type: string, listener: EventListener) => {
      if (type === "abort") listeners.add(listener);
      add(type, listener);
    }) as typeof signal.addEventListener;
    signal.removeEventListener = ((type: string, listener: EventListener) => {
      if (type === "abort") listeners.delete(listener);
      remove(type, listener);
    }) as typeof signal.removeEventListener;
    return { signal, listening: () => listeners.size };
  }

  it("L10: a response that ended, and one that was unsubscribed, leaves no listener on the signal", () => {
    const ended = countedSignal();
    respond(() => protocolEvents(reply), ended.signal);
    expect(ended.listening()).toBe(0);

    const left = countedSignal();
    let stopped = false;
    const subscription = streamAssistantResponse({ model, messages: [], options: { signal: left.signal }, streamFn: () => new Observable<AssistantMessageEvent>(() => () => (stopped = true)), now: () => 7 }).subscribe();
    expect(left.listening()).toBe(1);
    subscription.unsubscribe();
    expect(left.listening()).toBe(0);
    expect(stopped).toBe(true);
  });

  it("L10: a response that ended while its start is still held listens to the signal no more", () => {
    const counted = countedSignal();
    const held = new Subject<void>();
    const wait = (event: AgentEvent) => (event.type === "message_start" ? held : undefined);
    let completed = false;
    streamAssistantResponse({ model, messages: [], options: { signal: counted.signal }, streamFn: () => protocolEvents(reply), now: () => 7, wait }).subscribe({ complete: () => (completed = true) });
    expect(completed).toBe(false);
    expect(counted.listening()).toBe(0);
    held.complete();
    expect(completed).toBe(true);
  });

  it("L10: a provider whose promise resolves after the response was unsubscribed is never subscribed", async () => {
    let subscribed = false;
    let resolve!: (events: Observable<AssistantMessageEvent>) => void;
    const streamFn = (() => new Promise<Observable<AssistantMessageEvent>>((r) => (resolve = r))) as unknown as StreamFn;
    const subscription = streamAssistantResponse({ model, messages: [], options: { signal: new AbortController().signal }, streamFn, now: () => 7 }).subscribe();
    subscription.unsubscribe();
    resolve(new Observable<AssistantMessageEvent>(() => void (subscribed = true)));
    await new Promise((settled) => setTimeout(settled, 0));
    expect(subscribed).toBe(false);
  });

  it("M4 L10: a provider that fails from an abort listener registered before the response's own ends aborted, not error", () => {
    const controller = new AbortController();
    const provider = new Subject<AssistantMessageEvent>();
    // Registered first, so it runs before the response hears the abort: the provider errors while the signal is aborted.
    controller.signal.addEventListener("abort", () => provider.error(new Error("socket closed")));
    const events: AgentEvent[] = [];
    streamAssistantResponse({ model, messages: [], options: { signal: controller.signal }, streamFn: () => provider, now: () => 7 }).subscribe((event) => events.push(event));
    provider.next({ type: "start", partial: assistantMessage("par") });
    controller.abort();
    expect((events.at(-1) as Extract<AgentEvent, { type: "message_end" }>).message).toMatchObject({ stopReason: "aborted", errorMessage: "socket closed" });
  });
});
