/**
 * Where a run takes its steering and follow-up messages from (SPEC L7, Q1–Q3): the poll
 * callbacks pi has, or streams the run buffers from its start and drains at the same poll points.
 *
 * @module
 */
import { isObservable, type Observable, type Subscription, throwError } from "rxjs";
import type { AgentMessage } from "../model/types.js";
import type { MaybeAsync } from "../rx/maybe-async.js";
import { liftConcatMap } from "../rx/from-hook.js";
import type { QueueMode } from "./loop-config.js";
import { MessageQueue } from "./message-queue.js";

/** A hook's list of messages: `undefined` and `null` are none; anything but an array is a clear error. */
export function messagesOrNone(value: unknown, hook: string): AgentMessage[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new TypeError(`${hook} must return an array of messages, got ${typeof value}.`);
  return value;
}

/**
 * One queue as a run sees it. Built from the poll callback (`getSteeringMessages`) or from the
 * stream (`steering$`), never both; a queue with neither always polls empty.
 */
export class QueuePoll {
  private readonly buffer: MessageQueue | undefined;
  private feeding: Subscription | undefined;
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly callbackName: string,
    private readonly callback: (() => MaybeAsync<AgentMessage[]>) | undefined,
    private readonly stream: Observable<AgentMessage> | undefined,
    mode: QueueMode | undefined,
  ) {
    this.buffer = stream ? new MessageQueue(mode) : undefined;
  }

  /** Subscribes to the stream (Q1). An error of the stream fails the run at the next poll (Q2). */
  start(): void {
    if (this.stream && !this.feeding) this.feeding = this.buffer!.feed(this.stream, (error) => (this.failure ??= { error }));
  }

  /**
   * Unsubscribes from the stream (Q2) and returns what it had sent that no poll took (Q3).
   * Idempotent: a second call returns nothing.
   */
  stop(): AgentMessage[] {
    if (!this.feeding) return [];
    this.feeding.unsubscribe();
    this.feeding = undefined;
    return this.buffer!.clear();
  }

  /** Whether the stream has sent messages no poll took yet (callbacks cannot tell: false). */
  hasWaiting(): boolean {
    return this.buffer !== undefined && this.buffer.size > 0;
  }

  /**
   * What one poll takes, then what `project` makes of it, as `concatMap(project)` would
   * (`liftConcatMap`): at once when the poll is synchronous (the callback returns an array, or the
   * stream is buffered: SPEC L12), so the common poll costs no operator. Polled now: a
   * phase polls when its step is taken, and what it returns is subscribed at once. A stream's
   * error fails the poll.
   */
  take<T>(project: (messages: AgentMessage[]) => Observable<T>): Observable<T> {
    if (this.buffer) {
      if (this.failure) return throwError(() => this.failure!.error);
      return project(this.buffer.drain());
    }
    const callback = this.callback;
    if (!callback) return project([]);
    return liftConcatMap<unknown, T>(callback(), (value) => project(messagesOrNone(value, this.callbackName)));
  }
}

/** Throws at call time when a queue is given both ways (Q1). */
export function assertOneQueueSource(callback: unknown, stream: unknown, callbackName: string, streamName: string): void {
  if (callback !== undefined && stream !== undefined) {
    throw new TypeError(`Give ${callbackName} or ${streamName}, not both: a run takes each queue from one source.`);
  }
  if (stream !== undefined && !isObservable(stream)) throw new TypeError(`${streamName} must be an Observable of messages.`);
}
