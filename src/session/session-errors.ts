/**
 * The errors of durable sessions (SPEC S1–S7). Each names the session and what to do; none is
 * thrown for a condition a retry would silently fix.
 *
 * @module
 */

/** The base of every session error: `error instanceof SessionError` catches them all. */
export class SessionError extends Error {
  constructor(
    message: string,
    /** The session the error is about. */
    readonly sessionId: string,
  ) {
    super(message);
  }
  // Literal names: a minifier renames classes, and `error.name` should still say what happened.
  override name = "SessionError";
}

/**
 * Another writer appended first (SPEC S2): the journal is longer than the writer thought.
 * Nothing was written; reload the session before writing again.
 *
 * @example
 * ```ts
 * try { await store.append(id, entries, { expectedSeq: 3, token, ttlMs: 30_000 }); }
 * catch (error) { if (error instanceof SessionConflictError) reload(); }
 * ```
 */
export class SessionConflictError extends SessionError {
  override name = "SessionConflictError";
  constructor(
    sessionId: string,
    readonly expectedSeq: number,
    readonly actualSeq: number,
  ) {
    super(`Session "${sessionId}": another writer appended first (expected the journal to end at entry ${expectedSeq}, it ends at ${actualSeq}). Nothing was written; load the session again before writing.`, sessionId);
  }
}

/**
 * The writer's lease was taken over (SPEC S3): its fencing token is no longer the session's
 * newest, so its appends are refused. The process that got this error must stop working on the
 * session.
 */
export class SessionFencedError extends SessionError {
  override name = "SessionFencedError";
  constructor(
    sessionId: string,
    readonly token: number,
    readonly currentToken: number,
  ) {
    super(`Session "${sessionId}": this writer's lease (fencing token ${token}) was taken over by token ${currentToken}. Nothing was written; another process owns the session now.`, sessionId);
  }
}

/** Another owner holds an unexpired lease on the session (SPEC S3). Try again after `expiresAt`. */
export class SessionLeaseHeldError extends SessionError {
  override name = "SessionLeaseHeldError";
  constructor(
    sessionId: string,
    readonly owner: string,
    readonly expiresAt: number,
  ) {
    super(`Session "${sessionId}" is leased by "${owner}" until ${new Date(expiresAt).toISOString()}. Wait for the lease to expire, or ask for a takeover.`, sessionId);
  }
}

/**
 * A journal that cannot be read as it is (SPEC S4): a line that is not an entry, a gap or a
 * repeat in the sequence, an entry of a version this release does not know, or a journal that
 * belongs to another session. Nothing is repaired or overwritten.
 */
export class SessionCorruptError extends SessionError {
  override name = "SessionCorruptError";
  constructor(
    sessionId: string,
    /** Where: the entry's position (1-based), or a line number for line-based stores. */
    readonly position: number,
    reason: string,
  ) {
    super(`Session "${sessionId}": the journal is not readable at ${position}: ${reason}. It was left as it is.`, sessionId);
  }
}

/**
 * A session id a store cannot keep (SPEC S2): empty, not well-formed UTF-16 (a lone surrogate),
 * holding NUL, or too long. Thrown before anything is read or written.
 *
 * @example
 * ```ts
 * try { await store.load("a\u0000b"); }
 * catch (error) { if (error instanceof SessionIdError) console.error(error.rule); }
 * ```
 */
export class SessionIdError extends SessionError {
  override name = "SessionIdError";
  constructor(
    sessionId: string,
    /** The rule the id breaks, e.g. "it holds NUL". */
    readonly rule: string,
  ) {
    // The id is quoted shortened and escaped: it may be huge or hold control characters.
    super(`Session id ${JSON.stringify(sessionId.length > 40 ? `${sessionId.slice(0, 40)}…` : sessionId)} cannot be used: ${rule}. A session id is a non-empty string of well-formed UTF-16 (no lone surrogate), without NUL, of at most 512 characters.`, sessionId);
  }
}
