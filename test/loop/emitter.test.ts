/**
 * The loop's way out for events (SPEC L11, A5): each event through `emit`, what it returns
 * waited for before the next event and before what follows.
 */
import { concat, defer, finalize, of } from "rxjs";
import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../src/loop/agent-loop.js";
import { Emitter } from "../../src/engine/emitter.js";
import { fauxProvider } from "../../src/testing/index.js";
import { model, user } from "../helpers/fixtures.js";
import type { AgentEvent } from "../../src/model/types.js";
import { newScheduler } from "../helpers/marbles.js";

const start: AgentEvent = { type: "agent_start" };
const turn: AgentEvent = { type: "turn_start" };

describe("Emitter", () => {
  it("L11: one(event) then a deferred next: emits the event, waits for what emit returned, then subscribes next()", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const held = cold("--|");
      const rest = cold("-x|");
      const emitter = new Emitter(() => held);
      expectObservable(concat(emitter.one(start), defer(() => rest))).toBe("s--x|", { s: start, x: "x" });
      expectSubscriptions(held.subscriptions).toBe("^-!");
      expectSubscriptions(rest.subscriptions).toBe("--^-!");
    });
  });

  it("A5: emit is called for each event before it is emitted, the next event only after the wait", () => {
    const log: string[] = [];
    newScheduler().run(({ cold, expectObservable }) => {
      const emitter = new Emitter((event) => {
        log.push(`emit ${event.type}`);
        return event.type === "agent_start" ? cold("-|") : undefined;
      });
      expectObservable(emitter.all([start, turn])).toBe("s(t|)", { s: start, t: turn });
    });
    expect(log).toEqual(["emit agent_start", "emit turn_start"]);
  });

  it("L12: with emits that return plain values, events and next() run synchronously", () => {
    const seen: unknown[] = [];
    concat(new Emitter(() => undefined).all([start, turn]), defer(() => of("after"))).subscribe((value) => seen.push(value));
    expect(seen).toEqual([start, turn, "after"]);
  });

  it("A6: an error of the wait errors the result after its event; next() is never called", () => {
    let called = false;
    newScheduler().run(({ cold, expectObservable }) => {
      const emitter = new Emitter(() => cold("-#"));
      expectObservable(concat(emitter.one(start), defer(() => ((called = true), of(1))))).toBe("s#", { s: start });
    });
    expect(called).toBe(false);
  });

  it("A6: an emit whose return value throws when it is read (a `then` getter) errors the result after its event, as a throwing emit does", () => {
    const unreadable = {
      get then(): never {
        throw new Error("unreadable then");
      },
    };
    for (const returned of [() => unreadable, () => { throw new Error("unreadable then"); }]) {
      let called = false;
      newScheduler().run(({ expectObservable }) => {
        const emitter = new Emitter(returned as unknown as () => undefined);
        expectObservable(concat(emitter.one(start), defer(() => ((called = true), of(1))))).toBe("(s#)", { s: start }, new Error("unreadable then"));
      });
      expect(called).toBe(false);
    }
  });

  it("A6: a next() that throws errors the result", () => {
    let failure: unknown;
    concat(
      new Emitter(undefined).one(start),
      defer(() => {
        throw new Error("next failed");
      }),
    ).subscribe({ error: (error) => (failure = error) });
    expect((failure as Error).message).toBe("next failed");
  });

  it("L10: unsubscribing while an emit is waited for tears the wait down; nothing after it runs", () => {
    let called = false;
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const held = cold("----|");
      const emitter = new Emitter(() => held);
      expectObservable(
        concat(emitter.all([start, turn]), defer(() => ((called = true), of(1)))),
        "--!",
      ).toBe("s-", { s: start });
      expectSubscriptions(held.subscriptions).toBe("^-!");
    });
    expect(called).toBe(false);
  });
});

describe("Emitter teardown (SPEC L10, L11)", () => {
  it("L11: what an emit returned is torn down before the next event is emitted, through a whole run", () => {
    const log: string[] = [];
    const emit = (event: AgentEvent) => {
      log.push(`emit ${event.type}`);
      return of(undefined).pipe(finalize(() => log.push(`finalize ${event.type}`)));
    };
    runAgentLoop({ prompts: [user("go")], context: { messages: [] }, config: { model }, streamFn: fauxProvider([{ content: "hi" }]), emit }).subscribe();
    expect(log.length).toBeGreaterThan(10);
    for (let i = 0; i < log.length; i += 2) expect([log[i], log[i + 1]]).toEqual([log[i]!, log[i]!.replace("emit", "finalize")]);
  });
});
