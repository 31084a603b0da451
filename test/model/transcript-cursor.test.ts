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

  it("I2: without verify, a rewrite before the last-read message goes unnoticed (O(1)); with verify it starts over", () => {
    for (const [verify, expected] of [[false, 3], [true, 0]] as const) {
      const cursor = new TranscriptCursor(verify);
      const transcript = messages("a", "b", "c");
      cursor.advance(transcript);
      transcript[0] = user("rewritten");
      expect(cursor.advance(transcript)).toBe(expected);
    }
  });

  it("I2: with verify, after starting over it keeps checking the new content", () => {
    const cursor = new TranscriptCursor(true);
    const transcript = messages("a", "b");
    cursor.advance(transcript);
    transcript[0] = user("x");
    expect(cursor.advance(transcript)).toBe(0);
    transcript.push(user("c"));
    expect(cursor.advance(transcript)).toBe(2);
    transcript[1] = user("y");
    expect(cursor.advance(transcript)).toBe(0);
  });
});
