/**
 * `TranscriptCursor` (SPEC L4b, I2): what is new in an append-only transcript, or that the reader
 * must start over.
 */
import { describe, expect, it } from "vitest";
import { TranscriptCursor } from "../../src/model/transcript-cursor.js";
import type { AgentMessage } from "../../src/index.js";
import { user } from "../helpers/fixtures.js";

const messages = (...texts: string[]): AgentMessage[] => texts.map((t) => user(t));

describe("TranscriptCursor", () => {
  it("L4b: after a first full read, only what was appended is new", () => {
    const cursor = new TranscriptCursor();
    const transcript = messages("a", "b");
    expect(cursor.advance(transcript)).toBe(0);
    transcript.push(user("c"));
    expect(cursor.advance(transcript)).toBe(2);
    expect(cursor.advance(transcript)).toBe(3);
  });

  it("L4b: another array, a shorter one, or a new last-read message starts over", () => {
    const cursor = new TranscriptCursor();
    const transcript = messages("a", "b");
    cursor.advance(transcript);
    expect(cursor.advance(messages("a", "b", "c"))).toBe(0);
    const again = messages("a", "b", "c");
    cursor.advance(again);
    again.pop();
    expect(cursor.advance(again)).toBe(0);
    again[1] = user("changed");
    expect(cursor.advance(again)).toBe(0);
  });

  it("I2: a new count of writes starts over, even when the array looks the same", () => {
    const cursor = new TranscriptCursor();
    const transcript = messages("a", "b", "c");
    cursor.advance(transcript, 0);
    transcript[0] = user("rewritten");
    // Only the last-read message is compared in O(1): the count of writes is what tells.
    expect(cursor.advance(transcript, 0)).toBe(3);
    expect(cursor.advance(transcript, 1)).toBe(0);
    transcript.push(user("d"));
    expect(cursor.advance(transcript, 1)).toBe(3);
  });
});
