/**
 * `@modelcontextprotocol/server-everything` over Streamable HTTP on 127.0.0.1 (a process per
 * test, on a port the OS picked), through `connectMcpHttp` (SPEC MCP1, MCP3–MCP5). The wire is
 * tapped at the connected transport, and HTTP itself through the transport's `fetch` option
 * (test/mcp/servers.ts). For `close()`, a stand-in server that speaks just enough MCP to connect
 * and never answers the session's DELETE.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { firstValueFrom, lastValueFrom, takeWhile, type Observable } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, type AgentEvent, type ToolResultMessage } from "../../src/index.js";
import { connectMcpHttp, type McpAgentTool, type McpConnection } from "../../src/mcp/index.js";
import { CANCEL_REASON, mcpAgentTool } from "../../src/mcp/mcp-tool.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import type { AgentToolResult } from "../../src/model/tool-types.js";
import { sleep, startEverythingHttp, tapConnected, trackingFetch, until, type HttpEverything } from "./servers.js";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function serve(): Promise<HttpEverything> {
  const server = await startEverythingHttp();
  cleanup.push(() => server.stop());
  return server;
}

async function connect(url: string, options: Parameters<typeof connectMcpHttp>[1] = {}): Promise<McpConnection> {
  const connection = await connectMcpHttp(url, options);
  cleanup.push(() => connection.close());
  return connection;
}

const textOf = (message: ToolResultMessage | undefined) => (message?.content ?? []).map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
const resultsOf = (agent: Agent) => agent.state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");

describe("server-everything over Streamable HTTP", () => {
  it("MCP3 · parallel calls with progress over HTTP; close() ends the session on the server", async () => {
    const server = await serve();
    const connection = await connect(server.url);
    expect(connection.name).toBe("mcp-servers/everything");
    const tools = await firstValueFrom(connection.tools$);
    const provider = fauxProvider([
      { content: [fauxToolCall("trigger-long-running-operation", { duration: 1, steps: 4 }, "long"), fauxToolCall("echo", { message: "over http" }, "echo"), fauxToolCall("get-sum", { a: 20, b: 22 }, "sum")] },
      { content: "Done." },
    ]);
    const agent = new Agent({ streamFn: provider, initialState: { model: provider.model, tools } });
    const events: AgentEvent[] = [];
    agent.subscribe((event) => void events.push(event));
    await agent.prompt("Go.");

    const updates = events.filter((e): e is Extract<AgentEvent, { type: "tool_execution_update" }> => e.type === "tool_execution_update");
    expect(updates.length).toBeGreaterThanOrEqual(3);
    expect(updates.every((u) => u.toolCallId === "long")).toBe(true);
    expect(updates.map((u) => u.partialResult.details.progress)).toEqual([0.25, 0.5, 0.75, 1].slice(0, updates.length));
    const ends = events.filter((e) => e.type === "tool_execution_end").map((e) => (e as { toolCallId: string }).toolCallId);
    expect(ends.at(-1)).toBe("long"); // completion order: the quick ones first
    expect(resultsOf(agent).map(textOf)).toEqual(["Long running operation completed. Duration: 1 seconds, Steps: 4.", "Echo: over http", "The sum of 20 and 22 is 42."]);
    expect(agent.state.errorMessage).toBeUndefined();

    const session = connection.transport.sessionId;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    await connection.close();
    expect(await connection.closed).toEqual({ by: "app" });
    await until(() => server.log().includes(`Received session termination request for session ${session}`), "the server to see the session end");
  });

  it("MCP4 · unsubscribing from prompt$ mid-call cancels the request and closes its POST: neither an answer nor more progress reaches the client, and the server keeps serving", async () => {
    const server = await serve();
    const connection = await connect(server.url);
    const wire = tapConnected(connection.transport);
    const provider = fauxProvider([{ content: [fauxToolCall("trigger-long-running-operation", { duration: 1.6, steps: 4 }, "long")] }, { content: "not reached" }]);
    const agent = new Agent({ streamFn: provider, initialState: { model: provider.model, tools: await connection.listTools() } });
    // The run as an Observable, cut at the first progress update: unsubscribing is the cancel.
    await new Promise<void>((resolve) => {
      agent.prompt$("Start it.").pipe(takeWhile((event) => event.type !== "tool_execution_update")).subscribe({ complete: resolve });
    });
    const id = wire.callId("trigger-long-running-operation")!;
    const cancelled = wire.cancellation(id);
    expect(cancelled?.message).toMatchObject({ params: { requestId: id, reason: CANCEL_REASON } });
    await agent.waitForIdle();

    // Past the operation's end on the server (1.6 s from the call): its later progress and its
    // (withheld) answer would have come on the POST's stream, which the cancellation closed.
    const calledAt = wire.messages.find((m) => m.direction === "sent" && "id" in m.message && m.message.id === id)!.at;
    await sleep(Math.max(0, calledAt + 2200 - Date.now()));
    expect(wire.response(id)).toBeUndefined();
    expect(wire.progress(id).length).toBeGreaterThan(0);
    expect(wire.progress(id).filter((m) => m.at > cancelled!.at)).toEqual([]);
    const echo = (await connection.listTools()).find((tool) => tool.name === "echo")!;
    expect(await firstValueFrom(echo.execute("e", { message: "still here" }, new AbortController().signal, () => {}) as never)).toMatchObject({ content: [{ type: "text", text: "Echo: still here" }] });
    expect(wire.response(id)).toBeUndefined();
  });

  it("MCP4 · every cancelled or timed-out call's POST is closed at once and never resumed: afterwards only the GET stream is open", async () => {
    const server = await serve();
    const http = trackingFetch();
    const connection = await connect(server.url, { transport: { fetch: http.fetch } });
    const errors: string[] = [];
    connection.errors$.subscribe((error) => errors.push(error.message));
    const tools = await connection.listTools();
    const long = tools.find((tool) => tool.name === "trigger-long-running-operation")!;
    const call = (tool: McpAgentTool, id: string) => tool.execute(id, { duration: 2, steps: 20 }, new AbortController().signal, () => {}) as Observable<AgentToolResult<unknown>>;

    // Three Stop presses, each at the call's first progress notification: by then its stream
    // carries event ids, from which the SDK would resume a stream that ends before its answer.
    for (const id of ["a", "b", "c"]) expect(await firstValueFrom(call(long, id))).toMatchObject({ details: { progress: expect.any(Number) } });
    // One cancelled before its response came, one that times out.
    call(long, "d").subscribe().unsubscribe();
    const hasty = mcpAgentTool(connection.client, long.mcp.definition, { server: connection.name, timeoutMs: 300, resetTimeoutOnProgress: false });
    expect(await lastValueFrom(call(hasty, "e"))).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/did not answer "trigger-long-running-operation" within 300 ms/) }] });
    expect(http.exchanges.filter((exchange) => exchange.body?.includes('"method":"notifications/cancelled"'))).toHaveLength(5);

    const openPosts = () => http.open().filter((exchange) => exchange.method === "POST");
    await until(() => openPosts().length === 0, "the cancelled calls' POSTs to close", 3000);
    // Past the SDK's delay before it resumes a stream (1 s): none of the cancelled ones is.
    await sleep(1500);
    expect(http.exchanges.filter((exchange) => exchange.lastEventId !== null)).toEqual([]);
    expect(http.open().map((exchange) => [exchange.method, exchange.lastEventId])).toEqual([["GET", null]]);

    const echo = tools.find((tool) => tool.name === "echo")!;
    expect(await firstValueFrom(echo.execute("echo", { message: "still here" }, new AbortController().signal, () => {}) as Observable<AgentToolResult<unknown>>)).toMatchObject({ content: [{ type: "text", text: "Echo: still here" }] });
    // Closed as a server would close them: no stream reported lost. (A progress notification
    // already on its way when a call was cancelled is reported as one for an unknown token.)
    expect(errors.filter((message) => !/unknown token/.test(message))).toEqual([]);
  });

  it("MCP5 · close() while a call runs: the model reads that the app closed the connection, not that the server failed", async () => {
    const server = await serve();
    const connection = await connect(server.url);
    const provider = fauxProvider([{ content: [fauxToolCall("trigger-long-running-operation", { duration: 3, steps: 6 }, "long")] }, { content: "Closed." }]);
    const agent = new Agent({ streamFn: provider, initialState: { model: provider.model, tools: await connection.listTools() } });
    let closing: Promise<void> | undefined;
    agent.subscribe((event) => {
      if (event.type === "tool_execution_update") closing ??= connection.close();
    });
    await agent.prompt("Go.");
    await closing;
    const [long] = resultsOf(agent);
    expect(long).toMatchObject({ isError: true });
    expect(textOf(long)).toMatch(/^The app closed its connection to MCP server "mcp-servers\/everything" while "trigger-long-running-operation" was running; the call may or may not have taken effect\./);
    expect(await connection.closed).toEqual({ by: "app" });
    expect(agent.state.errorMessage).toBeUndefined();
  });

  it("MCP1 · where reading location throws (Deno without --location), an absolute URL still connects", async () => {
    const server = await serve();
    Object.defineProperty(globalThis, "location", {
      configurable: true,
      get() {
        throw new ReferenceError('Access to "location", run again with --location <href>.');
      },
    });
    try {
      const connection = await connect(server.url);
      expect(connection.isOpen).toBe(true);
    } finally {
      delete (globalThis as { location?: unknown }).location;
    }
  });

  it("MCP5 · a server killed mid-call: that call ends at its timeout, later calls cannot reach it; each is an error result and the run ends healthy", async () => {
    const server = await serve();
    const connection = await connect(server.url, { timeoutMs: 1500 });
    const errors: string[] = [];
    connection.errors$.subscribe((error) => errors.push(error.message));
    const provider = fauxProvider([
      { content: [fauxToolCall("trigger-long-running-operation", { duration: 4, steps: 4 }, "long")] },
      { content: [fauxToolCall("echo", { message: "anyone?" }, "echo")] },
      { content: "The server is gone." },
    ]);
    const agent = new Agent({ streamFn: provider, initialState: { model: provider.model, tools: await connection.listTools() } });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_update") server.process.kill("SIGKILL");
    });
    await agent.prompt("Go.");
    const [long, echo] = resultsOf(agent);
    expect(long).toMatchObject({ isError: true });
    expect(textOf(long)).toMatch(/^MCP server "mcp-servers\/everything" did not answer "trigger-long-running-operation" within 1500 ms; the request was cancelled\./);
    expect(echo).toMatchObject({ isError: true });
    expect(textOf(echo)).toMatch(/^Could not reach MCP server "mcp-servers\/everything" to run "echo": /);
    expect(errors.some((message) => /SSE stream disconnected/.test(message))).toBe(true);
    expect(agent.state.errorMessage).toBeUndefined();
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
  });
});

/** A Streamable HTTP server that speaks just enough MCP to connect (JSON answers, no GET stream), and never answers a DELETE. */
async function stallingServer() {
  let deletes = 0;
  let deleteGivenUp = false;
  const http = createServer((request, response) => {
    if (request.method === "DELETE") {
      deletes++;
      response.on("close", () => (deleteGivenUp = true));
      return;
    }
    if (request.method !== "POST") return void response.writeHead(405).end();
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      const message = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } };
      if (message.id === undefined) return void response.writeHead(202).end();
      const result = message.method === "initialize" ? { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "stalling", version: "1.0.0" } } : { tools: [] };
      response.writeHead(200, { "content-type": "application/json", "mcp-session-id": "session-1" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, deletes: () => deletes, deleteGivenUp: () => deleteGivenUp };
}

describe("close() over Streamable HTTP", () => {
  it("MCP5 · a server that never answers the session's DELETE holds close() for closeTimeoutMs at most; then the client closes and gives the DELETE up", async () => {
    const server = await stallingServer();
    const connection = await connectMcpHttp(server.url, { closeTimeoutMs: 300 });
    const errors: string[] = [];
    connection.errors$.subscribe((error) => errors.push(error.message));
    expect(connection.transport.sessionId).toBe("session-1");
    const started = Date.now();
    const outcome = await Promise.race([connection.close().then(() => "closed"), sleep(5000).then(() => "still closing")]);
    expect(outcome).toBe("closed");
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(await connection.closed).toEqual({ by: "app" });
    expect(server.deletes()).toBe(1);
    await until(server.deleteGivenUp, "the client to give the DELETE up", 3000);
    expect(errors).toEqual(['MCP server "stalling" did not confirm the end of its session within 300 ms; closing without it.']);
  });
});
