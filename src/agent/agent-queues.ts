/**
 * The Agent's steering and follow-up queues (SPEC L7, A2, Q4): `steer()`, `followUp()` and the
 * streams routed with `steerFrom()` / `followUpFrom()` feed two {@link MessageQueue}s, which
 * outlive runs; each run polls them.
 *
 * @module
 */
import type { Observable, Subscription } from "rxjs";
import type { QueueMode } from "../loop/loop-config.js";
import { MessageQueue } from "../loop/message-queue.js";
import type { AgentMessage } from "../model/types.js";

/** Which of the two queues. */
export type QueueName = "steering" | "followUp";

/** Told of every change to the queues (the session journal, SPEC S1). */
export interface QueueObserver {
  enqueued(queue: QueueName, message: AgentMessage): void;
  took(queue: QueueName, messages: readonly AgentMessage[]): void;
  cleared(queue: QueueName, messages: readonly AgentMessage[]): void;
}

/** Where a stream routed into a queue reports that it failed (the Agent's state). */
export interface StreamFailureSink {
  streamFailed(source: string, error: unknown): void;
}

/** The two queues, fed by streams. Takes and clears go through here, so an observer sees each. */
export class AgentQueues {
  /** Told of changes from when it is set. */
  observer: QueueObserver | undefined;
  readonly steering: MessageQueue;
  readonly followUp: MessageQueue;

  /** @param failures Where a failing stream given to `steerFrom` / `followUpFrom` is reported (its routing stops). */
  constructor(
    steeringMode: QueueMode,
    followUpMode: QueueMode,
    private readonly failures: StreamFailureSink,
  ) {
    // Plain queues, no Subject and standing subscription per queue: an idle Agent holds only its messages.
    this.steering = new MessageQueue(steeringMode);
    this.followUp = new MessageQueue(followUpMode);
  }

  /** A message joins `name`; the observer is told. */
  private enqueue(name: QueueName, message: AgentMessage): void {
    this.queue(name).enqueue(message);
    this.observer?.enqueued(name, message);
  }

  /** The queue called `name`. */
  queue(name: QueueName): MessageQueue {
    return name === "steering" ? this.steering : this.followUp;
  }

  /** What a poll of `name` takes (SPEC L7). */
  take(name: QueueName): AgentMessage[] {
    const taken = this.queue(name).drain();
    if (taken.length > 0) this.observer?.took(name, taken);
    return taken;
  }

  /** Empties `name`. */
  clearQueue(name: QueueName): void {
    const cleared = this.queue(name).clear();
    if (cleared.length > 0) this.observer?.cleared(name, cleared);
  }

  /** Puts messages a journal held back in `name`, as they were (nothing is told). */
  restore(name: QueueName, messages: readonly AgentMessage[]): void {
    for (const message of messages) this.queue(name).enqueue(message);
  }

  steer(message: AgentMessage): void {
    this.enqueue("steering", message);
  }

  queueFollowUp(message: AgentMessage): void {
    this.enqueue("followUp", message);
  }

  /** Routes `messages` into steering until the returned subscription ends. */
  steerFrom(messages: Observable<AgentMessage>): Subscription {
    return messages.subscribe({ next: (message) => this.enqueue("steering", message), error: (error: unknown) => this.failures.streamFailed("steerFrom", error) });
  }

  /** Routes `messages` into follow-up until the returned subscription ends. */
  followUpFrom(messages: Observable<AgentMessage>): Subscription {
    return messages.subscribe({ next: (message) => this.enqueue("followUp", message), error: (error: unknown) => this.failures.streamFailed("followUpFrom", error) });
  }

  clear(): void {
    this.clearQueue("steering");
    this.clearQueue("followUp");
  }

  /** Whether either queue holds a message. */
  hasMessages(): boolean {
    return this.steering.size > 0 || this.followUp.size > 0;
  }

  /** What the next poll would take: steering first, else follow-up. */
  peek(): AgentMessage[] {
    const steering = this.steering.peek();
    return steering.length > 0 ? steering : this.followUp.peek();
  }
}
