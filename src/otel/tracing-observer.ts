/**
 * The observer `traceAgent` subscribes to its source: it shows each event to the tracer, then
 * hands it on. Like the loop's `LinkedObserver`, it is its own subscription, so rxjs uses it as
 * the subscriber as it is and a consumer leaving inside a synchronous run stops the run there;
 * unlike it, it calls the tracer and the destination directly, with no handler in between: this
 * is the path every event of every run takes, traced or not.
 *
 * @internal
 * @module
 */
import { type Observer, type Subscriber, Subscription } from "rxjs";
import type { AgentEvent } from "../model/types.js";
import type { AgentEventTracer } from "./agent-event-tracer.js";

/** Shows events to `tracer`, then to `destination`; ends the open spans when the source ends. */
export class TracingObserver extends Subscription implements Observer<AgentEvent> {
  private stopped = false;

  constructor(
    private readonly tracer: AgentEventTracer,
    private readonly destination: Subscriber<AgentEvent>,
  ) {
    super();
  }

  next(event: AgentEvent): void {
    if (this.stopped || this.closed) return;
    this.tracer.observe(event);
    this.destination.next(event);
  }

  error(error: unknown): void {
    if (this.stopped || this.closed) return;
    this.stopped = true;
    try {
      this.tracer.close({ kind: "error", error });
      this.destination.error(error);
    } finally {
      this.unsubscribe();
    }
  }

  complete(): void {
    if (this.stopped || this.closed) return;
    this.stopped = true;
    try {
      // A stream that completes without agent_end cut its run short.
      this.tracer.close({ kind: "cancelled" });
      this.destination.complete();
    } finally {
      this.unsubscribe();
    }
  }
}
