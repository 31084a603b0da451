/**
 * The steering and follow-up queues of the `Agent` (SPEC L7).
 *
 * @module
 */
import type { AgentMessage, QueueMode } from "./types.js";

/** Messages waiting for the loop's next poll. */
export class MessageQueue {
  private items: AgentMessage[] = [];

  constructor(public mode: QueueMode) {}

  enqueue(message: AgentMessage): void {
    this.items.push(message);
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
    this.items = this.items.slice(taken.length);
    return taken;
  }

  clear(): void {
    this.items = [];
  }
}
