/**
 * A scripted provider for tests and demos: it plays assistant replies as realistic protocol
 * events and records what it was sent.
 *
 * @module
 */
import { Observable, type SchedulerLike } from "rxjs";
import { emptyAssistantMessage, emptyUsage } from "../model/assistant-message.js";
import type {
  AssistantMessage,
  AssistantMessageEvent,
  LlmContext,
  Message,
  Model,
  StopReason,
  StreamFn,
  StreamOptions,
  TextContent,
  ThinkingContent,
  ToolCall,
  Usage,
} from "../model/messages.js";

/** One request the provider received. */
export interface FauxRequest {
  /** The 1-based number of the request. */
  readonly index: number;
  readonly model: Model;
  /** The messages the model was sent, as they were at the time of the request. */
  readonly messages: Message[];
  readonly options: StreamOptions;
}

/** A scripted reply: the final message's content and how it ends. */
export interface FauxReply {
  /** A string is one text block. */
  content: string | (TextContent | ThinkingContent | ToolCall)[];
  /** Defaults to `toolUse` when the content has tool calls, else `stop`. */
  stopReason?: StopReason;
  /** For `error` / `aborted` replies. */
  errorMessage?: string;
  usage?: Partial<Usage>;
  /**
   * Misbehave instead of answering, to test fault handling (SPEC M4): `throw` synchronously,
   * `reject` the promise, `error` the Observable mid-stream, `incomplete` (end without `done`),
   * `hang` (stream the content, then never finish).
   */
  fault?: "throw" | "reject" | "error" | "incomplete" | "hang";
}

/** A reply, or a function of the request that returns one. */
export type FauxScriptEntry = FauxReply | ((request: FauxRequest) => FauxReply);

/** Options of {@link fauxProvider}. */
export interface FauxProviderOptions {
  /** Characters per text, thinking or argument delta. Default 8. */
  chunkSize?: number;
  /** Emit one event every `delay` frames on this scheduler; synchronous when absent. */
  scheduler?: SchedulerLike;
  /** Frames (or ms) between events when a scheduler is given. Default 1. */
  delay?: number;
}

/** The scripted `StreamFn`, with what it recorded. */
export interface FauxProvider extends StreamFn {
  /** Every request received, in order. */
  readonly requests: FauxRequest[];
  /** Replies not yet played. */
  readonly remaining: number;
}

/** A text block. */
export function fauxText(text: string): TextContent {
  return { type: "text", text };
}

/** A thinking block. */
export function fauxThinking(thinking: string): ThinkingContent {
  return { type: "thinking", thinking };
}

let nextToolCallId = 0;
/** A tool-call block; the id defaults to a fresh `call_N`. */
export function fauxToolCall(name: string, args: Record<string, unknown> = {}, id = `call_${++nextToolCallId}`): ToolCall {
  return { type: "toolCall", id, name, arguments: args };
}

