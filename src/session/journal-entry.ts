/**
 * What a session journal holds (SPEC S1): plain JSON entries, each with the format version `v`
 * and its position `seq` (1, 2, 3, ... with no gap). Replaying them in order gives the Agent's
 * transcript, queues and last error back (see `session-image.ts`).
 *
 * @module
 */
import type { AgentMessage, RunOutcome } from "../model/types.js";
import type { AgentToolResult } from "../model/tool-types.js";
import { SessionCorruptError } from "./session-errors.js";

/** The journal format this release writes and reads. */
export const JOURNAL_VERSION = 1;

/** Which queue a queue entry is about. */
export type JournalQueue = "steering" | "followUp";

/** How a tool call whose outcome a crash left unknown is recovered: run again, or answered with an error. */
export type ReplayPolicy = "never" | "safe";

interface Base {
  readonly v: typeof JOURNAL_VERSION;
  readonly seq: number;
  /** Epoch milliseconds (the Agent's clock). */
  readonly at: number;
}

/** Always the first entry: names the session, and where it was forked from. */
export interface CreatedEntry extends Base {
  readonly type: "created";
  readonly sessionId: string;
  readonly forkedFrom?: { readonly sessionId: string; readonly seq: number };
}

/** The transcript replaced as a whole: the initial one, `state.messages = …`, `reset()`, `setSystemPrompt()`. */
export interface TranscriptEntry extends Base {
  readonly type: "transcript";
  readonly messages: readonly AgentMessage[];
  /** Written by `reset()`, which also forgets the last error. */
  readonly reset?: true;
}

/** A message committed at its `message_end`. `delivers` is the seq of the `queued` entry it came from. */
export interface MessageEntry extends Base {
  readonly type: "message";
  readonly message: AgentMessage;
  readonly delivers?: number;
}

/** A message put in a queue by `steer()`, `followUp()` or a stream routed into one. */
export interface QueuedEntry extends Base {
  readonly type: "queued";
  readonly queue: JournalQueue;
  readonly message: AgentMessage;
}

/** A poll took these queued entries (by seq); they count as delivered once their message is committed. */
export interface TakenEntry extends Base {
  readonly type: "taken";
  readonly queue: JournalQueue;
  readonly entries: readonly number[];
}

/** The queue was cleared: these queued entries (by seq) will never be delivered. */
export interface ClearedEntry extends Base {
  readonly type: "cleared";
  readonly queue: JournalQueue;
  readonly entries: readonly number[];
}

/** A run began (`agent_start`). */
export interface RunStartedEntry extends Base {
  readonly type: "run_started";
}

/**
 * The run was told to stop before it ended: `abort()` was called, or `finishTurn` decided `end`.
 * A resume closes such a run instead of continuing it.
 */
export interface RunStoppingEntry extends Base {
  readonly type: "run_stopping";
  readonly reason: "aborted" | "ended";
}

/**
 * A run settled, after its `agent_end` listeners; `errorMessage` is the Agent's error after it,
 * `outcome` how it ended (SPEC A9; absent in journals of releases before it, and for a crashed
 * run a resume closed when its transcript does not say).
 */
export interface RunEndedEntry extends Base {
  readonly type: "run_ended";
  readonly errorMessage?: string;
  readonly outcome?: RunOutcome;
}

/** A tool call is about to run (`tool_execution_start`), with its tool's replay policy then. */
export interface ToolStartedEntry extends Base {
  readonly type: "tool_started";
  readonly toolCallId: string;
  readonly toolName: string;
  readonly replay: ReplayPolicy;
  /**
   * A `tool_executing` entry follows when the tool really executes (after preflight and
   * approval): without one, the call never ran. Absent in journals of releases before it: such
   * a call may have run.
   */
  readonly tracksExecution?: true;
}

/** The call's tool is executing: on record before it is called (SPEC S5). */
export interface ToolExecutingEntry extends Base {
  readonly type: "tool_executing";
  readonly toolCallId: string;
}

/** A tool call's final outcome (`tool_execution_end`), before its result message is committed. */
export interface ToolEndedEntry extends Base {
  readonly type: "tool_ended";
  readonly toolCallId: string;
  readonly toolName: string;
  readonly result: AgentToolResult;
  readonly isError: boolean;
  readonly durationMs?: number;
}

/** A tool call waits for a human (`tool_approval_request`), with the arguments it would run with (SPEC R1). */
export interface ApprovalRequestedEntry extends Base {
  readonly type: "approval_requested";
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: unknown;
}

/** The answer to a call's approval (`tool_approval_end`); `args` when it was approved with edited arguments. */
export interface ApprovalAnsweredEntry extends Base {
  readonly type: "approval_answered";
  readonly toolCallId: string;
  readonly approved: boolean;
  readonly reason?: string;
  readonly args?: unknown;
}

