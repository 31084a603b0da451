/**
 * What an `Agent` writes to its session's journal (SPEC S1, S6): its run events as entries,
 * before any listener sees them, and its queue changes as they happen. It also knows which
 * queued entry a committed message delivers, so a resume delivers every queued message once.
 *
 * @module
 */
import type { Observable } from "rxjs";
import type { AgentEvent, AgentMessage, RunOutcome } from "../model/types.js";
import { type ApprovalAnsweredEntry, JOURNAL_VERSION, type JournalQueue, type ReplayPolicy, type RunEndedEntry } from "./journal-entry.js";
import type { JournalWriter } from "./journal-writer.js";
import type { QueuedMessage } from "./session-image.js";

/** The format version, short: every entry here is written with it (its `seq` is the writer's to set). */
const v = JOURNAL_VERSION;

/** Where a queued message came from: its queue and the seq of its `queued` entry. */
interface Origin {
  readonly queue: JournalQueue;
  readonly seq: number;
}

/**
 * Turns an Agent's changes into journal entries.
 *
 * @internal
 */
export class SessionRecorder {
  /** Queued messages not taken yet, per queue, by identity: one origin per time the object was queued there, oldest first. */
  private readonly queued: Record<JournalQueue, Map<AgentMessage, Origin[]>> = { steering: new Map(), followUp: new Map() };
  /** Messages a poll took that are not committed yet, in the order taken. */
  private taken: { message: AgentMessage; origin: Origin }[] = [];

  constructor(
    readonly writer: JournalWriter,
    private readonly now: () => number,
    private readonly replayOf: (toolName: string) => ReplayPolicy,
    /** Closes the session after a failed write; returns the error text for the Agent's state. */
    private readonly onFailure: (error: unknown) => string,
  ) {}

  /** The journal could not be written: the session closes itself (see `SessionJournal.failed`). */
  failed(error: unknown): string {
    return this.onFailure(error);
  }

  /** The queued messages a loaded journal left, known by their entries again (nothing is written). */
  adopt(queue: JournalQueue, messages: readonly QueuedMessage[]): void {
    for (const { seq, message } of messages) this.remember(message, { queue, seq });
  }

  enqueued(queue: JournalQueue, message: AgentMessage): void {
    void this.writer.write({ v, seq: 0, type: "queued", at: this.now(), queue, message });
    this.remember(message, { queue, seq: this.writer.seq });
  }

  private remember(message: AgentMessage, origin: Origin): void {
    const queue = this.queued[origin.queue];
    const origins = queue.get(message);
    if (origins) origins.push(origin);
    else queue.set(message, [origin]);
  }

  took(queue: JournalQueue, messages: readonly AgentMessage[]): void {
    const entries = this.forget(queue, messages, (message, origin) => this.taken.push({ message, origin }));
    if (entries.length > 0) void this.writer.write({ v, seq: 0, type: "taken", at: this.now(), queue, entries });
  }

  cleared(queue: JournalQueue, messages: readonly AgentMessage[]): void {
    const entries = this.forget(queue, messages);
    if (entries.length > 0) void this.writer.write({ v, seq: 0, type: "cleared", at: this.now(), queue, entries });
  }

  /** The transcript was replaced as a whole; `reset`: by `reset()`, which also forgets the last error. */
  replaced(messages: readonly AgentMessage[], reset = false): void {
    void this.writer.write(reset ? { v, seq: 0, type: "transcript", at: this.now(), messages, reset: true } : { v, seq: 0, type: "transcript", at: this.now(), messages });
  }

