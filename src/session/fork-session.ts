/**
 * Forking a session (SPEC S7): a new session that starts from a committed point of another —
 * retry from message N, try a prompt two ways — and shares nothing mutable with it.
 *
 * @module
 */
import { defer, isObservable, type Observable, of } from "rxjs";
import { andThenValue, maybeAsync } from "../rx/maybe-async.js";
import { checkJournal, JOURNAL_VERSION, type JournalEntry } from "./journal-entry.js";
import { replayJournal } from "./session-image.js";
import { SessionConflictError, SessionError } from "./session-errors.js";
import type { AssistantMessage, ToolCall, ToolResultMessage } from "../model/messages.js";
import type { AgentMessage } from "../model/types.js";
import { errorOutcome, toolResultMessage } from "../tools/tool-result.js";
import type { SessionStore } from "./session-store.js";

/** Where a fork starts: after journal entry `seq`, or with the first `messages` messages of the transcript. */
export type ForkPoint = { readonly seq: number } | { readonly messages: number };

/** Options of {@link forkSession}. */
export interface ForkOptions {
  /** The store of the new session; the source's by default. */
  target?: SessionStore | undefined;
  /** Who writes the fork (a lease is taken for the write and released after). */
  owner?: string | undefined;
  /** The clock of the entries. */
  now?: (() => number) | undefined;
}

/** What a fork wrote. */
export interface ForkResult {
  readonly id: string;
  /** How many messages the fork's transcript starts with. */
  readonly messages: number;
  /** Where in the source it was taken: the source's last entry that counted. */
  readonly fromSeq: number;
}

/**
 * Writes session `toId` as `fromId` was at `at`: its transcript (the first N messages, or the
 * transcript after entry `seq`) and the messages still queued there. The fork has no open run,
 * so nothing a crash left open is carried over: call `resume()` then `continue()` or `prompt()`
 * on an Agent of the fork. The entries are copies (JSON), so the two sessions share no object.
 * Cold: nothing happens until it is subscribed; with a synchronous store it runs synchronously.
 * Errors when `toId` exists already (`SessionConflictError`), or `at` is outside the source.
 *
 * @example
 * ```ts
 * // Retry from the third message, with another prompt:
 * await lastValueFrom(forkSession(store, "chat-1", "chat-1-retry", { messages: 3 }));
 * const retry = new Agent({ ...options, session: agentSession({ store, id: "chat-1-retry" }) });
 * await retry.resume();
 * await retry.prompt("Try it differently.");
 * ```
 */
export function forkSession(store: SessionStore, fromId: string, toId: string, at: ForkPoint, options: ForkOptions = {}): Observable<ForkResult> {
  return defer(() => {
    const forked = fork(store, fromId, toId, at, options);
    return isObservable(forked) ? forked : of(forked);
  });
}

function fork(store: SessionStore, fromId: string, toId: string, at: ForkPoint, options: ForkOptions): ForkResult | Observable<ForkResult> {
  const target = options.target ?? store;
  if (fromId === toId && target === store) throw new TypeError("forkSession() needs a new id for the fork.");
  return andThenValue(maybeAsync(() => store.load(fromId), "error"), (loaded) => {
    if (!loaded) throw new SessionError(`Session "${fromId}" does not exist: nothing to fork.`, fromId);
    const { cut, fromSeq } = cutAt(checkJournal(loaded.entries, fromId), at, fromId);
    const image = replayJournal(cut);
    const t = (options.now ?? Date.now)();
    const messages = answerOpenCalls("messages" in at ? image.messages.slice(0, at.messages) : image.messages, t);
    const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
    const entries: JournalEntry[] = [
      { v: JOURNAL_VERSION, seq: 1, at: t, type: "created", sessionId: toId, forkedFrom: { sessionId: fromId, seq: fromSeq } },
      { v: JOURNAL_VERSION, seq: 2, at: t, type: "transcript", messages: copy(messages) },
    ];
    for (const [queue, queued] of [["steering", image.steering], ["followUp", image.followUp]] as const) {
      for (const { message } of queued) entries.push({ v: JOURNAL_VERSION, seq: entries.length + 1, at: t, type: "queued", queue, message: copy(message) });
    }
    const result: ForkResult = { id: toId, messages: messages.length, fromSeq };
    // Looked at before taking a lease: a lease on a session in use would fence its writer out.
    return andThenValue(maybeAsync(() => target.load(toId), "error"), (found) => {
      if (found) throw new SessionConflictError(toId, 0, found.entries.length);
      return writeNew(target, toId, entries, options.owner ?? "rxagent-fork", result);
    });
  });
}

/** The text of a result a fork gives a call that had none at the fork point. */
export const FORKED_TOOL_TEXT = "not run: this session was forked before the call had a result";

/**
 * `messages`, with an error result for each call of the last assistant message that has none: a
 * fork taken inside a tool batch must still be a transcript a model accepts (SPEC T3).
 */
function answerOpenCalls(messages: readonly AgentMessage[], timestamp: number): readonly AgentMessage[] {
  let at = messages.length - 1;
  while (at >= 0 && (messages[at] as { role?: string }).role === "toolResult") at--;
  const last = messages[at] as AssistantMessage | undefined;
  if (!last || last.role !== "assistant" || last.stopReason === "error" || last.stopReason === "aborted") return messages;
  const answered = new Set(messages.slice(at + 1).map((m) => (m as ToolResultMessage).toolCallId));
  const open = last.content.filter((block): block is ToolCall => block.type === "toolCall" && !answered.has(block.id));
  if (open.length === 0) return messages;
  return [...messages, ...open.map((call) => toolResultMessage(errorOutcome(call, FORKED_TOOL_TEXT), timestamp))];
}

/** Writes a new journal under a lease of its own, released after. */
function writeNew(target: SessionStore, id: string, entries: JournalEntry[], owner: string, result: ForkResult): ForkResult | Observable<ForkResult> {
  const ttlMs = 60_000;
  return andThenValue(maybeAsync(() => target.acquire(id, { owner, ttlMs }), "error"), (lease) =>
    andThenValue(maybeAsync(() => target.append(id, entries, { expectedSeq: 0, token: lease.token, ttlMs }), "error"), () =>
      andThenValue(maybeAsync(() => target.release(id, lease.token), "error"), () => result),
    ),
  );
}

/** The entries up to the fork point, and the seq it stands for. */
function cutAt(entries: readonly JournalEntry[], at: ForkPoint, fromId: string): { cut: readonly JournalEntry[]; fromSeq: number } {
  if ("seq" in at) {
    if (!Number.isInteger(at.seq) || at.seq < 1 || at.seq > entries.length) throw new RangeError(`forkSession(): session "${fromId}" has entries 1 to ${entries.length}; there is no entry ${at.seq}.`);
    return { cut: entries.slice(0, at.seq), fromSeq: at.seq };
  }
  const total = replayJournal(entries).messages.length;
  if (!Number.isInteger(at.messages) || at.messages < 0 || at.messages > total) throw new RangeError(`forkSession(): session "${fromId}" has ${total} messages; cannot fork with ${at.messages}.`);
  // The transcript as it is now, cut to N messages; the queues as they are now.
  return { cut: entries, fromSeq: entries.length };
}
