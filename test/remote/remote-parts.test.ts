/**
 * The remote agent's parts: the server-sent event reader, the backoff and what `connection$`
 * is told while it waits (virtual time), the silence that ends a dead link, and the event
 * stream's heartbeats (marbles).
 */
import { lastValueFrom, Subject, toArray } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { describe, expect, it } from "vitest";
import type { AgentConnection } from "../../src/agent/agent-like.js";
import { backoffMs, reconnectDelay, silence } from "../../src/remote/reconnect.js";
import { sseMessages } from "../../src/remote/sse-messages.js";
import { eventStreamBody } from "../../src/server/event-stream.js";

function bodyOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({ start: (c) => (chunks.forEach((chunk) => c.enqueue(encoder.encode(chunk))), c.close()) });
}

describe("sseMessages", () => {
  it("reads id, event and data; leaves out comments; joins data lines; takes LF, CRLF and CR, split anywhere across chunks", async () => {
    const messages = await lastValueFrom(sseMessages(bodyOf("id: a.1\nevent: agent\nda", "ta: {\"x\":1}\n\n: heartbeat\n\n", "id: a.2\r", "\nevent: state\r\ndata: one\rdata:two\r\n\r\n"), 1024).pipe(toArray()));
    expect(messages).toEqual([
      { id: "a.1", event: "agent", data: '{"x":1}' },
      { id: "a.2", event: "state", data: "one\ntwo" },
    ]);
  });

  it("SRV5: errors on a line longer than the bound (a server that never ends a line)", async () => {
    await expect(lastValueFrom(sseMessages(bodyOf("data: " + "x".repeat(100), "y".repeat(100)), 64))).rejects.toThrow(/longer than 64/);
  });

  it("SRV5: errors when one message's data lines together pass the bound", async () => {
    await expect(lastValueFrom(sseMessages(bodyOf("data: " + "x".repeat(40) + "\n", "data: " + "y".repeat(40) + "\n\n"), 64))).rejects.toThrow(/data is longer than 64/);
  });

  it("unsubscribing cancels the body's read", async () => {
    let cancelled = false;
    let told!: () => void;
    const cancelling = new Promise<void>((resolve) => (told = resolve));
    const body = new ReadableStream<Uint8Array>({ cancel: () => void ((cancelled = true), told()) });
    sseMessages(body, 64).subscribe().unsubscribe();
    await cancelling;
    expect(cancelled).toBe(true);
  });
});

describe("reconnecting", () => {
  it("SRV5: backs off exponentially from initialDelayMs up to maxDelayMs", () => {
    const none = { jitter: 0 };
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffMs(attempt, { ...none, initialDelayMs: 100, maxDelayMs: 1000 }))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(backoffMs(1, none)).toBe(500);
    expect(backoffMs(200, none)).toBe(30_000);
  });

  it("SRV5: each delay is shortened by a random part of it, at most `jitter` of it (by default half), so clients cut at once come back spread out", () => {
    expect(backoffMs(3, { initialDelayMs: 100 }, () => 0)).toBe(400);
    expect(backoffMs(3, { initialDelayMs: 100 }, () => 0.5)).toBe(300);
    expect(backoffMs(3, { initialDelayMs: 100 }, () => 0.999)).toBeCloseTo(200.2);
    expect(backoffMs(3, { initialDelayMs: 100, jitter: 0.9 }, () => 0.5)).toBeCloseTo(220);
    // At most 0.9: a server that ends streams at once is never hammered without a pause.
    expect(backoffMs(3, { initialDelayMs: 100, jitter: 7 }, () => 0.999)).toBeCloseTo(40.36);
    const spread = new Set(Array.from({ length: 50 }, () => backoffMs(1)));
    expect(spread.size).toBeGreaterThan(40);
    for (const delay of spread) expect(delay > 250 && delay <= 500).toBe(true);
  });

  it("SRV5: tells connection$ the attempt and its delay, then waits the delay on the scheduler", () => {
    new TestScheduler((a, b) => expect(a).toEqual(b)).run(({ expectObservable }) => {
      const told: AgentConnection[] = [];
      const connection = new Subject<AgentConnection>();
      connection.subscribe((c) => told.push(c));
      expectObservable(reconnectDelay(3, { initialDelayMs: 10, jitter: 0 }, undefined, connection)).toBe("40ms (0|)", [0]);
      expect(told).toEqual([{ status: "reconnecting", attempt: 3, delayMs: 40 }]);
    });
  });

  it("SRV5: silence errors idleMs after the last activity (or the start), and never while activity keeps coming", () => {
    new TestScheduler((a, b) => expect(a).toEqual(b)).run(({ cold, expectObservable }) => {
      const dead = new Error("The session server sent nothing for 8 ms: the connection is taken as dropped.");
      expectObservable(silence(cold("--a---a---------"), 8)).toBe("--------------#", undefined, dead);
      expectObservable(silence(cold("----------"), 8)).toBe("--------#", undefined, dead);
      expectObservable(silence(cold("-a-a-a-a-a-a-a-a-|"), 8), "^ 20ms !").toBe("-");
    });
  });
});

describe("offline", () => {
  it("SRV5: while the browser is offline, connection$ says so and the next attempt waits for its online event", () => {
    const page = Object.assign(new EventTarget(), { navigator: { onLine: false } });
    const told: AgentConnection[] = [];
    const connection = new Subject<AgentConnection>();
    connection.subscribe((c) => told.push(c));
    let resumed = 0;
    reconnectDelay(1, undefined, undefined, connection, page).subscribe(() => resumed++);
    expect(told).toEqual([{ status: "offline" }]);
    expect(resumed).toBe(0);
    page.navigator.onLine = true;
    page.dispatchEvent(new Event("online"));
    page.dispatchEvent(new Event("online"));
    expect(resumed).toBe(1);
  });
});

describe("eventStreamBody", () => {
  it("heartbeats every heartbeatMs beside the entries, and ends when the entries end", async () => {
    const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
    const chunks: string[] = [];
    const decoder = new TextDecoder();
    scheduler.run(({ cold, flush }) => {
      // a at 1, b at 27, the end at 37: heartbeats at 10, 20 and 30.
      const entries = cold("-a 25ms b 9ms |", { a: { n: 1, kind: "event" as const, data: "{}" }, b: { n: 2, kind: "state" as const, data: "{}" } });
      const body = eventStreamBody([], entries, (entry) => `e.${entry.n}`, { heartbeatMs: 10, maxBufferBytes: 1 << 20, scheduler });
      const reader = body.getReader();
      flush();
      void (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          chunks.push(decoder.decode(value));
        }
      })();
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(chunks).toEqual(["id: e.1\nevent: agent\ndata: {}\n\n", ": heartbeat\n\n", ": heartbeat\n\n", "id: e.2\nevent: state\ndata: {}\n\n", ": heartbeat\n\n"]);
  });
});
