/**
 * `WatchedTranscript` (I2): hooks get a view of the transcript whose writes are counted, so the
 * loop notices a rewrite in place in O(1).
 */
import { describe, expect, it } from "vitest";
import { unwatched, WatchedTranscript } from "../../src/model/watched-transcript.js";
import { user } from "../helpers/fixtures.js";

describe("WatchedTranscript", () => {
  it("I2: reads go through; writes through the view — index, splice, push, length — are counted", () => {
    const raw = [user("a"), user("b")];
    const watched = new WatchedTranscript(raw);
    expect(watched.view[1]).toBe(raw[1]);
    expect(Array.isArray(watched.view)).toBe(true);
    expect(watched.view.map((m) => (m as { content: unknown }).content)).toEqual(["a", "b"]);
    expect(watched.writes).toBe(0);
    watched.view[0] = user("x");
    const afterIndex = watched.writes;
    watched.view.splice(0, 1);
    const afterSplice = watched.writes;
    watched.view.push(user("c"));
    const afterPush = watched.writes;
    watched.view.length = 0;
    expect(afterIndex).toBeGreaterThan(0);
    expect(afterSplice).toBeGreaterThan(afterIndex);
    expect(afterPush).toBeGreaterThan(afterSplice);
    expect(watched.writes).toBeGreaterThan(afterPush);
    expect(raw).toEqual([]);
  });

  it("I2: the loop's own appends to the raw array are not counted", () => {
    const watched = new WatchedTranscript([]);
    watched.raw.push(user("a"));
    expect(watched.writes).toBe(0);
    expect(watched.view).toHaveLength(1);
  });

  it("unwatched gives back the array behind a view, anything else as it is", () => {
    const raw = [user("a")];
    const watched = new WatchedTranscript(raw);
    expect(unwatched(watched.view)).toBe(raw);
    expect(unwatched(raw)).toBe(raw);
  });
});
