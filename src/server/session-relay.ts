/**
 * How several session-server instances share one session's entries: the instance that hosts the
 * session (it holds the durable session's lease) publishes every entry of its log, with its id;
 * another instance, whose `onHosted` met the lease held, serves the session's followers from the
 * relay, with the hosting instance's ids — so a page moving between instances resumes without a
 * gap or a repeat. `rxagent/server/postgres` is a relay over the app's PostgreSQL.
 *
 * What a relay holds of a session, in publishing order:
 *
 * - `entry`: an entry of the hosting log, told to every follower (`event` or `state`);
 * - `checkpoint`: the state after an entry, with that entry's id, published every so many bytes
 *   where no assistant message streams. Told only to a follower that starts from it: it lets the
 *   relay drop what came before, as the log drops what its checkpoint covers;
 * - `resync`: the same, after a stretch the relay missed (a failed publish, a full queue): told to
 *   every follower, whose state it replaces, as a state entry does.
 *
 * A relay keeps a session's records from its second-latest state on (a state is a `state` entry,
 * a checkpoint or a resync), so what it holds is bounded by what the host publishes between two
 * checkpoints (`relayCheckpointBytes`, or the state's size when larger), plus one streaming
 * message.
 *
 * @module
 */
import type { Observable } from "rxjs";

/** One entry as followers read it: its id (`<epoch>.<n>`), what it is, its serialized data. */
export interface RelayEntry {
  readonly id: string;
  readonly kind: "event" | "state";
  readonly data: string;
}

/** What a relayed record is to followers (see the module's text). */
export type RelayRole = "entry" | "checkpoint" | "resync";

/** One record the hosting instance publishes. */
export interface RelayRecord {
  readonly sessionId: string;
  readonly role: RelayRole;
  readonly entry: RelayEntry;
}

/**
 * Where the hosting instance publishes its sessions' entries and other instances read them.
 *
 * @example
 * ```ts
 * import { createSessionServer } from "rxagent/server";
 * import { postgresRelay } from "rxagent/server/postgres";
 * const relay = postgresRelay({ pool });
 * const server = createSessionServer({ agentFor, authenticate, authorize, onHosted, relay });
 * ```
 */
export interface SessionRelay {
  /**
   * Stores `records` (of any sessions, in order). The server calls it one batch at a time, off
   * the Agent's path; a rejection is reported (`onError`) and the session resynced.
   */
  publish(records: readonly RelayRecord[]): Promise<void>;
  /**
   * The entries of session `sessionId` for a follower whose last entry was `lastId`: first (one
   * batch, maybe empty) the entries after it while the relay holds it, else the latest state
   * then the entries after it; then each new batch as it is published. Cold: each subscription
   * reads on its own and stops reading when unsubscribed.
   */
  follow(sessionId: string, lastId: string | null | undefined): Observable<readonly RelayEntry[]>;
  /** Commands for a session sent to the instance that hosts it; without it, such commands are a 409. */
  readonly commands?: CommandRelay;
}

/** A command's answer as the hosting instance gave it: its HTTP status and JSON body. */
export interface ForwardedAnswer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * Commands forwarded between instances: the instance a command reached sends it on; the one
 * that hosts the session applies it (validated again) and answers.
 *
 * @example
 * ```ts
 * const answer = await relay.commands?.forward("chat-1", { type: "abort" }, 10_000);
 * ```
 */
export interface CommandRelay {
  /** Sends `command` (authorized here) to the host of `sessionId`; its answer, or `undefined` when none came within `timeoutMs`. */
  forward(sessionId: string, command: unknown, timeoutMs: number): Promise<ForwardedAnswer | undefined>;
  /**
   * Applies the commands forwarded to the sessions `hostedIds()` names, with `apply`, until
   * `stop()`; `wake()` looks again at once (a session began to be hosted here: commands sent
   * while it was being hosted wait for it).
   */
  serve(hostedIds: () => readonly string[], apply: (sessionId: string, command: unknown) => Promise<ForwardedAnswer>): { stop(): void; wake(): void };
}

/** An entry's place: the hosting (`epoch`) and its number there. */
export interface EntryPosition {
  readonly epoch: string;
  readonly n: number;
}

