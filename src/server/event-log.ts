/**
 * One hosted session's events, numbered, kept for the followers that reconnect. Each event is
 * serialized once, whatever the number of followers. What a follower resumes from:
 *
 * - an id of this log still held: the events after it, exactly;
 * - anything else (an id of an earlier server process, one too old, none): the state at the last
 *   checkpoint, then the events after it. A checkpoint is the state after any event where no
 *   assistant message is streaming, so the events after it hold the whole of the message that
 *   streams now, from its `message_start`.
 *
 * Memory is bounded by `maxReplayBytes` of serialized events, but the events since the last
 * checkpoint are always kept (one streamed message's worth).
 *
 * @module
 */
import { reduceAgentState, viewOfState, type AgentStateValue, type AgentStateView } from "../agent/agent-state-reducer.js";
import type { AgentEvent } from "../model/types.js";
import { foldView } from "../wire/view-fold.js";
import { publicView } from "./public-view.js";
import { WireEventEncoder } from "../wire/wire-event.js";

/**
 * One entry as sent: its number in the log, what it is — an agent event (its wire form), or a
 * state installed at once (the session hosted, or its state changed between runs) — and its
 * serialized data.
 */
export interface LoggedEvent {
  readonly n: number;
  readonly kind: "event" | "state";
  readonly data: string;
}

/** What a follower gets before the live events: the events after its id, or a state and the events after it. */
export type Replay =
  | { readonly kind: "events"; readonly events: readonly LoggedEvent[] }
  | { readonly kind: "snapshot"; readonly n: number; readonly data: string; readonly events: readonly LoggedEvent[] };

/**
 * The log of one hosted session.
 *
 * @example
 * ```ts
 * const log = new EventLog("k3j9", initialValue, 4 << 20);
 * agent.events$.subscribe((event) => broadcast(log.append(event)));
 * const replay = log.replayAfter(request.headers.get("last-event-id"));
 * ```
 */
export class EventLog {
  private state: AgentStateValue;
  private checkpoint: { n: number; state: AgentStateValue; data?: string };
  private readonly events: LoggedEvent[] = [];
  private bytes = 0;
  private n = 0;
  private readonly encoder = new WireEventEncoder();

  /** @param epoch - Names this log among the logs of the session's server processes: ids carry it. */
  constructor(
    readonly epoch: string,
    initial: AgentStateValue,
    private readonly maxReplayBytes: number,
  ) {
    this.state = initial;
    this.checkpoint = { n: 0, state: initial };
  }

  /** The id of event `n` of this log. */
  idOf(n: number): string {
    return `${this.epoch}.${n}`;
  }

  /** The id of the newest event, or of the start. */
  get lastId(): string {
    return this.idOf(this.n);
  }

  /** The state after the newest event. */
  get view(): AgentStateValue {
    return this.state;
  }

  /** Numbers, folds and keeps `event`; returns it as sent. Throws, changing nothing, when the event cannot be serialized. */
  append(event: AgentEvent): LoggedEvent {
    const data = serialized(this.encoder.encode(event));
    this.state = foldView(this.state, event);
    return this.keep({ n: ++this.n, kind: "event", data });
  }

  /** Installs `view` (between runs: what changed without events); returns it as sent. */
  install(view: AgentStateView): LoggedEvent {
    const data = serialized(publicView(view));
    this.state = reduceAgentState(this.state, { type: "[state] installed", view });
    return this.keep({ n: ++this.n, kind: "state", data });
  }

  private keep(logged: LoggedEvent): LoggedEvent {
    this.events.push(logged);
    this.bytes += logged.data.length;
    if (!isAssistantStreaming(this.state)) this.checkpoint = { n: logged.n, state: this.state };
    this.trim();
    return logged;
  }

  /** What a follower whose last event was `lastId` (none: a new follower) gets first. */
  replayAfter(lastId: string | null | undefined): Replay {
    const after = this.numberIn(lastId);
    const first = this.events[0]?.n ?? this.n + 1;
    if (after !== undefined && after >= first - 1 && after <= this.n) return { kind: "events", events: this.events.slice(after - first + 1) };
    const { n } = this.checkpoint;
    return { kind: "snapshot", n, data: this.checkpointData(), events: this.events.slice(n - first + 1) };
  }

  /** The number of the entry after which the log's checkpoint is: where no assistant message streams. */
  get checkpointNumber(): number {
    return this.checkpoint.n;
  }

  /** The number of the newest entry. */
  get lastNumber(): number {
    return this.n;
  }

  /** The checkpoint's state as sent (serialized once per checkpoint, whatever the number of resumes). */
  checkpointData(): string {
    return (this.checkpoint.data ??= serialized(publicView(viewOfState(this.checkpoint.state))));
  }

  /** The number in an id of this log; `undefined` for an id of another log or no id. */
  private numberIn(id: string | null | undefined): number | undefined {
    if (!id) return undefined;
    const dot = id.lastIndexOf(".");
    if (dot < 0 || id.slice(0, dot) !== this.epoch) return undefined;
    const digits = id.slice(dot + 1);
    return /^\d{1,15}$/.test(digits) ? Number(digits) : undefined;
  }

  // The oldest events go first, never those after the checkpoint; down to three quarters of the
  // bound, so the array is spliced once in many appends, not on each.
  private trim(): void {
    if (this.bytes <= this.maxReplayBytes) return;
    const target = this.maxReplayBytes * 0.75;
    let drop = 0;
    while (this.bytes > target && drop < this.events.length && this.events[drop]!.n <= this.checkpoint.n) {
      this.bytes -= this.events[drop]!.data.length;
      drop++;
    }
    if (drop > 0) this.events.splice(0, drop);
  }
}

/** JSON of `value`; a `bigint` (a tool's details may hold one) as its decimal text. */
function serialized(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === "bigint" ? inner.toString() : inner));
  }
}

function isAssistantStreaming(state: AgentStateValue): boolean {
  const message = state.run.streamingMessage as { role?: string } | undefined;
  return message?.role === "assistant";
}
