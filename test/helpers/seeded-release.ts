/**
 * Interleaving without a clock: promises held until the test lets them go, a seeded share at a
 * time in a seeded order, so many concurrent runs step past each other in a mixed order that is
 * the same on every run of the test.
 */
import { flushPromises } from "./controlled-promise.js";

/** A seeded pseudo-random source in [0, 1) (mulberry32): the same seed, the same numbers. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Promises that resolve only when {@link SeededRelease.drive} lets them go. */
export class SeededRelease {
  private held: (() => void)[] = [];
  private readonly random: () => number;
  /** How many promises were let go so far. */
  released = 0;

  constructor(seed: number) {
    this.random = seededRandom(seed);
  }

  /** A promise of `value`, held until a later round lets it go. */
  hold<T>(value: T): Promise<T> {
    return new Promise<T>((resolve) => this.held.push(() => resolve(value)));
  }

  /**
   * Rounds until `done` settles: let every callback queued so far run, then let go of a random
   * share (at least one) of what is held, in a random order. Fails when nothing is held and
   * `done` has not settled: the runs wait on something else.
   */
  async drive(done: Promise<unknown>): Promise<void> {
    let settled = false;
    done.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (;;) {
      await flushPromises();
      if (settled) return;
      if (this.held.length === 0) throw new Error(`SeededRelease: nothing is held after ${this.released} releases and the runs have not ended.`);
      this.releaseSome();
    }
  }

  /** Lets go of a random share of the held promises, in a random order (Fisher–Yates). */
  private releaseSome(): void {
    const held = this.held;
    for (let i = held.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [held[i], held[j]] = [held[j]!, held[i]!];
    }
    const count = 1 + Math.floor(this.random() * held.length);
    const now = held.splice(0, count);
    this.released += now.length;
    for (const release of now) release();
  }
}
