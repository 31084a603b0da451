/**
 * rxjs-marbles with vitest's assertions: `marbles((m) => …)` gives a test a `TestScheduler`
 * context (`m.cold`, `m.hot`, `m.expect`, `m.equal`) that is flushed when the test returns.
 */
import { configure } from "rxjs-marbles";
import { expect } from "vitest";

export const { marbles } = configure({
  assert: (value, message) => expect(value, message).toBeTruthy(),
  assertDeepEqual: (actual, expected) => expect(actual).toStrictEqual(expected),
  // Marbles compared by vitest's toStrictEqual too (class instances, undefined fields), with its diff.
  frameworkMatcher: true,
});
