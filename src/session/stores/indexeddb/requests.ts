/**
 * Promises over IndexedDB's event-based requests and transactions, no more than the session
 * store needs (no dependency such as `idb`).
 *
 * @module
 */

/**
 * The result of one request: resolves on `success`, rejects with the request's error. Awaiting it
 * inside a transaction's body keeps the transaction alive: the continuation runs as a microtask
 * of the `success` event, while the transaction is still active.
 *
 * @example
 * ```ts
 * const record = await requestResult(tx.objectStore("leases").get(id));
 * ```
 */
export function requestResult<T>(request: IDBRequest<T>): Promise<T> {
  const result = new Promise<T>((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new DOMException("The IndexedDB request failed.", "UnknownError"));
  });
  // A request that fails also aborts its transaction, which `inTransaction` reports: a request
  // left unawaited (its body threw first) must not become an unhandled rejection as well.
  result.catch(() => undefined);
  return result;
}

/**
 * Runs `body` in `transaction` and resolves with its value once the transaction has committed.
 * When `body` throws or rejects, the transaction is aborted (nothing it wrote is kept) and the
 * promise rejects with `body`'s error rather than the generic `AbortError`.
 *
 * `body` must only await requests of this transaction: awaiting anything else (a timer, a fetch)
 * lets the transaction commit early, and what `body` does after that is no longer part of it.
 *
 * @example
 * ```ts
 * const seq = await inTransaction(db.transaction(["leases"], "readwrite"), async (tx) => {
 *   const record = await requestResult(tx.objectStore("leases").get(id));
 *   return record?.lastSeq ?? 0;
 * });
 * ```
 */
export async function inTransaction<T>(transaction: IDBTransaction, body: (transaction: IDBTransaction) => Promise<T>): Promise<T> {
  const done = new Promise<void>((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    // A failed request's `error` bubbles here and then aborts the transaction: `abort` reports both.
    transaction.onabort = () => reject(transaction.error ?? new DOMException("The IndexedDB transaction was aborted.", "AbortError"));
  });
  // Observed here so that a transaction aborted by `body`'s own failure is not an unhandled rejection.
  done.catch(() => undefined);
  let result: T;
  try {
    result = await body(transaction);
  } catch (error) {
    try {
      transaction.abort();
    } catch {
      // Already aborted by the request that failed.
    }
    await done.catch(() => undefined);
    throw error;
  }
  await done;
  return result;
}

/**
 * Whether `error` is a `DOMException` (or a look-alike from a polyfill) named `name`.
 *
 * @example
 * ```ts
 * if (isDomError(error, "ConstraintError")) throw new SessionCorruptError(id, seq, "a repeated seq");
 * ```
 */
export function isDomError(error: unknown, name: string): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === name;
}
