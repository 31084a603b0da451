/**
 * `MessageQueue` (SPEC L7, Q4): what one poll takes in each mode, and feeding it from a stream.
 */
import { Subject, throwError } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/index.js";
import { MessageQueue } from "../../src/loop/message-queue.js";
import { textOf, user } from "../helpers/fixtures.js";

const texts = (messages: AgentMessage[]): string[] => messages.map(textOf);

describe("MessageQueue", () => {
  it("L7: one-at-a-time takes the oldest message per poll; all takes everything", () => {
    const one = new MessageQueue("one-at-a-time");
    const all = new MessageQueue("all");
    for (const q of [one, all]) ["a", "b", "c"].forEach((t) => q.enqueue(user(t)));
    expect(texts(one.drain())).toEqual(["a"]);
    expect(texts(one.peek())).toEqual(["b"]);
    expect(one.size).toBe(2);
    expect(texts(all.drain())).toEqual(["a", "b", "c"]);
    expect(all.drain()).toEqual([]);
  });

  it("L7: a queue made without a mode takes one message per poll, and says so", () => {
    const queue = new MessageQueue();
    expect(queue.mode).toBe("one-at-a-time");
    ["a", "b"].forEach((t) => queue.enqueue(user(t)));
    expect(texts(queue.drain())).toEqual(["a"]);
  });

  it("Q4: feed() enqueues what a stream emits until the subscription ends", () => {
    const queue = new MessageQueue("all");
    const source = new Subject<AgentMessage>();
    const feeding = queue.feed(source);
    source.next(user("a"));
    source.next(user("b"));
    feeding.unsubscribe();
    source.next(user("after"));
    expect(texts(queue.drain())).toEqual(["a", "b"]);
  });

  it("Q2: a stream error goes to onError and stops the feeding, not the queue", () => {
    const queue = new MessageQueue();
    queue.enqueue(user("kept"));
    const errors: unknown[] = [];
    queue.feed(throwError(() => "broken"), (error) => errors.push(error));
    expect(errors).toEqual(["broken"]);
    expect(texts(queue.drain())).toEqual(["kept"]);
  });

  it("clear() empties the queue and returns what it held", () => {
    const queue = new MessageQueue();
    queue.enqueue(user("a"));
    expect(texts(queue.clear())).toEqual(["a"]);
    expect(queue.size).toBe(0);
  });

  it("Q4: what drain(), peek() and clear() return is the caller's own array, an empty queue's too; a cleared queue fills again", () => {
    const queue = new MessageQueue("all");
    for (const taken of [queue.clear(), queue.drain(), queue.peek()]) {
      expect(taken).toEqual([]);
      taken.push(user("caller's"));
    }
    expect(queue.size).toBe(0);
    queue.enqueue(user("a"));
    const held = queue.clear();
    held.push(user("caller's"));
    queue.enqueue(user("b"));
    queue.enqueue(user("c"));
    expect(texts(queue.peek())).toEqual(["b", "c"]);
    expect(texts(held)).toEqual(["a", "caller's"]);
  });
});