function chunks(text: string, size: number): string[] {
  if (text.length === 0) return [];
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

function tryParse(json: string): Record<string, unknown> {
  try {
    const value = JSON.parse(json);
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

/** The protocol events that stream `reply`, each `partial` a snapshot of the message so far. */
function* replyEvents(reply: FauxReply, model: Model, timestamp: number, chunkSize: number): Generator<AssistantMessageEvent> {
  const blocks = typeof reply.content === "string" ? [fauxText(reply.content)] : reply.content;
  const hasToolCalls = blocks.some((block) => block.type === "toolCall");
  const stopReason = reply.stopReason ?? (hasToolCalls ? "toolUse" : "stop");
  let message: AssistantMessage = {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: { ...emptyUsage(), ...reply.usage },
    stopReason: "stop",
    timestamp,
  };
  const withBlock = (index: number, block: TextContent | ThinkingContent | ToolCall): AssistantMessage => {
    const content = message.content.slice();
    content[index] = block;
    message = { ...message, content };
    return message;
  };
  yield { type: "start", partial: message };
  for (const block of blocks) {
    const index = message.content.length;
    if (block.type === "text") {
      yield { type: "text_start", contentIndex: index, partial: withBlock(index, { ...block, text: "" }) };
      let text = "";
      for (const delta of chunks(block.text, chunkSize)) {
        text += delta;
        yield { type: "text_delta", contentIndex: index, delta, partial: withBlock(index, { ...block, text }) };
      }
      yield { type: "text_end", contentIndex: index, content: block.text, partial: withBlock(index, block) };
    } else if (block.type === "thinking") {
      yield { type: "thinking_start", contentIndex: index, partial: withBlock(index, { ...block, thinking: "" }) };
      let thinking = "";
      for (const delta of chunks(block.thinking, chunkSize)) {
        thinking += delta;
        yield { type: "thinking_delta", contentIndex: index, delta, partial: withBlock(index, { ...block, thinking }) };
      }
      yield { type: "thinking_end", contentIndex: index, content: block.thinking, partial: withBlock(index, block) };
    } else {
      yield { type: "toolcall_start", contentIndex: index, partial: withBlock(index, { ...block, arguments: {} }) };
      let json = "";
      for (const delta of chunks(JSON.stringify(block.arguments), chunkSize)) {
        json += delta;
        yield { type: "toolcall_delta", contentIndex: index, delta, partial: withBlock(index, { ...block, arguments: tryParse(json) }) };
      }
      yield { type: "toolcall_end", contentIndex: index, toolCall: block, partial: withBlock(index, block) };
    }
  }
  if (reply.fault === "error") throw new Error("fauxProvider: scripted stream error");
  if (reply.fault === "incomplete") return;
  if (reply.fault === "hang") {
    yield* hang();
    return;
  }
  const final: AssistantMessage = { ...message, stopReason };
  if (stopReason === "error" || stopReason === "aborted") {
    final.errorMessage = reply.errorMessage ?? (stopReason === "error" ? "Scripted error" : "Request was aborted");
    yield { type: "error", reason: stopReason, error: final };
  } else {
    yield { type: "done", reason: stopReason, message: final };
  }
}

/** Marks the point where a `hang` fault stops emitting. */
const HANG = Symbol("hang");
function* hang(): Generator<never> {
  yield HANG as never;
}

/**
 * A `StreamFn` that plays `script`, one entry per request, as protocol events: text,
 * thinking and tool-call arguments split into deltas of `chunkSize` characters, optionally one
 * event every `delay` frames on `scheduler` so marble tests get exact frames. It records every
 * request in `requests`, answers an aborted signal with an `aborted` message, and when the
 * script runs out it answers with an `error` message saying so.
 *
 * @example
 * ```ts
 * const provider = fauxProvider([
 *   { content: [fauxToolCall("add", { a: 1, b: 2 })] },
 *   { content: "3" },
 * ]);
 * agentLoop([user("1+2?")], { messages: [], tools: [add] }, { model: provider.model }, undefined, provider);
 * provider.requests[1].messages; // ends with the tool result
 * ```
 */
export function fauxProvider(script: readonly FauxScriptEntry[], options: FauxProviderOptions = {}): FauxProvider & { model: Model } {
  const chunkSize = Math.max(1, options.chunkSize ?? 8);
  const requests: FauxRequest[] = [];
  let played = 0;

  const streamFn = (model: Model, context: LlmContext, streamOptions: StreamOptions) => {
    const source = context.messages;
    const length = source.length;
    let snapshot: Message[] | undefined;
    const request: FauxRequest = {
      index: requests.length + 1,
      model,
      // Copied when read: a copy per request would make long runs quadratic.
      get messages() {
        return (snapshot ??= source.slice(0, length));
      },
      options: streamOptions,
    };
    requests.push(request);
    const entry = script[played];
    if (entry === undefined) {
      const reply: FauxReply = {
        content: [],
        stopReason: "error",
        errorMessage: `fauxProvider: the script has no reply for request #${request.index} (${script.length} scripted).`,
      };
      return play(reply, model, streamOptions, chunkSize, options);
    }
    played++;
    const reply = typeof entry === "function" ? entry(request) : entry;
    if (reply.fault === "throw") throw new Error("fauxProvider: scripted throw");
    if (reply.fault === "reject") return Promise.reject(new Error("fauxProvider: scripted rejection"));
    return play(reply, model, streamOptions, chunkSize, options);
  };
  // defineProperty, not Object.assign: Object.assign would copy the getter's value once and
  // `remaining` would never change.
  Object.defineProperty(streamFn, "remaining", { get: () => script.length - played, enumerable: true });
  return Object.assign(streamFn as typeof streamFn & { readonly remaining: number }, {
    requests,
    model: { id: "faux-1", api: "faux", provider: "faux" } as Model,
  });
}

function play(reply: FauxReply, model: Model, streamOptions: StreamOptions, chunkSize: number, options: FauxProviderOptions): Observable<AssistantMessageEvent> {
  return new Observable<AssistantMessageEvent>((subscriber) => {
    const scheduler = options.scheduler;
    const now = scheduler ? scheduler.now() : Date.now();
    const events = replyEvents(reply, model, now, chunkSize);
    const signal = streamOptions.signal;
    let last: AssistantMessage | undefined;
    let done = false;
    const abort = (): void => {
      if (done) return;
      done = true;
      const partial = last ?? emptyAssistantMessage(model, now);
      subscriber.next({ type: "error", reason: "aborted", error: { ...partial, stopReason: "aborted", errorMessage: "Request was aborted" } });
      subscriber.complete();
    };
    /** Emits the next event; false when the stream is over. */
    const step = (): boolean => {
      if (done) return false;
      let next: IteratorResult<AssistantMessageEvent>;
      try {
        next = events.next();
      } catch (error) {
        done = true;
        subscriber.error(error);
        return false;
      }
      if (next.done) {
        done = true;
        subscriber.complete();
        return false;
      }
      if ((next.value as unknown) === HANG) return false;
      if ("partial" in next.value) last = next.value.partial;
      subscriber.next(next.value);
      // The stream ends with its final event, not one `delay` later.
      if (next.value.type === "done" || next.value.type === "error") {
        done = true;
        subscriber.complete();
        return false;
      }
      return true;
    };
    if (signal?.aborted) {
      abort();
      return undefined;
    }
    signal?.addEventListener("abort", abort);
    const cleanup = (): void => {
      done = true;
      signal?.removeEventListener("abort", abort);
    };
    if (!scheduler) {
      while (step());
      if (done) signal?.removeEventListener("abort", abort);
      return cleanup;
    }
    const delay = options.delay ?? 1;
    // `start` goes out on subscribe; every later event `delay` frames after the previous one.
    if (!step()) return cleanup;
    const action = scheduler.schedule(function () {
      if (step()) this.schedule(undefined, delay);
    }, delay);
    return () => {
      cleanup();
      action.unsubscribe();
    };
  });
}
