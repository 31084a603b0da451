/**
 * The journal writer (SPEC S2, S6): one append in flight at a time, later entries grouped into
 * the next one, a synchronous store written synchronously, and a failure stops every write after it.
 */
import { Observable, Subject } from "rxjs";
import { describe, expect, it } from "vitest";
import { JOURNAL_VERSION, type JournalEntry } from "../../src/session/journal-entry.js";
import { JournalWriter } from "../../src/session/journal-writer.js";
import { SessionFencedError } from "../../src/session/session-errors.js";
import type { AppendCondition, SessionStore } from "../../src/session/session-store.js";
import { InMemorySessionStore } from "../../src/session/stores/memory-store.js";
import { storeAppending } from "./store-contract.js";

/** A store whose appends answer when the test says so, recording what overlapped. */
function slowStore(): { store: SessionStore; answer: () => void; appends: JournalEntry[][]; maxInFlight: () => number } {
  const memory = new InMemorySessionStore();
  const pending: Subject<number>[] = [];
  const appends: JournalEntry[][] = [];
  let inFlight = 0;
  let max = 0;
  const store = storeAppending(
    memory,
    (id: string, entries: readonly JournalEntry[], condition: AppendCondition) =>
      new Observable<number>((subscriber) => {
        inFlight++;
        max = Math.max(max, inFlight);
        appends.push(entries.slice());
        const done = new Subject<number>();
        pending.push(done);
        done.subscribe(() => {
          inFlight--;
          try {
            subscriber.next(memory.append(id, entries, condition));
            subscriber.complete();
          } catch (error) {
            subscriber.error(error);
          }
        });
      }),
  );
  return { store, answer: () => pending.shift()!.next(0), appends, maxInFlight: () => max };
}

const note = (n: number): JournalEntry => ({ v: JOURNAL_VERSION, seq: 0, type: "run_started", at: n });
const createdEntry = (): JournalEntry => ({ v: JOURNAL_VERSION, seq: 0, type: "created", at: 0, sessionId: "s" });

describe("JournalWriter (SPEC S2, S6)", () => {
  it("S6: a synchronous store is written synchronously: nothing to wait for", () => {
    const store = new InMemorySessionStore();
    const { token } = store.acquire("s", { owner: "a", ttlMs: 1000 });
    const writer = new JournalWriter(store, "s", token, 1000, 0);
    expect(writer.write(createdEntry())).toBeUndefined();
    expect(writer.write(note(1), note(2))).toBeUndefined();
    expect(store.load("s")!.entries.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it("S2: one append in flight; entries written meanwhile go together in the next, also when a waiting writer writes as it is released", () => {
    const { store, answer, appends, maxInFlight } = slowStore();
    const { token } = store.acquire("s", { owner: "a", ttlMs: 1000 }) as { token: number };
    const writer = new JournalWriter(store, "s", token, 1000, 0);
    const first = writer.write(createdEntry()) as Observable<void>;
    // Released by the first append, this writes twice at once: the first of those starts an
    // append, the second must wait for it.
    first.subscribe(() => {
      writer.write(note(2));
      writer.write(note(3));
    });
    writer.write(note(1));
    answer();
    answer();
    answer();
    expect(maxInFlight()).toBe(1);
    expect(appends.map((batch) => batch.map((e) => e.seq))).toEqual([[1], [2, 3], [4]]);
    expect((store.load("s") as { entries: JournalEntry[] }).entries.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it("S3: a fenced append fails its waiters and every write after it; nothing more is sent", () => {
    const { store, answer, appends } = slowStore();
    const old = store.acquire("s", { owner: "a", ttlMs: 1000 }) as { token: number };
    const writer = new JournalWriter(store, "s", old.token, 1000, 0);
    const errors: unknown[] = [];
    (writer.write(createdEntry()) as Observable<void>).subscribe({ error: (e: unknown) => errors.push(e) });
    store.acquire("s", { owner: "b", ttlMs: 1000, takeover: true });
    answer();
    expect(errors[0]).toBeInstanceOf(SessionFencedError);
    expect(writer.error).toBe(errors[0]);
    (writer.write(note(1)) as Observable<void>).subscribe({ error: (e: unknown) => errors.push(e) });
    expect(errors).toHaveLength(2);
    expect(appends).toHaveLength(1);
  });
});
