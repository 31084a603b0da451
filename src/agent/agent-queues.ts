/**
 * The Agent's steering and follow-up queues (SPEC L7, A2, Q4): `steer()` and `followUp()` are
 * `next`s on streams that feed two {@link MessageQueue}s, which outlive runs; each run polls them.
 *
 * @module
 */
import { type Observable, Subject, type Subscription } from "rxjs";
import type { QueueMode } from "../loop/loop-config.js";
import { MessageQueue } from "../loop/message-queue.js";
import type { AgentMessage } from "../model/types.js";

/** The two queues, fed by streams. */
export class AgentQueues {
  private readonly steering$ = new Subject<AgentMessage>();
  private readonly followUp$ = new Subject<AgentMessage>();
  readonly steering: MessageQueue;
  readonly followUp: MessageQueue;

  /** @param onRoutingError Told when a stream given to `steerFrom` / `followUpFrom` errors (its routing stops). */
  constructor(
    steeringMode: QueueMode,
    followUpMode: QueueMode,
    private readonly onRoutingError: (source: "steerFrom" | "followUpFrom", error: unknown) => void,
  ) {
    this.steering = new MessageQueue(steeringMode);
    this.followUp = new MessageQueue(followUpMode);
    this.steering.feed(this.steering$);
    this.followUp.feed(this.followUp$);
  }

  steer(message: AgentMessage): void {
    this.steering$.next(message);
  }

  queueFollowUp(message: AgentMessage): void {
    this.followUp$.next(message);
  }

  /** Routes `messages` into steering until the returned subscription ends. */
  steerFrom(messages: Observable<AgentMessage>): Subscription {
    return messages.subscribe({ next: (message) => this.steering$.next(message), error: (error: unknown) => this.onRoutingError("steerFrom", error) });
  }

  /** Routes `messages` into follow-up until the returned subscription ends. */
  followUpFrom(messages: Observable<AgentMessage>): Subscription {
    return messages.subscribe({ next: (message) => this.followUp$.next(message), error: (error: unknown) => this.onRoutingError("followUpFrom", error) });
  }

  clear(): void {
    this.steering.clear();
    this.followUp.clear();
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
