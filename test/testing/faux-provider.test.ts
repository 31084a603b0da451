/**
 * The scripted provider (public, in rxagent/testing): realistic protocol events (SPEC M4),
 * recorded requests, pacing on a scheduler for marble tests (SPEC L12), and the scripted faults
 * that exercise the loop's provider normalization.
 */
import { from, lastValueFrom, map, type Observable, type ObservableInput, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import type { AssistantMessage, AssistantMessageEvent, Message, StreamOptions } from "../../src/index.js";
import { fauxProvider, fauxText, fauxThinking, fauxToolCall, type FauxProvider, type FauxReply } from "../../src/testing/index.js";
import { agentEnd, collectSync, model, textOf, user } from "../helpers/fixtures.js";
import { newScheduler } from "../helpers/marbles.js";

function stream(provider: FauxProvider, messages: Message[] = [], options: StreamOptions = {}): Observable<AssistantMessageEvent> {
  return from(provider(model, { messages }, options) as ObservableInput<AssistantMessageEvent>);
}

function syncEvents(provider: FauxProvider, messages: Message[] = [], options: StreamOptions = {}): AssistantMessageEvent[] {
  const events: AssistantMessageEvent[] = [];
  stream(provider, messages, options).subscribe((e) => events.push(e));
  return events;
}

function finalOf(events: readonly AssistantMessageEvent[]): AssistantMessage {
  const last = events.at(-1)!;
  if (last.type === "done") return last.message;
  if (last.type === "error") return last.error;
  throw new Error(`no final event, last was ${last.type}`);
}

describe("fauxProvider: protocol events", () => {
  it("M4: text is streamed as start, text_start, deltas of chunkSize, text_end, done — each partial a growing snapshot", () => {
    const events = syncEvents(fauxProvider([{ content: "hello world" }], { chunkSize: 4 }));
    expect(events.map((e) => e.type)).toEqual(["start", "text_start", "text_delta", "text_delta", "text_delta", "text_end", "done"]);
    expect(events.filter((e) => e.type === "text_delta").map((e) => (e as { delta: string }).delta)).toEqual(["hell", "o wo", "rld"]);
    const partials = events.flatMap((e) => ("partial" in e ? [textOf(e.partial)] : []));
    expect(partials).toEqual(["", "", "hell", "hello wo", "hello world", "hello world"]);
    // snapshots, not one mutated object
    expect(new Set(events.flatMap((e) => ("partial" in e ? [e.partial] : []))).size).toBe(6);
    expect(finalOf(events)).toMatchObject({ role: "assistant", stopReason: "stop", content: [{ type: "text", text: "hello world" }], api: "faux", provider: "faux", model: "faux-1" });
  });

  it("M4: thinking and tool calls stream their own blocks; tool-call arguments arrive as JSON deltas; toolUse by default", () => {
    const call = fauxToolCall("search", { query: "rxjs expand" }, "c1");
    const events = syncEvents(fauxProvider([{ content: [fauxThinking("let me see"), fauxText("Searching."), call] }], { chunkSize: 10 }));
    expect(events.map((e) => e.type)).toEqual([
      "start",
      "thinking_start",
      "thinking_delta",
      "thinking_end",
      "text_start",
      "text_delta",
      "text_end",
      "toolcall_start",
      "toolcall_delta",
      "toolcall_delta",
      "toolcall_delta",
      "toolcall_end",
      "done",
    ]);
    const deltas = events.filter((e) => e.type === "toolcall_delta") as Extract<AssistantMessageEvent, { type: "toolcall_delta" }>[];
    expect(deltas.map((d) => d.delta).join("")).toBe(JSON.stringify({ query: "rxjs expand" }));
    expect(deltas.map((d) => d.contentIndex)).toEqual([2, 2, 2]);
    // partial arguments parse to {} until the JSON is complete
    expect((deltas.at(-1)!.partial.content[2] as { arguments: unknown }).arguments).toEqual({ query: "rxjs expand" });
    expect((events.find((e) => e.type === "toolcall_end") as { toolCall: unknown }).toolCall).toEqual(call);
    expect(finalOf(events).stopReason).toBe("toolUse");
  });

  it("M4: scripted error and aborted replies end with an error event carrying errorMessage", () => {
    const events = syncEvents(fauxProvider([{ content: "partial", stopReason: "error", errorMessage: "HTTP 529 overloaded" }]));
    expect(events.at(-1)).toMatchObject({ type: "error", reason: "error", error: { stopReason: "error", errorMessage: "HTTP 529 overloaded" } });
    expect(syncEvents(fauxProvider([{ content: [], stopReason: "aborted" }])).at(-1)).toMatchObject({ type: "error", reason: "aborted", error: { errorMessage: "Request was aborted" } });
  });

  it("M4: usage is merged into the empty usage record", () => {
    const final = finalOf(syncEvents(fauxProvider([{ content: "x", usage: { input: 10, output: 2 } }])));
    expect(final.usage).toMatchObject({ input: 10, output: 2, cacheRead: 0, totalTokens: 0 });
  });

  it("fauxToolCall gives fresh ids by default", () => {
    const a = fauxToolCall("t");
    const b = fauxToolCall("t");
    expect(a.id).not.toBe(b.id);
    expect(a).toMatchObject({ type: "toolCall", name: "t", arguments: {} });
  });
});

describe("fauxProvider: script and records", () => {
  it("records every request: its number, model, options and the messages as they were at request time", () => {
    const provider = fauxProvider([{ content: "one" }, { content: "two" }]);
    expect(provider.remaining).toBe(2);
    const messages: Message[] = [user("a")];
    syncEvents(provider, messages, { sessionId: "s" });
    messages.push(user("b"));
    syncEvents(provider, messages);
    expect(provider.remaining).toBe(0);
    expect(provider.requests.map((r) => [r.index, r.messages.map(textOf), r.model.id])).toEqual([
      [1, ["a"], "faux-1"],
      [2, ["a", "b"], "faux-1"],
    ]);
    expect(provider.requests[0]!.options.sessionId).toBe("s");
  });

  it("a script entry may be a function of the request", () => {
    const provider = fauxProvider([(request) => ({ content: `you said ${textOf(request.messages.at(-1))} (#${request.index})` })]);
    const events = collectSync(agentLoop([user("ping")], { messages: [] }, { model: provider.model }, undefined, provider));
    expect(textOf(agentEnd(events).messages[1])).toBe("you said ping (#1)");
  });

  it("fails clearly when the script runs out", () => {
    const provider = fauxProvider([{ content: "only one" }]);
    syncEvents(provider);
    const final = finalOf(syncEvents(provider));
    expect(final).toMatchObject({ stopReason: "error", errorMessage: "fauxProvider: the script has no reply for request #2 (1 scripted)." });
  });
});

describe("fauxProvider: faults (SPEC M4) through the loop", () => {
  const cases: Array<[NonNullable<FauxReply["fault"]>, string]> = [
    ["throw", "fauxProvider: scripted throw"],
    ["reject", "fauxProvider: scripted rejection"],
    ["error", "fauxProvider: scripted stream error"],
    ["incomplete", 'Provider stream ended without a final "done" or "error" event.'],
  ];
  for (const [fault, errorMessage] of cases) {
    it(`M4: fault "${fault}" becomes one error assistant message; the run ends normally`, async () => {
      const provider = fauxProvider([{ content: "some text", fault }]);
      const events = await lastValueFrom(agentLoop([user("go")], { messages: [] }, { model }, undefined, provider).pipe(toArray()));
      expect(events.at(-1)?.type).toBe("agent_end");
      expect(agentEnd(events).messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error", errorMessage });
    });
  }

  it("M4 L10: fault 'hang' streams the content and never finishes; an abort ends it with the partial kept", () => {
    const controller = new AbortController();
    const provider = fauxProvider([{ content: "stuck here", fault: "hang" }]);
    const events: AssistantMessageEvent[] = [];
    let completed = false;
    stream(provider, [], { signal: controller.signal }).subscribe({ next: (e) => events.push(e), complete: () => (completed = true) });
    expect(completed).toBe(false);
    expect(events.at(-1)?.type).toBe("text_end");
    controller.abort();
    expect(completed).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "error", reason: "aborted", error: { stopReason: "aborted", content: [{ type: "text", text: "stuck here" }] } });
  });

  it("L10: an already aborted signal gets an aborted reply at once", () => {
    const controller = new AbortController();
    controller.abort();
    const events = syncEvents(fauxProvider([{ content: "never" }]), [], { signal: controller.signal });
    expect(events.map((e) => e.type)).toEqual(["error"]);
  });
});

