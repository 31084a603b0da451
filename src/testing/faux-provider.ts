/**
 * A scripted provider for tests and demos: it plays assistant replies as realistic protocol
 * events and records what it was sent.
 *
 * @module
 */
import { Observable, type SchedulerLike, type Subscriber, type TeardownLogic } from "rxjs";
import { emptyAssistantMessage } from "../model/assistant-message.js";
import type {
  AssistantMessage,
  AssistantMessageEvent,
  LlmContext,
  Message,
  Model,
  StreamFn,
  StreamOptions,
  TextContent,
  ThinkingContent,
  ToolCall,
} from "../model/messages.js";
import { HANG, replyEvents } from "./faux-events.js";
import type { FauxReply } from "./faux-reply.js";

export type { FauxReply } from "./faux-reply.js";

/** One request the provider received. */
export interface FauxRequest {
  /** The 1-based number of the request. */
  readonly index: number;
  readonly model: Model;
  /** The messages the model was sent, as they were at the time of the request. */
  readonly messages: Message[];
  readonly options: StreamOptions;
}

/** A reply, or a function of the request that returns one. */
export type FauxScriptEntry = FauxReply | ((request: FauxRequest) => FauxReply);

/** Options of {@link fauxProvider}. */
export interface FauxProviderOptions {
  /** Characters per text, thinking or argument delta. Default 8. */
  chunkSize?: number | undefined;
  /** Emit one event every `delay` frames on this scheduler; synchronous when absent. */
  scheduler?: SchedulerLike | undefined;
  /** Frames (or ms) between events when a scheduler is given. Default 1. */
  delay?: number | undefined;
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

/** The reply as a cold Observable: synchronous without a scheduler, else one event every `delay` frames. */
function play(reply: FauxReply, model: Model, streamOptions: StreamOptions, chunkSize: number, options: FauxProviderOptions): Observable<AssistantMessageEvent> {
  return new Observable<AssistantMessageEvent>((subscriber) => {
    const scheduler = options.scheduler;
    const now = scheduler ? scheduler.now() : Date.now();
    const playback = new Playback(replyEvents(reply, model, now, chunkSize), subscriber, () => emptyAssistantMessage(model, now));
    const signal = streamOptions.signal;
    if (signal?.aborted) {
      playback.abort();
      return undefined;
    }
    signal?.addEventListener("abort", playback.abort);
    const cleanup = (): void => {
      playback.done = true;
      signal?.removeEventListener("abort", playback.abort);
    };
    if (!scheduler) {
      while (playback.step());
      if (playback.done) signal?.removeEventListener("abort", playback.abort);
      return cleanup;
    }
    return playScheduled(playback, scheduler, options.delay ?? 1, cleanup);
  });
}

/** Plays `start` on subscribe and every later event `delay` frames after the previous one. */
function playScheduled(playback: Playback, scheduler: SchedulerLike, delay: number, cleanup: () => void): TeardownLogic {
  if (!playback.step()) return cleanup;
  const action = scheduler.schedule(function () {
    if (playback.step()) this.schedule(undefined, delay);
  }, delay);
  return () => {
    cleanup();
    action.unsubscribe();
  };
}

/** Feeds a reply's events to one subscriber, an event per `step`, until the stream is over or aborted. */
class Playback {
  /** Whether the stream is over: ended, failed, aborted or unsubscribed. */
  done = false;
  /** The latest `partial` emitted, for the `aborted` message. */
  private last: AssistantMessage | undefined;

  constructor(
    private readonly events: Generator<AssistantMessageEvent>,
    private readonly subscriber: Subscriber<AssistantMessageEvent>,
    private readonly emptyMessage: () => AssistantMessage,
  ) {}

  /** Ends the stream with an `aborted` error event holding what was emitted; an arrow, to be an abort listener. */
  readonly abort = (): void => {
    if (this.done) return;
    this.done = true;
    const partial = this.last ?? this.emptyMessage();
    this.subscriber.next({ type: "error", reason: "aborted", error: { ...partial, stopReason: "aborted", errorMessage: "Request was aborted" } });
    this.subscriber.complete();
  };

  /** Emits the next event; false when the stream is over (or hangs). */
  step(): boolean {
    if (this.done) return false;
    let next: IteratorResult<AssistantMessageEvent>;
    try {
      next = this.events.next();
    } catch (error) {
      this.done = true;
      this.subscriber.error(error);
      return false;
    }
    if (next.done) {
      this.done = true;
      this.subscriber.complete();
      return false;
    }
    if ((next.value as unknown) === HANG) return false;
    if ("partial" in next.value) this.last = next.value.partial;
    this.subscriber.next(next.value);
    // The stream ends with its final event, not one `delay` later.
    if (next.value.type === "done" || next.value.type === "error") {
      this.done = true;
      this.subscriber.complete();
      return false;
    }
    return true;
  }
}
