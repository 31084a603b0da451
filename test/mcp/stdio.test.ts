/**
 * `@modelcontextprotocol/server-everything` over stdio, started by each test as a child process,
 * with an Agent on the scripted provider calling its tools (SPEC MCP1, MCP3–MCP5). What the
 * server did is read off the wire (test/mcp/servers.ts): below the SDK, so a withheld answer or
 * progress that kept coming is the server's doing, not the client's bookkeeping.
 */
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { defer, finalize, firstValueFrom, repeat, retry, switchMap, tap } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, interpretingValidator, type AgentEvent, type ToolResultMessage } from "../../src/index.js";
import { connectMcp, type McpConnection, type McpResultDetails } from "../../src/mcp/index.js";
import { CANCEL_REASON } from "../../src/mcp/mcp-tool.js";
import type { AgentToolResult } from "../../src/model/tool-types.js";
import { connectMcpStdio, type McpStdioOptions } from "../../src/mcp/stdio.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { ajvValidator } from "../../src/tools/validators/ajv-validator.js";
import { everythingStdio, sleep, tapped, until, type Wire } from "./servers.js";

const open: McpConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
});

async function everything(options: Partial<McpStdioOptions> = {}) {
  const connection = await connectMcpStdio({ ...everythingStdio, ...options });
  open.push(connection);
  return connection;
}

/** server-everything behind a wire tap; `rewrite` may corrupt what the server sends. */
async function tappedEverything(options: { timeoutMs?: number; resetTimeoutOnProgress?: boolean; rewrite?: (message: JSONRPCMessage, wire: Wire) => unknown } = {}) {
  const { rewrite, ...connectOptions } = options;
  const wire = (): Wire => transport.wire;
  const transport: ReturnType<typeof tapped<StdioClientTransport>> = tapped(new StdioClientTransport(everythingStdio), rewrite ? { rewrite: (message) => rewrite(message, wire()) } : {});
  const connection = await connectMcp(transport, connectOptions);
  open.push(connection);
  return { connection, wire: transport.wire };
}

const textOf = (message: ToolResultMessage | undefined) => (message?.content ?? []).map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
const resultsOf = (agent: Agent) => agent.state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
const lastAssistant = (agent: Agent) => agent.state.messages.filter((m) => m.role === "assistant").at(-1) as { stopReason: string; content: unknown[] } | undefined;

