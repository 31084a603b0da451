/**
 * Explicit synchronisation for tests of code that awaits: a promise the test settles when it
 * chooses, instead of a real delay, and a flush that lets every promise callback queued so far
 * run. Together they put "this finishes before that" in the test's hands, not the clock's.
 */

/** A promise with its `resolve` and `reject` outside, and whether it was settled. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
  /** Whether `resolve` or `reject` was called. */
  readonly settled: boolean;
}

/** A promise the test settles itself. */
export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  let settled = false;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return {
    promise,
    resolve: (value) => {
      settled = true;
      resolve(value);
    },
    reject: (error) => {
      settled = true;
      reject(error);
    },
    get settled() {
      return settled;
    },
  };
}

/**
 * Resolves after every promise callback queued so far, and every one those queue in turn, has
 * run: one turn of the event loop, not a timer. It does not wait for timers: code under test that
 * schedules on real time is not settled by it (give such code a virtual scheduler).
 */
export function flushPromises(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