/** The epoch and number of an id `<epoch>.<n>`; `undefined` for anything else. */
export function entryPosition(id: string | null | undefined): EntryPosition | undefined {
  if (!id) return undefined;
  const dot = id.lastIndexOf(".");
  const digits = id.slice(dot + 1);
  if (dot <= 0 || !/^\d{1,15}$/.test(digits)) return undefined;
  return { epoch: id.slice(0, dot), n: Number(digits) };
}

/** A record the relay holds, without its data, in publishing order (`key` grows). */
export interface HeldRecord {
  readonly key: number;
  readonly role: RelayRole;
  readonly entry: Pick<RelayEntry, "id" | "kind">;
}

/**
 * What a follower reads first: the record `base` (a state, sent whatever its role), then the
 * told records (`entry`, `resync`) with a key above `after`, leaving out those of `skip.epoch`
 * numbered `skip.n` or lower (the follower has them).
 */
export interface ReplayPlan {
  readonly base?: number;
  readonly after: number;
  readonly skip?: EntryPosition;
}

/** Whether followers past `record` are told it (a checkpoint is only a starting point). */
export function isTold(role: RelayRole): boolean {
  return role !== "checkpoint";
}

/** Whether a follower that resumed from `plan` is told `record`. */
export function toldAfter(plan: ReplayPlan, key: number, record: { readonly role: RelayRole; readonly entry: { readonly id: string } }): boolean {
  if (key <= plan.after || !isTold(record.role)) return false;
  const position = plan.skip && entryPosition(record.entry.id);
  return !(position && position.epoch === plan.skip!.epoch && position.n <= plan.skip!.n);
}

/**
 * Whether `record`, told next to a follower whose last entry was at `last`, follows on without a
 * gap: an entry of the same hosting must be the next number (a resync or another hosting's
 * entry may jump). A gap means the relay dropped rows the follower had not read yet (it fell
 * more than two checkpoints behind): it must resume from its last id.
 *
 * @example
 * ```ts
 * continues({ epoch: "x", n: 4 }, { role: "entry", entry: { id: "x.6" } }); // false
 * ```
 */
export function continues(last: EntryPosition | undefined, record: { readonly role: RelayRole; readonly entry: { readonly id: string } }): boolean {
  if (!last || record.role !== "entry") return true;
  const position = entryPosition(record.entry.id);
  return !position || position.epoch !== last.epoch || position.n === last.n + 1;
}

/**
 * Where a follower whose last entry was `lastId` starts, given what the relay holds of the
 * session (in order):
 *
 * - `lastId` is a held entry: the told records after it;
 * - `lastId`'s hosting is held and the id is past its newest entry (the relay lags behind the
 *   instance the follower came from): the told records of later numbers, as they arrive;
 * - anything else (none, too old, a gap): the latest state, then the told records after it.
 *
 * ```text
 * held:  S1 e2 e3 C3 e4 e5          (S: a state entry, C: a checkpoint)
 * "x.4" → e5            "x.9" → e10… as published     none → C3 e4 e5
 * ```
 */
export function planReplay(held: readonly HeldRecord[], lastId: string | null | undefined): ReplayPlan {
  const position = entryPosition(lastId);
  if (position) {
    const exact = held.find((record) => record.role === "entry" && record.entry.id === lastId);
    if (exact) return { after: exact.key, skip: position };
    let newest: { key: number; n: number } | undefined;
    for (const record of held) {
      const at = isTold(record.role) ? entryPosition(record.entry.id) : undefined;
      if (at?.epoch === position.epoch) newest = { key: record.key, n: at.n };
    }
    // The relay has that hosting but not yet this far: the next ones are on their way.
    if (newest && newest.n < position.n) return { after: newest.key, skip: position };
  }
  for (let index = held.length - 1; index >= 0; index--) {
    const record = held[index]!;
    if (record.entry.kind === "state") return { base: record.key, after: record.key };
  }
  // Nothing to start from yet (the relay lags behind the host): what arrives, past the follower's id.
  const after = held.length > 0 ? held[0]!.key - 1 : 0;
  return position ? { after, skip: position } : { after };
}