describe("server-everything over stdio", () => {
  it("MCP1 · its tools as rxagent tools: every schema compiles with ajv and the interpreter; the task-only tool is left out", async () => {
    const connection = await everything();
    expect(connection.name).toBe("mcp-servers/everything");
    const raw = (await connection.client.listTools()).tools.map((tool) => tool.name);
    const tools = await firstValueFrom(connection.tools$);
    expect(raw).toContain("simulate-research-query"); // execution.taskSupport "required": not callable with tools/call
    expect(tools.map((tool) => tool.name)).toEqual(raw.filter((name) => name !== "simulate-research-query"));
    for (const name of ["echo", "get-sum", "trigger-long-running-operation", "get-structured-content", "get-tiny-image"]) expect(tools.map((t) => t.name)).toContain(name);
    for (const tool of tools) {
      expect(tool.mcp.checkedBy, tool.name).toBe("rxagent");
      expect(tool.parameters).not.toHaveProperty("$schema");
      expect(() => ajvValidator.compile(tool.parameters, tool.name)).not.toThrow();
      expect(() => interpretingValidator.compile(tool.parameters, tool.name)).not.toThrow();
      expect(tool.description.length, tool.name).toBeGreaterThan(0);
    }
    expect(tools.find((tool) => tool.name === "echo")).toMatchObject({ label: "Echo Tool", description: "Echoes back the input string", parameters: { type: "object", required: ["message"] } });
    // With a prefix, every name carries it, and the server still gets its own names.
    const prefixed = await connectMcpStdio({ ...everythingStdio, prefix: "ev_" });
    open.push(prefixed);
    expect((await prefixed.listTools()).every((tool) => tool.name.startsWith("ev_") && tool.name === `ev_${tool.mcp.name}`)).toBe(true);
  });

  it("MCP3 · an Agent calls five tools in parallel: progress arrives as tool_execution_update while the others finish; results map text, images and structured content", async () => {
    const connection = await everything();
    const tools = await connection.listTools();
    const provider = fauxProvider([
      {
        content: [
          fauxToolCall("trigger-long-running-operation", { duration: 1.2, steps: 4 }, "long"),
          fauxToolCall("echo", { message: "hello" }, "echo"),
          fauxToolCall("get-sum", { a: "2", b: 40 }, "sum"), // "2": coerced to a number by the validator before the call
          fauxToolCall("get-structured-content", { location: "Chicago" }, "weather"),
          fauxToolCall("get-tiny-image", {}, "image"),
        ],
      },
      { content: "All five answered." },
    ]);
    const agent = new Agent({ streamFn: provider, initialState: { model: provider.model, tools } });
    const events: (AgentEvent & { at: number })[] = [];
    agent.subscribe((event) => void events.push({ ...event, at: Date.now() }));
    await agent.prompt("Use the tools.");

    type Timed = AgentEvent & { at: number };
    const of = (type: string, id: string): Timed[] => events.filter((e) => e.type === type && (e as { toolCallId?: string }).toolCallId === id);
    const updates = of("tool_execution_update", "long") as (Extract<AgentEvent, { type: "tool_execution_update" }> & { at: number })[];
    // The server sends 4/4 right before the result; when both arrive in one read the SDK drops
    // that notification (it handles notifications a microtask later, after the result removed
    // the call's progress handler). Every notification it hands over is an update, in order.
    expect(updates.length).toBeGreaterThanOrEqual(3);
    expect(updates.map((u) => u.partialResult.details.progress)).toEqual([0.25, 0.5, 0.75, 1].slice(0, updates.length));
    expect(updates.map((u) => u.partialResult.content)).toEqual(["1/4", "2/4", "3/4", "4/4"].slice(0, updates.length).map((text) => [{ type: "text", text }]));
    // Parallel: the quick calls ended before the long one's first progress; its progress came over time, before its end.
    const firstUpdate = events.indexOf(updates[0]!);
    for (const id of ["echo", "sum", "weather", "image"]) expect(events.indexOf(of("tool_execution_end", id)[0]!), id).toBeLessThan(firstUpdate);
    expect(updates.at(-1)!.at - updates[0]!.at).toBeGreaterThan(500);
    expect(events.indexOf(updates.at(-1)!)).toBeLessThan(events.indexOf(of("tool_execution_end", "long")[0]!));

    const results = resultsOf(agent);
    expect(results.map((r) => r.toolCallId)).toEqual(["long", "echo", "sum", "weather", "image"]); // source order
    expect(results.map((r) => r.isError)).toEqual([false, false, false, false, false]);
    expect(textOf(results[0])).toBe("Long running operation completed. Duration: 1.2 seconds, Steps: 4.");
    expect(textOf(results[1])).toBe("Echo: hello");
    expect(textOf(results[2])).toBe("The sum of 2 and 40 is 42.");
    const structured = results[3]!.details.structuredContent as { temperature: number; conditions: string };
    expect(structured).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });
    expect(JSON.parse(textOf(results[3]))).toEqual(structured); // the server's JSON text, not sent twice
    expect(results[4]!.content).toEqual([
      { type: "text", text: "Here's the image you requested:" },
      { type: "image", mimeType: "image/png", data: expect.stringMatching(/^iVBOR/) },
      { type: "text", text: "The image above is the MCP logo." },
    ]);
    expect(results[4]!.details).toMatchObject({ server: "mcp-servers/everything", tool: "get-tiny-image" });

    expect(agent.state.errorMessage).toBeUndefined();
    expect(lastAssistant(agent)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "All five answered." }] });
    expect(provider.requests).toHaveLength(2);
  });

  it("MCP3 · resource links and embedded resources from the server; its own isError is an error result the model reads", async () => {
    const connection = await everything();
    const tools = new Map((await connection.listTools()).map((tool) => [tool.name, tool]));
    const call = (name: string, args: Record<string, unknown>) => firstValueFrom(tools.get(name)!.execute("c", args, new AbortController().signal, () => {}) as never) as Promise<AgentToolResult<McpResultDetails>>;

    const links = await call("get-resource-links", { count: 2 });
    expect(links.content.map((block) => block.type === "text" && block.text)).toEqual([
      "Here are 2 resource links to resources available in this server:",
      expect.stringMatching(/^Resource link: .+ <demo:\/\/resource\/dynamic\/\w+\/1> \(text\/plain\) — /),
      expect.stringMatching(/^Resource link: .+ <demo:\/\/resource\/dynamic\/\w+\/2> \(text\/plain\) — /),
    ]);
    expect(links.details?.resources).toEqual([expect.objectContaining({ kind: "link", uri: expect.stringMatching(/\/1$/) }), expect.objectContaining({ kind: "link", uri: expect.stringMatching(/\/2$/) })]);

    const embedded = await call("get-resource-reference", { resourceType: "Text", resourceId: 3 });
    expect(embedded.content[1]).toEqual({ type: "text", text: expect.stringMatching(/^Resource <demo:\/\/resource\/dynamic\/text\/3> \(text\/plain\):\nResource 3: /) });
    expect(embedded.details?.resources).toEqual([{ kind: "embedded", uri: "demo://resource/dynamic/text/3", mimeType: "text/plain" }]);

    // Called without its required argument (past rxagent's own check): the server's refusal, as the model will read it.
    const refused = await call("echo", {});
    expect(refused.isError).toBe(true);
    expect(refused.content).toEqual([{ type: "text", text: expect.stringMatching(/Invalid arguments for tool echo/) }]);
  });

  it("MCP4 · agent.abort() mid-call sends notifications/cancelled for that request; the server keeps its answer back and goes on serving", async () => {
    const { connection, wire } = await tappedEverything();
    const provider = fauxProvider([{ content: [fauxToolCall("trigger-long-running-operation", { duration: 2, steps: 4 }, "long")] }, { content: "not reached" }]);
    const agent = new Agent({ streamFn: provider, initialState: { model: provider.model, tools: await connection.listTools() } });
    let abortedAt = 0;
    agent.subscribe((event) => {
      if (event.type === "tool_execution_update" && !abortedAt) {
        abortedAt = Date.now();
        agent.abort();
      }
    });
    await agent.prompt("Start the long operation.");

    expect(textOf(resultsOf(agent)[0])).toBe("Operation aborted");
    expect(lastAssistant(agent)?.stopReason).toBe("aborted");
    const id = wire.callId("trigger-long-running-operation")!;
    const cancelled = wire.cancellation(id);
    expect(cancelled?.message).toMatchObject({ params: { requestId: id, reason: CANCEL_REASON } });
    expect(cancelled!.at - abortedAt).toBeLessThan(200);

    // Past the operation's end: the server went on with it (progress kept coming) but, told of the cancellation, never answered it.
    await until(() => wire.progress(id).length === 4, "the server's last progress notification", 10_000);
    await sleep(300);
    expect(wire.progress(id).filter((m) => m.at > cancelled!.at).length).toBeGreaterThan(0);
    expect(wire.response(id)).toBeUndefined();
    // The connection is healthy: the next call is answered.
    const echo = (await connection.listTools()).find((tool) => tool.name === "echo")!;
    expect(await firstValueFrom(echo.execute("e", { message: "still here" }, new AbortController().signal, () => {}) as never)).toMatchObject({ content: [{ type: "text", text: "Echo: still here" }] });
    expect(wire.response(id)).toBeUndefined();
    expect(provider.requests).toHaveLength(1);
  });

  it("MCP5 · a server killed with SIGKILL mid-call: that call gets an error result, the run ends healthy, the connection says it closed, later calls say not connected", async () => {
    const connection = await everything();
    const lists: string[][] = [];
    let listCompleted = false;
    connection.tools$.subscribe({ next: (tools) => lists.push(tools.map((t) => t.name)), complete: () => (listCompleted = true) });
    const tools = await connection.listTools();
    const provider = fauxProvider([
      { content: [fauxToolCall("trigger-long-running-operation", { duration: 5, steps: 5 }, "long"), fauxToolCall("echo", { message: "before" }, "echo")] },
      { content: "The server stopped." },
      { content: [fauxToolCall("echo", { message: "again" }, "again")] },
      { content: "Still gone." },
    ]);
    const agent = new Agent({ streamFn: provider, initialState: { model: provider.model, tools } });
    const pid = connection.transport.pid!;
    expect(pid).toBeGreaterThan(0);
    agent.subscribe((event) => {
      if (event.type === "tool_execution_update" && event.toolCallId === "long") process.kill(pid, "SIGKILL");
    });
    await agent.prompt("Go.");

    const [long, echo] = resultsOf(agent);
    expect(long).toMatchObject({ isError: true });
    expect(textOf(long)).toBe(
      'The connection to MCP server "mcp-servers/everything" closed while "trigger-long-running-operation" was running (the server stopped or crashed); the call may or may not have taken effect. Its tools cannot be used until the app reconnects.',
    );
    expect(echo).toMatchObject({ isError: false });
    expect(agent.state.errorMessage).toBeUndefined();
    expect(lastAssistant(agent)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "The server stopped." }] });
    expect(await connection.closed).toEqual({ by: "server" });
    expect(connection.isOpen).toBe(false);
    expect(listCompleted).toBe(true);
    expect(lists).toHaveLength(1);

    await agent.prompt("Try again.");
    expect(textOf(resultsOf(agent).at(-1))).toMatch(/^MCP server "mcp-servers\/everything" is not connected .* so "echo" did not run\./);
    expect(agent.state.errorMessage).toBeUndefined();
    expect(lastAssistant(agent)?.stopReason).toBe("stop");
  });

  it("MCP5 · reconnecting is the app's: the documented repeat recipe starts the server again after a SIGKILL, and the model is told nothing new", async () => {
    const connections: McpConnection<StdioClientTransport>[] = [];
    const tools$ = defer(() => connectMcpStdio(everythingStdio)).pipe(
      tap((server) => {
        connections.push(server);
        open.push(server);
      }),
      switchMap((server) => server.tools$.pipe(finalize(() => void server.close()))),
      retry({ delay: 200 }),
      repeat({ delay: 200 }),
    );
    const provider = fauxProvider([{ content: [fauxToolCall("echo", { message: "first" })] }, { content: "ok" }, { content: [fauxToolCall("echo", { message: "second" })] }, { content: "ok again" }]);
    const agent = new Agent({ streamFn: provider, initialState: { model: provider.model } });
    const lists: number[] = [];
    const following = tools$.subscribe((tools) => {
      lists.push(tools.length);
      agent.state.tools = tools;
    });
    await until(() => lists.length === 1, "the first listing");
    await agent.prompt("Echo first.");
    process.kill(connections[0]!.transport.pid!, "SIGKILL");
    expect(await connections[0]!.closed).toEqual({ by: "server" });
    await until(() => lists.length === 2, "the listing of the new connection");
    expect(connections).toHaveLength(2);
    expect(connections[1]!.transport.pid).not.toBe(connections[0]!.transport.pid);
    await agent.prompt("Echo second.");
    expect(textOf(resultsOf(agent).at(-1))).toBe("Echo: second");
    const declaring = (index: number) => provider.requests[index]!.messages.filter((m) => m.role === "system").length;
    expect(declaring(2)).toBe(declaring(0)); // same names, same declarations: no announcement
    following.unsubscribe();
    expect(await connections[1]!.closed).toEqual({ by: "app" });
  });

  it("MCP5 · a server that cannot be started, or speaks no MCP, is a rejected connect with the reason", async () => {
    await expect(connectMcpStdio({ command: "/nonexistent/mcp-server" })).rejects.toThrow(/^Could not connect to MCP server: .*ENOENT/);
    // A process that exits at once, having written something that is not JSON-RPC.
    await expect(connectMcpStdio({ command: process.execPath, args: ["-e", "console.log('hello, not MCP')"], stderr: "ignore", name: "chatty" })).rejects.toThrow(/^Could not connect to MCP server "chatty": .*Connection closed/);
  });

  it("MCP5 · a call that hangs ends at the timeout with an error result and a cancellation; progress resets the timeout unless told not to", async () => {
    const { connection, wire } = await tappedEverything({ timeoutMs: 700 });
    const tools = await connection.listTools();
    const provider = fauxProvider([
      {
        content: [
          fauxToolCall("trigger-long-running-operation", { duration: 3, steps: 1 }, "silent"), // no progress for 3 s
          fauxToolCall("trigger-long-running-operation", { duration: 1.6, steps: 8 }, "chatty"), // progress every 200 ms
        ],
      },
      { content: "One timed out." },
    ]);
    const agent = new Agent({ streamFn: provider, initialState: { model: provider.model, tools } });
    await agent.prompt("Go.");
    const [silent, chatty] = resultsOf(agent);
    expect(silent).toMatchObject({ isError: true });
    expect(textOf(silent)).toMatch(/^MCP server "mcp-servers\/everything" did not answer "trigger-long-running-operation" within 700 ms; the request was cancelled\./);
    expect(silent!.durationMs).toBeLessThan(2500);
    expect(chatty).toMatchObject({ isError: false });
    expect(textOf(chatty)).toMatch(/^Long running operation completed/);
    expect(chatty!.durationMs).toBeGreaterThan(700); // it outlived the timeout, kept alive by its progress
    const id = wire.callId("trigger-long-running-operation", 0)!;
    expect(wire.cancellation(id)?.message).toMatchObject({ params: { requestId: id, reason: expect.stringMatching(/timed out/) } });
    expect(lastAssistant(agent)?.stopReason).toBe("stop");

    // Without the reset, the chatty call times out too.
    const strict = await tappedEverything({ timeoutMs: 700, resetTimeoutOnProgress: false });
    const again = fauxProvider([{ content: [fauxToolCall("trigger-long-running-operation", { duration: 1.6, steps: 8 }, "chatty")] }, { content: "ok" }]);
    const second = new Agent({ streamFn: again, initialState: { model: again.model, tools: await strict.connection.listTools() } });
    await second.prompt("Go.");
    expect(textOf(resultsOf(second)[0])).toMatch(/did not answer .* within 700 ms/);
  });

  it("MCP5 · garbage from the server — a result that is not a tool result, structured content that breaks the tool's output schema — gives error results; the run goes on", async () => {
    const nameOf = (wire: Wire, id: unknown) => {
      const sent = wire.messages.find((m) => m.direction === "sent" && "id" in m.message && m.message.id === id && "method" in m.message);
      return (sent?.message as { params?: { name?: string } } | undefined)?.params?.name;
    };
    const { connection } = await tappedEverything({
      rewrite: (message, wire) => {
        if (!("result" in message) || !("id" in message)) return message;
        const tool = nameOf(wire, message.id);
        if (tool === "echo") return { ...message, result: { content: "<html>502 Bad Gateway</html>" } };
        if (tool === "get-structured-content") return { ...message, result: { ...message.result, structuredContent: { temperature: "hot" } } };
        return message;
      },
    });
    const provider = fauxProvider([
      { content: [fauxToolCall("echo", { message: "x" }, "echo"), fauxToolCall("get-structured-content", { location: "Chicago" }, "weather"), fauxToolCall("get-sum", { a: 1, b: 2 }, "sum")] },
      { content: "Two of them were broken." },
    ]);
    const agent = new Agent({ streamFn: provider, initialState: { model: provider.model, tools: await connection.listTools() } });
    await agent.prompt("Go.");
    const [echo, weather, sum] = resultsOf(agent);
    expect(echo).toMatchObject({ isError: true });
    expect(textOf(echo)).toMatch(/^MCP server "mcp-servers\/everything" answered "echo" with something that is not a valid tool result: /);
    expect(weather).toMatchObject({ isError: true });
    expect(textOf(weather)).toMatch(/answered "get-structured-content" with a result that does not match the tool's own output schema: .*temperature/);
    expect(sum).toMatchObject({ isError: false });
    expect(textOf(sum)).toBe("The sum of 1 and 2 is 3.");
    expect(agent.state.errorMessage).toBeUndefined();
    expect(lastAssistant(agent)?.stopReason).toBe("stop");
  });
});
