/**
 * What a server cannot make the client hold or do without end (SPEC MCP5): a result over
 * `maxResultBytes` or with more than `maxContentBlocks` blocks becomes an error result the model
 * reads; a listing of more than `maxListPages` pages or `maxTools` tools fails with an error that
 * says so; paging adds no abort listener per page; and a server tool named like a local one is
 * left out by `mergeTools`, with a warning, so `prompt()` still runs. In-process servers on the
 * SDK's in-memory transport.
 */
import { getEventListeners } from "node:events";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { firstValueFrom, lastValueFrom, type Observable } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, type AgentTool } from "../../src/index.js";
import { connectMcp, mergeTools, type McpAgentTool, type McpConnection, type McpConnectOptions, type ToolCollision } from "../../src/mcp/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import type { AgentToolResult } from "../../src/model/tool-types.js";
import { DEFAULT_MAX_CONTENT_BLOCKS, DEFAULT_MAX_LIST_PAGES, DEFAULT_MAX_RESULT_BYTES, DEFAULT_MAX_RESULT_DEPTH, DEFAULT_MAX_TOOLS, measureResult, resultBytes } from "../../src/mcp/limits.js";
import { mcpAgentTool, type McpToolCaller } from "../../src/mcp/mcp-tool.js";

const tool = (name: string): Tool => ({ name, description: `The ${name} tool.`, inputSchema: { type: "object", properties: {} } });

const open: McpConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
});

/** A server that lists `state.tools` in pages (or pages without end) and answers calls with `state.answer`. */
async function server(options: McpConnectOptions = {}) {
  const state = {
    tools: [tool("big")],
    pageSize: 100,
    endless: false,
    /** The listing at which the server gives up (it stops a client that would page forever). */
    failAt: Infinity,
    listings: 0,
    answer: (): CallToolResult => ({ content: [{ type: "text", text: "ok" }] }),
  };
  const mcp = new Server({ name: "unit", version: "1.0.0" }, { capabilities: { tools: {} } });
  mcp.setRequestHandler(ListToolsRequestSchema, (request) => {
    state.listings++;
    if (state.listings >= state.failAt) throw new Error("the server stopped paging");
    const start = Number(request.params?.cursor ?? 0);
    if (state.endless) return { tools: [tool(`t${start}`)], nextCursor: String(start + 1) };
    const next = start + state.pageSize;
    return next < state.tools.length ? { tools: state.tools.slice(start, next), nextCursor: String(next) } : { tools: state.tools.slice(start) };
  });
  mcp.setRequestHandler(CallToolRequestSchema, () => state.answer());
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const connection = await connectMcp(clientSide, options);
  open.push(connection);
  return { state, connection };
}

const callOnce = (t: McpAgentTool) => firstValueFrom(t.execute("c", {}, new AbortController().signal, () => {}) as Observable<AgentToolResult<unknown>>);
const textOf = (result: AgentToolResult<unknown>) => result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");