describe("fauxProvider: pacing in virtual time (SPEC L12)", () => {
  it("L12: with a scheduler, start goes out on subscribe and every later event `delay` frames after the previous one", () => {
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      const provider = fauxProvider([{ content: "abcdef" }], { scheduler, delay: 3, chunkSize: 3 });
      const types = stream(provider).pipe(map((e) => e.type));
      expectObservable(types).toBe("a 2ms b 2ms c 2ms d 2ms e 2ms (f|)", { a: "start", b: "text_start", c: "text_delta", d: "text_delta", e: "text_end", f: "done" });
    });
  });

  it("L12: the message timestamp is the scheduler's clock at request time", () => {
    const scheduler = newScheduler();
    let final: AssistantMessage | undefined;
    scheduler.run(({ cold }) => {
      const provider = fauxProvider([{ content: "x" }], { scheduler });
      cold("12ms r").subscribe(() => stream(provider).subscribe((e) => (final = e.type === "done" ? e.message : final)));
    });
    expect(final?.timestamp).toBe(12);
  });

  it("L10: unsubscribing stops the paced stream", () => {
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      const provider = fauxProvider([{ content: "abcdef" }], { scheduler, delay: 1, chunkSize: 1 });
      expectObservable(stream(provider).pipe(map((e) => e.type)), "^--!").toBe("abc", { a: "start", b: "text_start", c: "text_delta" });
    });
  });
});
