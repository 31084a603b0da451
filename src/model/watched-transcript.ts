/**
 * The transcript as hooks see it (I2): the loop's own array behind a view that counts writes, so
 * a hook that rewrites it in place is noticed in O(1) and the memoized conversions start over.
 *
 * @module
 */
import type { AgentMessage } from "./types.js";

const raws = new WeakMap<readonly AgentMessage[], AgentMessage[]>();

/**
 * `raw` is the loop's array (it appends there, unseen); `view` is what hooks get as
 * `context.messages`: the same array behind a `Proxy` whose writes — an index, `length`, a
 * `splice` or `push` — bump `writes`. Reads go straight through. A `Proxy` cannot be
 * `structuredClone`d or posted to a worker: a hook that needs that copies it first (`slice()`).
 *
 * @example
 * ```ts
 * const watched = new WatchedTranscript(messages);
 * hook(watched.view);           // a hook splices it
 * watched.writes;               // > 0: convert afresh
 * ```
 */
export class WatchedTranscript {
  /** Writes through `view` so far. */
  writes = 0;
  readonly view: AgentMessage[];

  constructor(readonly raw: AgentMessage[]) {
    const written = (): void => void this.writes++;
    this.view = new Proxy(raw, {
      set(target, key, value) {
        written();
        return Reflect.set(target, key, value);
      },
      deleteProperty(target, key) {
        written();
        return Reflect.deleteProperty(target, key);
      },
      defineProperty(target, key, descriptor) {
        written();
        return Reflect.defineProperty(target, key, descriptor);
      },
    });
    raws.set(this.view, raw);
  }
}

/** The array behind a view made by {@link WatchedTranscript}, or `messages` itself. */
export function unwatched(messages: readonly AgentMessage[]): readonly AgentMessage[] {
  return raws.get(messages) ?? messages;
}
