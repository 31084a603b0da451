/**
 * A steering or follow-up queue (SPEC L7, Q1–Q4): messages wait in it for the loop's next poll.
 *
 * @module
 */
import type { Observable, Subscription } from "rxjs";
import type { AgentMessage } from "../model/types.js";
import type { QueueMode } from "./loop-config.js";

const NONE: readonly AgentMessage[] = Object.freeze([]);

/**
 * Messages waiting for the loop's next poll, taken the oldest first (`one-at-a-time`) or all at
 * once (`all`). Fed by `enqueue` or by a stream ({@link MessageQueue.feed}): the `Agent`'s
 * `steer()` enqueues into its steering queue, and a run given `steering$` buffers that stream in
 * a queue of its own.
 *
 * @example
 * ```ts
 * const queue = new MessageQueue("all");
 * const feeding = queue.feed(input$.pipe(debounceTime(300), map(toUserMessage)));
 * const config = { model, getSteeringMessages: () => queue.drain() };
 * ```
 */
export class MessageQueue {
  // The shared empty list until the first message: an idle queue holds no array of its own.
  private items: readonly AgentMessage[] = NONE;

  constructor(public mode: QueueMode = "one-at-a-time") {}

  enqueue(message: AgentMessage): void {
    if (this.items === NONE) this.items = [message];
    else (this.items as AgentMessage[]).push(message);
  }

  /**
   * Enqueues every message `source` emits until the returned subscription is unsubscribed.
   * An error of `source` goes to `onError` (it stops the feeding, not the queue).
   */
  feed(source: Observable<AgentMessage>, onError?: (error: unknown) => void): Subscription {
    return source.subscribe({ next: (message) => this.enqueue(message), error: onError });
  }

  get size(): number {
    return this.items.length;
  }

  /** What the next poll would take, without taking it: the oldest message, or all in `all` mode. */
  peek(): AgentMessage[] {
    if (this.mode === "all") return this.items.slice();
    return this.items.length > 0 ? [this.items[0]!] : [];
  }

  /** Takes what {@link MessageQueue.peek} shows. */
  drain(): AgentMessage[] {
    const taken = this.peek();
    if (taken.length > 0) this.items = this.items.slice(taken.length);
    return taken;
  }

  /** Empties the queue. @return What it held. */
  clear(): AgentMessage[] {
    const cleared = this.items;
    this.items = NONE;
    return cleared === NONE ? [] : (cleared as AgentMessage[]);
  }
}
