/**
 * A session server on 127.0.0.1 for the server suites: Agents on the faux provider with a rich
 * script (two tool calls in parallel, a call that waits for approval, a final answer), a bearer
 * token per user, every server closed after each test.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { Agent, type AgentEvent, type AgentMessage, type AgentTool } from "../../src/index.js";
import { createSessionServer, type SessionServer, type SessionServerOptions } from "../../src/server/index.js";
import { toNodeListener } from "../../src/server/node.js";
import { fauxProvider, fauxText, fauxToolCall } from "../../src/testing/index.js";
import { textResult, tool } from "../helpers/fixtures.js";

export const TOOLS: AgentTool[] = [
  tool("echo", (_id, args) => textResult(`echo ${JSON.stringify(args)}`)),
  tool("risky", () => textResult("done the risky thing"), { type: "object" }, { needsApproval: true }),
];

/** The script of every session: parallel calls, then one that waits for approval, then the answer. */
export function richScript() {
  return [
    { content: [fauxText("Let me look."), fauxToolCall("echo", { n: 1 }, "c1"), fauxToolCall("echo", { n: 2 }, "c2")] },
    { content: [fauxToolCall("risky", {}, "c3")] },
    { content: "All done: both echoes and the risky thing." },
  ];
}

/** What the suites read of a started server. */
export interface LiveServer {
  readonly url: string;
  readonly server: SessionServer;
  /** Each session's Agent and the events it emitted, serialized as they went out. */
  readonly agents: Map<string, { agent: Agent; events: string[] }>;
}

/** Registers the clean-up; returns how to start a server. Users: token `t-<name>` is user `<name>`, who may use sessions `<name>-*`. */
export function liveSessionServers(): (options?: Partial<Omit<SessionServerOptions, "agentFor">> & { agentFor?: (id: string) => Agent | undefined }) => Promise<LiveServer> {
  const servers: Array<{ http: Server; server: SessionServer }> = [];
  afterEach(async () => {
    for (const { http, server } of servers.splice(0)) {
      server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
  return async (options = {}) => {
    const agents = new Map<string, { agent: Agent; events: string[] }>();
    const { agentFor, ...rest } = options;
    const server = createSessionServer({
      agentFor: (id) => {
        const agent = agentFor ? agentFor(id) : new Agent({ streamFn: fauxProvider(richScript()), initialState: { tools: TOOLS } });
        if (!agent) return undefined;
        const events: string[] = [];
        agent.events$.subscribe((event: AgentEvent) => events.push(JSON.stringify(event)));
        agents.set(id, { agent, events });
        return agent;
      },
      authenticate: (request) => /^Bearer t-(\w+)$/.exec(request.headers.get("authorization") ?? "")?.[1],
      authorize: (user, id) => id.startsWith(`${String(user)}-`),
      onError: () => undefined,
      ...rest,
    });
    const http = createServer(toNodeListener(server.handle));
    servers.push({ http, server });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/sessions`, server, agents };
  };
}

/** An event without what differs between two runs of the same script (clock readings). */
export function normalized(event: AgentEvent | AgentMessage | string): string {
  const value: unknown = typeof event === "string" ? JSON.parse(event) : event;
  return JSON.stringify(value, (key, inner: unknown) => (key === "timestamp" || key === "durationMs" ? undefined : inner));
}

/**
 * A `fetch` whose first event stream is cut (the body errors) after `frames` complete
 * server-sent events; every later request goes through untouched.
 */
export function cuttingFetch(frames: number): typeof fetch {
  return streamCutAfter(frames, (frame) => !frame.startsWith(":"), async () => undefined, "cut by the test");
}

/**
 * A `fetch` whose first event stream passes `frames` events that `counts` (and those it does not
 * count between them), then awaits `before()` and errors with `reason`; every other request, and
 * every later stream, goes through untouched.
 */
export function streamCutAfter(frames: number, counts: (frame: string) => boolean, before: () => Promise<void>, reason: string): typeof fetch {
  let cut = false;
  return async (input, init) => {
    const response = await fetch(input, init);
    const isStream = response.headers.get("content-type") === "text/event-stream";
    if (cut || !isStream || !response.body) return response;
    cut = true;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let passed = 0;
    let pending = "";
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (passed >= frames) {
          await before();
          await reader.cancel().catch(() => undefined);
          controller.error(new Error(reason));
          return;
        }
        const { done, value } = await reader.read();
        if (done) return controller.close();
        pending += decoder.decode(value, { stream: true });
        let out = "";
        let end: number;
        while (passed < frames && (end = pending.indexOf("\n\n")) >= 0) {
          const frame = pending.slice(0, end + 2);
          pending = pending.slice(end + 2);
          out += frame;
          if (counts(frame)) passed++;
        }
        if (out) controller.enqueue(encoder.encode(out));
      },
      cancel: () => reader.cancel(),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}
