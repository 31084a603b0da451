/**
 * `@modelcontextprotocol/server-everything` over Streamable HTTP on 127.0.0.1 (a process per
 * test, on a port the OS picked), through `connectMcpHttp` (SPEC MCP1, MCP3–MCP5). The wire is
 * tapped at the connected transport (test/mcp/servers.ts).
 */
import { firstValueFrom, takeWhile } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, type AgentEvent, type ToolResultMessage } from "../../src/index.js";
import { CANCEL_REASON, connectMcpHttp, type McpConnection } from "../../src/mcp/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { sleep, startEverythingHttp, tapConnected, until, type HttpEverything } from "./servers.js";

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

  it("MCP4 · unsubscribing from prompt$ mid-call cancels the request: the server withholds the answer and keeps serving", async () => {
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

    await until(() => wire.progress(id).length === 4, "the operation's last progress notification", 10_000);
    await sleep(300);
    expect(wire.response(id)).toBeUndefined();
    const echo = (await connection.listTools()).find((tool) => tool.name === "echo")!;
    expect(await firstValueFrom(echo.execute("e", { message: "still here" }, new AbortController().signal, () => {}) as never)).toMatchObject({ content: [{ type: "text", text: "Echo: still here" }] });
    expect(wire.response(id)).toBeUndefined();
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