  /**
   * The entry an event stands for, written; `undefined` when it is durable already (or the event
   * writes nothing), else an Observable that completes when it is.
   */
  record(event: AgentEvent): void | Observable<void> {
    const at = this.now();
    switch (event.type) {
      case "agent_start":
        return this.writer.write({ v, seq: 0, type: "run_started", at });
      case "message_end": {
        const delivers = this.delivered(event.message);
        return this.writer.write(delivers === undefined ? { v, seq: 0, type: "message", at, message: event.message } : { v, seq: 0, type: "message", at, message: event.message, delivers });
      }
      case "tool_execution_start":
        return this.writer.write({ v, seq: 0, type: "tool_started", at, toolCallId: event.toolCallId, toolName: event.toolName, replay: this.replayOf(event.toolName), tracksExecution: true });
      case "tool_execution_end": {
        const { toolCallId, toolName, result, isError, durationMs } = event;
        return this.writer.write(durationMs === undefined ? { v, seq: 0, type: "tool_ended", at, toolCallId, toolName, result, isError } : { v, seq: 0, type: "tool_ended", at, toolCallId, toolName, result, isError, durationMs });
      }
      case "tool_approval_request":
        return this.writer.write({ v, seq: 0, type: "approval_requested", at, toolCallId: event.toolCallId, toolName: event.toolName, args: event.args });
      case "tool_approval_end": {
        const { toolCallId, approved, reason, args } = event;
        const entry: ApprovalAnsweredEntry = { v, seq: 0, type: "approval_answered", at, toolCallId, approved };
        if (reason !== undefined) (entry as { reason?: string }).reason = reason;
        if (args !== undefined) (entry as { args?: unknown }).args = args;
        return this.writer.write(entry);
      }
      default:
        // No entry of its own: still told only once every entry before it is durable (what
        // `steer()` queued, another call's end), so nothing shown can outlive an earlier entry in
        // a crash, and events are told in the order they came. `undefined`, nothing allocated,
        // when all is durable already.
        return this.writer.whenDurable();
    }
  }


  /** The call's tool is about to execute: `undefined` once that is durable, else an Observable that completes when it is. */
  executing(toolCallId: string): void | Observable<void> {
    return this.writer.write({ v, seq: 0, type: "tool_executing", at: this.now(), toolCallId });
  }

  /** The run was told to stop (`abort()`, `finishTurn` → `end`): a resume must not continue it. */
  stopping(reason: "aborted" | "ended"): void {
    void this.writer.write({ v, seq: 0, type: "run_stopping", at: this.now(), reason });
  }

  /** The run settled: it, its error and its outcome are journaled. */
  runEnded(errorMessage: string | undefined, outcome: RunOutcome | undefined): void | Observable<void> {
    // A poll's messages the run never committed are queued again by a resume; here they are gone.
    this.taken = [];
    const entry: RunEndedEntry = { v, seq: 0, type: "run_ended", at: this.now() };
    if (errorMessage !== undefined) (entry as { errorMessage?: string }).errorMessage = errorMessage;
    if (outcome !== undefined) (entry as { outcome?: RunOutcome }).outcome = outcome;
    return this.writer.write(entry);
  }

  private forget(queue: JournalQueue, messages: readonly AgentMessage[], each?: (message: AgentMessage, origin: Origin) => void): number[] {
    const entries: number[] = [];
    const queued = this.queued[queue];
    for (const message of messages) {
      // The same object queued twice is two entries: each occurrence takes the oldest left.
      const origins = queued.get(message);
      const origin = origins?.shift();
      if (!origin) continue;
      if (origins!.length === 0) queued.delete(message);
      entries.push(origin.seq);
      each?.(message, origin);
    }
    return entries;
  }

  /**
   * The queued entry a committed message delivers: the taken message itself, or — when the loop
   * declared tool changes on a taken system message and so committed a copy — the first taken
   * system message with its timestamp.
   */
  private delivered(message: AgentMessage): number | undefined {
    if (this.taken.length === 0) return undefined;
    let index = this.taken.findIndex((t) => t.message === message);
    if (index < 0) {
      const { role, timestamp } = message as { role?: string; timestamp?: number };
      if (role === "system") index = this.taken.findIndex((t) => (t.message as { role?: string }).role === "system" && (t.message as { timestamp?: number }).timestamp === timestamp);
    }
    if (index < 0) return undefined;
    const [found] = this.taken.splice(index, 1);
    return found!.origin.seq;
  }
}