describe("(X7) MCP limits (SPEC MCP5)", () => {
  it("MCP5 · a 9.5 MB result is an error result naming its size and the limit, not 9.5 MB in the transcript; maxResultBytes raises the limit", async () => {
    expect(DEFAULT_MAX_RESULT_BYTES).toBe(1_048_576);
    const huge = "x".repeat(9_500_000);
    const { state, connection } = await server();
    state.answer = () => ({ content: [{ type: "text", text: huge }] });
    const [big] = await connection.listTools();
    const result = await callOnce(big!);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/MCP server "unit" answered "big" with a result larger than the limit of 1048576 bytes \(maxResultBytes\)/);
    expect(JSON.stringify(result).length).toBeLessThan(2_000);

    // Images count too: their base64 data is what the next request carries.
    state.answer = () => ({ content: [{ type: "image", data: "A".repeat(2_000_000), mimeType: "image/png" }] });
    expect((await callOnce(big!)).isError).toBe(true);

    const { state: roomy, connection: raised } = await server({ maxResultBytes: 16 * 1_048_576 });
    roomy.answer = () => ({ content: [{ type: "text", text: huge }] });
    const passed = await callOnce((await raised.listTools())[0]!);
    expect(passed.isError).toBeUndefined();
    expect(textOf(passed)).toHaveLength(9_500_000);
  });

  it("MCP5 · a 9.5 MB array of zeros in structuredContent counts toward maxResultBytes: numbers, booleans and null are not free", async () => {
    const { state, connection } = await server();
    state.answer = () => ({ content: [], structuredContent: { a: new Array<number>(4_750_000).fill(0) } });
    const [big] = await connection.listTools();
    const result = await callOnce(big!);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/with a result larger than the limit of 1048576 bytes \(maxResultBytes\)/);
    expect(JSON.stringify(result).length).toBeLessThan(2_000);
    expect(result.details).toMatchObject({ limitExceeded: { limit: "maxResultBytes", max: 1_048_576 } });
    // Booleans and nulls too.
    state.answer = () => ({ content: [], structuredContent: { a: new Array<boolean | null>(400_000).fill(true), b: new Array<null>(400_000).fill(null) } });
    expect((await callOnce(big!)).isError).toBe(true);
  });

  it("MCP5 · structuredContent nested 200 000 levels deep is an error result naming maxResultDepth; the call settles and nothing is left unhandled", async () => {
    expect(DEFAULT_MAX_RESULT_DEPTH).toBe(64);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const nest = (levels: number) => {
        let deep: Record<string, unknown> = {};
        for (let i = 0; i < levels; i++) deep = { a: deep };
        return deep;
      };
      const { state, connection } = await server();
      state.answer = () => ({ content: [], structuredContent: nest(200_000) });
      const [big] = await connection.listTools();
      const result = await callOnce(big!);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('MCP server "unit" answered "big" with a result nested deeper than 64 levels (maxResultDepth); it was not passed on. Ask the tool for a flatter answer, or the app may raise maxResultDepth.');
      expect(result.details).toEqual({ server: "unit", tool: "big", limitExceeded: { limit: "maxResultDepth", actual: 65, max: 64 } });
      // The result object is level 1 and structuredContent level 2: 62 more levels fit.
      state.answer = () => ({ content: [], structuredContent: nest(62) });
      expect((await callOnce(big!)).isError).toBeUndefined();
      state.answer = () => ({ content: [], structuredContent: nest(63) });
      expect((await callOnce(big!)).isError).toBe(true);

      const { state: roomy, connection: raised } = await server({ maxResultDepth: 1_000 });
      roomy.answer = () => ({ content: [], structuredContent: nest(500) });
      expect((await callOnce((await raised.listTools())[0]!)).isError).toBeUndefined();
      // A turn of the event loop for any rejection still in flight.
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("MCP5 · a result that cannot be read (a BigInt in structuredContent, a getter that throws) is an error result, not an unhandled rejection", async () => {
    const answering = (answer: () => object) => mcpAgentTool({ callTool: async () => answer() } as unknown as McpToolCaller, tool("odd"), { server: "fake" });
    const bigint = await callOnce(answering(() => ({ content: [], structuredContent: { n: 10n } })));
    expect(bigint.isError).toBe(true);
    expect(textOf(bigint)).toMatch(/^MCP server "fake" answered "odd" with a result that could not be read \(.*BigInt.*\); it was not passed on\.$/);
    expect(bigint.details).toEqual({ server: "fake", tool: "odd" });
    const getter = await callOnce(
      answering(() => ({
        content: [],
        get structuredContent(): unknown {
          throw new Error("no reading me");
        },
      })),
    );
    expect(getter.isError).toBe(true);
    expect(textOf(getter)).toBe('MCP server "fake" answered "odd" with a result that could not be read (no reading me); it was not passed on.');
  });

  it("MCP5 · 200 000 content blocks are an error result naming the count and the limit; maxContentBlocks raises it", async () => {
    expect(DEFAULT_MAX_CONTENT_BLOCKS).toBe(1_000);
    const blocks = Array.from({ length: 200_000 }, () => ({ type: "text" as const, text: "x" }));
    const { state, connection } = await server();
    state.answer = () => ({ content: blocks });
    const [big] = await connection.listTools();
    const result = await callOnce(big!);
    expect(result.isError).toBe(true);
    expect(result.content).toHaveLength(1);
    expect(textOf(result)).toMatch(/MCP server "unit" answered "big" with 200000 content blocks, over the limit of 1000 \(maxContentBlocks\)/);
    // At the limit, the result passes.
    state.answer = () => ({ content: blocks.slice(0, 1_000) });
    expect((await callOnce(big!)).content).toHaveLength(1_000);

    const { state: roomy, connection: raised } = await server({ maxContentBlocks: 5_000 });
    roomy.answer = () => ({ content: blocks.slice(0, 5_000) });
    expect((await callOnce((await raised.listTools())[0]!)).content).toHaveLength(5_000);
  });

  it("MCP5 · a server that pages tools/list without end: the listing stops at maxListPages with a clear error, one abort listener at a time", async () => {
    expect(DEFAULT_MAX_LIST_PAGES).toBe(100);
    const { state, connection } = await server();
    state.endless = true;
    // Without a bound the client would page until the server gives up here.
    state.failAt = 300;
    const signals = new Set<AbortSignal>();
    let most = 0;
    const listTools = connection.client.listTools.bind(connection.client);
    connection.client.listTools = (params, options) => {
      const signal = options!.signal!;
      signals.add(signal);
      most = Math.max(most, getEventListeners(signal, "abort").length);
      return listTools(params, options);
    };
    const caller = new AbortController();
    await expect(connection.listTools(caller.signal)).rejects.toThrow('Could not list the tools of MCP server "unit": the server listed more than 100 pages of tools (maxListPages); it may be paging without end.');
    expect(state.listings).toBe(100);
    // Each page's request has a signal of its own: the SDK's listener on it goes with it.
    for (const signal of signals) most = Math.max(most, getEventListeners(signal, "abort").length);
    expect(most).toBeLessThanOrEqual(1);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);

    // tools$ errors with the same reason.
    state.listings = 0;
    await expect(lastValueFrom(connection.tools$)).rejects.toThrow(/more than 100 pages of tools \(maxListPages\)/);
    expect(state.listings).toBe(100);

    const { state: short, connection: strict } = await server({ maxListPages: 3 });
    short.endless = true;
    short.failAt = 300;
    await expect(strict.listTools()).rejects.toThrow(/more than 3 pages of tools/);
    expect(short.listings).toBe(3);
  });

  it("MCP5 · more than maxTools tools: the listing fails with a clear error; maxTools raises it", async () => {
    expect(DEFAULT_MAX_TOOLS).toBe(1_000);
    const { state, connection } = await server();
    state.tools = Array.from({ length: 1_001 }, (_, i) => tool(`t${i}`));
    await expect(connection.listTools()).rejects.toThrow('Could not list the tools of MCP server "unit": the server listed more than 1000 tools (maxTools).');
    state.tools = state.tools.slice(0, 1_000);
    expect(await connection.listTools()).toHaveLength(1_000);

    const { state: many, connection: raised } = await server({ maxTools: 2_000 });
    many.tools = Array.from({ length: 1_001 }, (_, i) => tool(`t${i}`));
    expect(await raised.listTools()).toHaveLength(1_001);
  });
});