/** One entry of a session journal. */
export type JournalEntry =
  | CreatedEntry
  | TranscriptEntry
  | MessageEntry
  | QueuedEntry
  | TakenEntry
  | ClearedEntry
  | RunStartedEntry
  | RunStoppingEntry
  | RunEndedEntry
  | ToolStartedEntry
  | ToolExecutingEntry
  | ToolEndedEntry
  | ApprovalRequestedEntry
  | ApprovalAnsweredEntry;


const OUTCOMES: ReadonlySet<unknown> = new Set<RunOutcome>(["completed", "aborted", "failed", "limit"]);
const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
const isQueue = (value: unknown): value is JournalQueue => value === "steering" || value === "followUp";
const isSeqList = (value: unknown): value is number[] => Array.isArray(value) && value.every((n) => Number.isInteger(n) && n > 0);
const isMessage = (value: unknown): value is AgentMessage => isRecord(value) && typeof value.role === "string";

/** What each entry type needs beyond `v`, `seq`, `at` and `type`: a reason when it is missing. */
const shapes: Record<JournalEntry["type"], (e: Record<string, unknown>) => string | undefined> = {
  created: (e) => (typeof e.sessionId === "string" ? undefined : "a created entry needs sessionId"),
  transcript: (e) => (Array.isArray(e.messages) && e.messages.every(isMessage) ? undefined : "a transcript entry needs messages"),
  message: (e) => (isMessage(e.message) ? undefined : "a message entry needs a message with a role"),
  queued: (e) => (isQueue(e.queue) && isMessage(e.message) ? undefined : "a queued entry needs a queue and a message"),
  taken: (e) => (isQueue(e.queue) && isSeqList(e.entries) ? undefined : "a taken entry needs a queue and entry numbers"),
  cleared: (e) => (isQueue(e.queue) && isSeqList(e.entries) ? undefined : "a cleared entry needs a queue and entry numbers"),
  run_started: () => undefined,
  run_stopping: (e) => (e.reason === "aborted" || e.reason === "ended" ? undefined : "a run_stopping entry needs a reason: aborted or ended"),
  run_ended: (e) =>
    e.errorMessage !== undefined && typeof e.errorMessage !== "string"
      ? "errorMessage must be a string"
      : e.outcome === undefined || OUTCOMES.has(e.outcome)
        ? undefined
        : "outcome must be completed, aborted, failed or limit",
  tool_started: (e) => (typeof e.toolCallId === "string" && typeof e.toolName === "string" && (e.replay === "never" || e.replay === "safe") ? undefined : "a tool_started entry needs toolCallId, toolName and replay"),
  tool_executing: (e) => (typeof e.toolCallId === "string" ? undefined : "a tool_executing entry needs toolCallId"),
  approval_requested: (e) => (typeof e.toolCallId === "string" && typeof e.toolName === "string" ? undefined : "an approval_requested entry needs toolCallId and toolName"),
  approval_answered: (e) =>
    typeof e.toolCallId === "string" && typeof e.approved === "boolean" && (e.reason === undefined || typeof e.reason === "string") ? undefined : "an approval_answered entry needs toolCallId and approved",
  tool_ended: (e) => (typeof e.toolCallId === "string" && typeof e.toolName === "string" && isRecord(e.result) && typeof e.isError === "boolean" ? undefined : "a tool_ended entry needs toolCallId, toolName, result and isError"),
};

/**
 * Checks one decoded record against the format: the version, the seq it must have, the type and
 * the fields the type needs. Throws `SessionCorruptError` naming what is wrong.
 *
 * @param expectedSeq The seq this entry must carry (its position, 1-based).
 */
export function checkEntry(value: unknown, sessionId: string, expectedSeq: number): JournalEntry {
  const fail = (reason: string): never => {
    throw new SessionCorruptError(sessionId, expectedSeq, reason);
  };
  if (!isRecord(value)) return fail("the entry is not a JSON object");
  if (value.v !== JOURNAL_VERSION) return fail(`the entry has format version ${JSON.stringify(value.v)}; this release reads version ${JOURNAL_VERSION}`);
  if (value.seq !== expectedSeq) return fail(`the entry has seq ${JSON.stringify(value.seq)} where ${expectedSeq} was expected (a gap or a repeat)`);
  if (typeof value.at !== "number") return fail("the entry has no time `at`");
  const shape = typeof value.type === "string" ? shapes[value.type as JournalEntry["type"]] : undefined;
  if (!shape) return fail(`unknown entry type ${JSON.stringify(value.type)}`);
  const problem = shape(value);
  if (problem) return fail(problem);
  if (expectedSeq === 1 && value.type !== "created") return fail("the first entry must be the created entry");
  if (value.type === "created" && expectedSeq !== 1) return fail("a created entry after the first");
  if (value.type === "created" && value.sessionId !== sessionId) return fail(`the journal belongs to session "${String(value.sessionId)}"`);
  return value as unknown as JournalEntry;
}

/** Checks a whole journal, entry by entry (see {@link checkEntry}). */
export function checkJournal(entries: readonly unknown[], sessionId: string): JournalEntry[] {
  return entries.map((entry, index) => checkEntry(entry, sessionId, index + 1));
}
