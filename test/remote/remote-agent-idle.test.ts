/**
 * A remote agent's link that goes silent (SPEC SRV5): a server that vanished without closing the
 * connection (its host lost power, a network dropped the route) sends neither entries nor
 * heartbeats, and no error ever comes from the socket. After `idleTimeoutMs` of silence the
 * remote agent takes the connection as dropped and resumes from its last entry; heartbeats keep
 * a quiet link alive. Virtual time on a scripted `fetch`.
 */
import { filter, firstValueFrom, VirtualTimeScheduler } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentConnection } from "../../src/agent/agent-like.js";
import { RemoteAgent } from "../../src/remote/index.js";

/** A `fetch` whose event streams the test writes to; every request's headers are kept. */
function scriptedStreams() {
  const requests: Headers[] = [];
  const streams: ReadableStreamDefaultController<Uint8Array>[] = [];
  const encoder = new TextEncoder();
  const fetchFn: typeof fetch = async (_input, init) => {
    requests.push(new Headers(init?.headers));
    const body = new ReadableStream<Uint8Array>({ start: (controller) => void streams.push(controller) });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  };
  const write = (text: string) => streams.at(-1)!.enqueue(encoder.encode(text));
  return { requests, fetchFn, write };
}

/** Runs what is due on `scheduler` up to `at`, and sets its clock there. */
function advanceTo(scheduler: VirtualTimeScheduler, at: number): void {
  scheduler.maxFrames = at;
  scheduler.flush();
  scheduler.frame = at;
}

/** Lets the streams carry what was written (no I/O: promise jobs and a macrotask). */
const drained = () => new Promise((resolve) => setTimeout(resolve, 0));

const agents: RemoteAgent[] = [];
afterEach(() => agents.splice(0).forEach((agent) => agent.close()));

function follow(fetchFn: typeof fetch, scheduler: VirtualTimeScheduler): { agent: RemoteAgent; statuses: AgentConnection["status"][] } {
  const agent = new RemoteAgent({ url: "http://127.0.0.1/sessions/s", fetch: fetchFn, scheduler, idleTimeoutMs: 100, reconnect: { initialDelayMs: 10 } });
  agents.push(agent);
  const statuses: AgentConnection["status"][] = [];
  agent.connection$.subscribe((c) => statuses.push(c.status));
  return { agent, statuses };
}

describe("SRV5: a connection that says nothing is taken as dropped", () => {
  it("SRV5: after idleTimeoutMs without a byte, it reconnects with the last entry it read", async () => {
    const scheduler = new VirtualTimeScheduler();
    const server = scriptedStreams();
    const { agent, statuses } = follow(server.fetchFn, scheduler);
    await firstValueFrom(agent.connection$.pipe(filter((c) => c.status === "connected")));
    server.write('id: e.1\nevent: agent\ndata: {"type":"agent_start"}\n\n');
    await firstValueFrom(agent.events$);
    advanceTo(scheduler, 99);
    await drained();
    expect(statuses.at(-1)).toBe("connected");
    expect(server.requests).toHaveLength(1);
    advanceTo(scheduler, 100);
    expect(statuses.at(-1)).toBe("reconnecting");
    advanceTo(scheduler, 110);
    await firstValueFrom(agent.connection$.pipe(filter((c) => c.status === "connected")));
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.get("last-event-id")).toBe("e.1");
  });

  it("SRV5: heartbeats keep a quiet link: silence is counted from the last byte", async () => {
    const scheduler = new VirtualTimeScheduler();
    const server = scriptedStreams();
    const { agent, statuses } = follow(server.fetchFn, scheduler);
    await firstValueFrom(agent.connection$.pipe(filter((c) => c.status === "connected")));
    for (const at of [60, 120, 180]) {
      advanceTo(scheduler, at);
      server.write(": heartbeat\n\n");
      await drained();
    }
    advanceTo(scheduler, 279);
    await drained();
    expect(statuses.at(-1)).toBe("connected");
    expect(server.requests).toHaveLength(1);
    advanceTo(scheduler, 280);
    expect(statuses.at(-1)).toBe("reconnecting");
  });

  it("SRV5: an answer that never comes (no headers) is given up after idleTimeoutMs too; a bad bound is refused", async () => {
    const scheduler = new VirtualTimeScheduler();
    const requests: string[] = [];
    const hanging: typeof fetch = (input, init) =>
      new Promise((_resolve, reject) => {
        requests.push(String(input));
        init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
      });
    const { statuses } = follow(hanging, scheduler);
    await drained();
    advanceTo(scheduler, 100);
    await drained();
    expect(statuses).toEqual(["reconnecting", "reconnecting"]);
    advanceTo(scheduler, 110);
    await drained();
    expect(requests).toHaveLength(2);
    expect(() => new RemoteAgent({ url: "http://127.0.0.1/sessions/s", idleTimeoutMs: 0 })).toThrow(TypeError);
  });
});