describe("(X7) tool schemas a server lists", () => {
  it("MCP5 · an inputSchema nested 100 000 levels deep fails the listing with a clear error naming the tool, before anything converts or sends it; a normal one lists", async () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 100_000; i++) deep = { type: "object", properties: { a: deep } };
    const { state, connection } = await server();
    state.tools = [tool("fine"), { ...tool("deep"), inputSchema: deep as Tool["inputSchema"] }];
    await expect(connection.listTools()).rejects.toThrow('Could not list the tools of MCP server "unit": the server\'s tool "deep" is nested deeper than 64 levels (its inputSchema, description, annotations and _meta count: maxResultDepth).');
    state.tools = [tool("fine")];
    expect((await connection.listTools()).map((t) => t.name)).toEqual(["fine"]);
  });

  it("MCP5 · a 2 MB description (or title, annotations, _meta) fails the listing naming the tool: the whole definition is held to maxResultBytes", async () => {
    const { state, connection } = await server();
    state.tools = [tool("fine"), { ...tool("wordy"), description: "d".repeat(2_000_000) }];
    await expect(connection.listTools()).rejects.toThrow('Could not list the tools of MCP server "unit": the server\'s tool "wordy" is larger than 1048576 bytes (its inputSchema, description, annotations and _meta count: maxResultBytes).');
    state.tools = [tool("fine"), { ...tool("tagged"), _meta: { blob: "m".repeat(2_000_000) } }];
    await expect(connection.listTools()).rejects.toThrow('the server\'s tool "tagged" is larger than');
    state.tools = [tool("fine")];
    expect((await connection.listTools()).map((t) => t.name)).toEqual(["fine"]);
  });
});

