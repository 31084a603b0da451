/**
 * The listener barrier (SPEC A5, A6, L12): listeners in order, each after the previous settled;
 * every listener sees the event; the outcome is the first failure.
 */
import { isObservable, type Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { type AgentListener, ListenerBarrier } from "../../src/agent/listener-barrier.js";
import type { AgentEvent } from "../../src/index.js";
import { Failure } from "../../src/rx/maybe-async.js";
import { newScheduler } from "../helpers/marbles.js";

const event: AgentEvent = { type: "agent_start" };
const signal = new AbortController().signal;

describe("ListenerBarrier", () => {
  it("L12 A5: synchronous listeners give a plain outcome, in registration order", () => {
    const barrier = new ListenerBarrier();
    const order: number[] = [];
    barrier.add(() => void order.push(1));
    barrier.add(() => void order.push(2));
    expect(barrier.notify(event, signal)).toBeUndefined();
    expect(order).toEqual([1, 2]);
  });

  it("A5: each listener starts after the one before settled", () => {
    const barrier = new ListenerBarrier();
    const started: string[] = [];
    newScheduler().run(({ cold, expectObservable }) => {
      barrier.add(() => (started.push("first"), cold("--|")));
      barrier.add(() => (started.push("second"), cold("-|")));
      const outcome = barrier.notify(event, signal) as Observable<Failure | undefined>;
      expect(started).toEqual(["first"]);
      expectObservable(outcome).toBe("---(u|)", { u: undefined });
    });
    expect(started).toEqual(["first", "second"]);
  });

  it("A6: a failing listener does not keep the event from the next ones; the outcome is the first failure", () => {
    const barrier = new ListenerBarrier();
    const seen: string[] = [];
    barrier.add(() => {
      seen.push("a");
      throw new Error("first");
    });
    barrier.add(() => {
      seen.push("b");
      throw new Error("second");
    });
    barrier.add(() => void seen.push("c"));
    const outcome = barrier.notify(event, signal);
    expect(seen).toEqual(["a", "b", "c"]);
    expect(outcome).toBeInstanceOf(Failure);
    expect(((outcome as Failure).error as Error).message).toBe("first");
  });

  it("A6: a listener whose return value throws when it is read (a `then` getter) fails like one that throws; the next ones still see the event", () => {
    const barrier = new ListenerBarrier();
    const seen: string[] = [];
    barrier.add(() => {
      seen.push("a");
      return {
        get then(): never {
          throw new Error("unreadable then");
        },
      } as unknown as undefined;
    });
    barrier.add(() => void seen.push("b"));
    const outcome = barrier.notify(event, signal);
    expect(seen).toEqual(["a", "b"]);
    expect(outcome).toBeInstanceOf(Failure);
    expect(((outcome as Failure).error as Error).message).toBe("unreadable then");
  });

  it("A6: an async failure counts as well", () => {
    const barrier = new ListenerBarrier();
    newScheduler().run(({ cold, expectObservable }) => {
      barrier.add(() => cold("-#", undefined, "late"));
      barrier.add(() => undefined);
      const outcome = barrier.notify(event, signal);
      expect(isObservable(outcome)).toBe(true);
      expectObservable(outcome as Observable<unknown>).toBe("-(f|)", { f: new Failure("late") });
    });
  });

  it("A5: removing a listener stops it from being called; removing twice is harmless", () => {
    const barrier = new ListenerBarrier();
    let calls = 0;
    const remove = barrier.add(() => void calls++);
    barrier.notify(event, signal);
    remove();
    remove();
    barrier.notify(event, signal);
    expect(calls).toBe(1);
  });

  it("A5: removing one listener leaves the others, in their order", () => {
    const barrier = new ListenerBarrier();
    const order: string[] = [];
    barrier.add(() => void order.push("a"));
    const removeB = barrier.add(() => void order.push("b"));
    barrier.add(() => void order.push("c"));
    removeB();
    barrier.notify(event, signal);
    expect(order).toEqual(["a", "c"]);
  });

  it("A5: a listener added twice is called once per event, and one removal removes it", () => {
    const barrier = new ListenerBarrier();
    let calls = 0;
    const listener = () => void calls++;
    const remove = barrier.add(listener);
    barrier.add(listener);
    barrier.notify(event, signal);
    expect(calls).toBe(1);
    remove();
    barrier.notify(event, signal);
    expect(calls).toBe(1);
  });

  it("A6 L12: a listener that returns a plain value other than undefined has not failed", () => {
    const barrier = new ListenerBarrier();
    const seen: AgentEvent[] = [];
    // `push` returns the new length: an arrow listener in plain JavaScript returns a number by accident.
    barrier.add(((e: AgentEvent) => seen.push(e)) as unknown as AgentListener);
    barrier.add((() => "done") as unknown as AgentListener);
    expect(barrier.notify(event, signal)).toBeUndefined();
    expect(seen).toEqual([event]);
  });
});