describe("(X7) resultBytes", () => {
  it("MCP5 · counts UTF-8 bytes of every string and key, the JSON length of numbers, booleans and null, one per value, and walks a deeply nested value without recursion", () => {
    const text = "aé€😀";
    expect(resultBytes({ text })).toBe(2 + 4 + new TextEncoder().encode(text).length);
    expect(resultBytes({ content: [{ type: "text", text: "hé" }] })).toBe(27);
    // 7 values, "a", then 0, 12.5, true, false, null as JSON writes them.
    expect(resultBytes({ a: [0, 12.5, true, false, null] })).toBe(7 + 1 + 1 + 4 + 4 + 5 + 4);
    let deep: unknown = "x";
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(resultBytes({ structuredContent: deep })).toBe(200_002 + "structuredContent".length + 1);
  });

  it("MCP5 · measureResult stops at the first limit crossed, holding one frame per level", () => {
    let deep: unknown = 0;
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    expect(measureResult(deep, Infinity, 64)).toEqual({ bytes: 129, over: "maxResultDepth" });
    expect(measureResult({ a: [[[0]]] }, Infinity, 4)).toEqual({ bytes: 7 });
    expect(measureResult({ a: [[[0]]] }, Infinity, 3).over).toBe("maxResultDepth");
    const zeros = new Array<number>(5_000_000).fill(0);
    expect(measureResult(zeros, 1_000)).toEqual({ bytes: 1_001, over: "maxResultBytes" });
  });
});

describe("(X7) MCP limit options", () => {
  it("MCP5 · a limit that is not a positive integer is a TypeError at connect", async () => {
    const [clientSide] = InMemoryTransport.createLinkedPair();
    await expect(connectMcp(clientSide, { maxResultBytes: 0 })).rejects.toThrow(new TypeError("maxResultBytes must be a positive integer (or Infinity), got 0."));
    await expect(connectMcp(clientSide, { maxListPages: 1.5 })).rejects.toThrow(/maxListPages must be a positive integer/);
    await expect(connectMcp(clientSide, { maxResultDepth: -1 })).rejects.toThrow(/maxResultDepth must be a positive integer/);
  });
});

describe("(X7) mergeTools: a server tool named like another tool (SPEC T1, MCP1)", () => {
  const local: AgentTool = {
    name: "big",
    label: "Local big",
    description: "The app's own tool.",
    parameters: { type: "object", properties: {} },
    execute: () => ({ content: [{ type: "text", text: "local ran" }] }),
  };

  it("MCP1 · the later tool of a taken name is left out with a warning naming the server and prefix; prompt() resolves and the model's call runs the app's tool", async () => {
    const { connection } = await server();
    const { connection: other } = await server({ name: "second" });
    const collisions: ToolCollision[] = [];
    const tools = mergeTools([local], await connection.listTools(), await other.listTools(), { onCollision: (collision) => collisions.push(collision) });
    expect(tools).toEqual([local]);
    expect(collisions.map((c) => [c.name, c.server])).toEqual([
      ["big", "unit"],
      ["big", "second"],
    ]);
    expect(collisions[0]!.message).toBe('Tool "big" of MCP server "unit" is left out: a tool of that name is already in the list. Give the connection a `prefix` (e.g. "unit_") to keep both.');

    const provider = fauxProvider([{ content: [fauxToolCall("big", {})] }, { content: "Done." }]);
    const agent = new Agent({ streamFn: provider, initialState: { model: provider.model, tools } });
    await expect(agent.prompt("Run big.")).resolves.toBeUndefined();
    const results = agent.state.messages.filter((m) => m.role === "toolResult");
    expect(results.map((m) => (m.content[0] as { text: string }).text)).toEqual(["local ran"]);
  });

  it("MCP1 · without onCollision the warning goes to console.warn; names that differ are all kept, in order", async () => {
    const { connection } = await server({ prefix: "unit_" });
    const warned: unknown[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warned.push(args.join(" "));
    try {
      const mcpTools = await connection.listTools();
      expect(mergeTools([local], mcpTools).map((t) => t.name)).toEqual(["big", "unit_big"]);
      expect(warned).toEqual([]);
      expect(mergeTools([local], [local])).toEqual([local]);
      expect(warned).toEqual(['rxagent: Tool "big" is left out: a tool of that name is already in the list.']);
    } finally {
      console.warn = warn;
    }
  });
});
