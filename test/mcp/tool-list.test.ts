/**
 * `McpConnection.tools$` against an in-process server built on the SDK's low-level `Server`
 * (linked by the SDK's in-memory transport), whose list the test changes at will (SPEC MCP2):
 * it lists on subscribe and after each `list_changed`, emits only when the list differs,
 * follows every page of `tools/list`, completes when the connection closes, and errors, naming
 * the server, when a listing fails. Also what the connect options may not do, and the output
 * schema check across pages (SPEC MCP5).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { firstValueFrom, lastValueFrom, toArray, type Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { connectMcp, type McpAgentTool, type McpConnectOptions } from "../../src/mcp/index.js";
import type { AgentToolResult } from "../../src/model/tool-types.js";
import { sleep, tapped, until } from "./servers.js";

const tool = (name: string): Tool => ({ name, description: `The ${name} tool.`, inputSchema: { type: "object", properties: {} } });

/** A server whose tool list is `state.tools`, split into pages of `state.pageSize`. */
async function server(initial: Tool[], options: McpConnectOptions = {}) {
  const state = { tools: initial, pageSize: 100, fail: false, loop: false, listings: 0, answer: undefined as ((name: string) => CallToolResult) | undefined };
  const mcp = new Server({ name: "unit", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
  mcp.setRequestHandler(ListToolsRequestSchema, (request) => {
    state.listings++;
    if (state.fail) throw new Error("the tool registry is down");
    if (state.loop) return { tools: [tool("x")], nextCursor: "again" };
    const start = Number(request.params?.cursor ?? 0);
    const page = state.tools.slice(start, start + state.pageSize);
    const next = start + state.pageSize;
    return next < state.tools.length ? { tools: page, nextCursor: String(next) } : { tools: page };
  });
  mcp.setRequestHandler(CallToolRequestSchema, (request) => state.answer?.(request.params.name) ?? { content: [{ type: "text", text: `called ${request.params.name}` }] });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const transport = tapped(clientSide);
  const connection = await connectMcp(transport, options);
  return { state, mcp, connection, wire: transport.wire };
}

const names = (tools: { name: string }[]) => tools.map((t) => t.name);
const callOnce = (tool: McpAgentTool) => firstValueFrom(tool.execute("c", {}, new AbortController().signal, () => {}) as Observable<AgentToolResult<unknown>>);

describe("tools$ (SPEC MCP2)", () => {
  it("MCP2 · lists on subscribe, again on each list_changed, and emits only a list that differs", async () => {
    const { state, mcp, connection } = await server([tool("a")]);
    const lists: string[][] = [];
    connection.tools$.subscribe((tools) => lists.push(names(tools)));
    await until(() => lists.length === 1, "the first listing");
    expect(lists).toEqual([["a"]]);

    state.tools = [tool("a"), tool("b")];
    await mcp.sendToolListChanged();
    await until(() => lists.length === 2, "the second listing");
    expect(lists[1]).toEqual(["a", "b"]);

    // A notification with nothing changed: listed again, not emitted.
    const before = state.listings;
    await mcp.sendToolListChanged();
    await until(() => state.listings === before + 1, "the third listing");
    await sleep(50);
    expect(lists).toHaveLength(2);

    state.tools = [tool("b")];
    await mcp.sendToolListChanged();
    await until(() => lists.length === 3, "the listing after a removal");
    expect(lists[2]).toEqual(["b"]);
    await connection.close();
  });

  it("MCP2 · follows every page of tools/list, and stops at a cursor it was given before", async () => {
    const { state, connection } = await server(["a", "b", "c", "d", "e"].map(tool));
    state.pageSize = 2;
    expect(names(await connection.listTools())).toEqual(["a", "b", "c", "d", "e"]);
    expect(state.listings).toBe(3);
    expect(names(await firstValueFrom(connection.tools$))).toEqual(["a", "b", "c", "d", "e"]);
    // A server that hands out the same cursor forever: two pages, then the listing stops; "x" twice is one tool.
    state.loop = true;
    state.listings = 0;
    expect(names(await connection.listTools())).toEqual(["x"]);
    expect(state.listings).toBe(2);
    await connection.close();
  });

  it("MCP2 · completes when the connection closes (a late subscriber gets nothing), with closed saying who closed it", async () => {
    const { mcp, connection } = await server([tool("a")]);
    const all = lastValueFrom(connection.tools$.pipe(toArray()));
    await sleep(20);
    await mcp.close(); // the server side goes
    expect(names((await all)[0]!)).toEqual(["a"]);
    expect(await connection.closed).toEqual({ by: "server" });
    expect(await lastValueFrom(connection.tools$.pipe(toArray()))).toEqual([]);
    const other = await server([tool("a")]);
    await other.connection.close();
    expect(await other.connection.closed).toEqual({ by: "app" });
  });

  it("MCP2 · a listing that fails while the connection is open is an error of tools$ naming the server", async () => {
    const { state, mcp, connection } = await server([tool("a")]);
    const seen: string[][] = [];
    const failed = new Promise<unknown>((resolve) => connection.tools$.subscribe({ next: (tools) => seen.push(names(tools)), error: resolve }));
    await until(() => seen.length === 1, "the first listing");
    state.fail = true;
    await mcp.sendToolListChanged();
    expect(String(await failed)).toMatch(/^Error: Could not list the tools of MCP server "unit": MCP error -32603: the tool registry is down$/);
    await expect(connection.listTools()).rejects.toThrow(/Could not list the tools of MCP server "unit"/);
    await connection.close();
  });

  it("MCP2 · unsubscribing during a listing cancels it on the server", async () => {
    const { connection, wire } = await server([tool("a")]);
    const subscription = connection.tools$.subscribe();
    subscription.unsubscribe();
    await sleep(20);
    const list = wire.messages.find((m) => m.direction === "sent" && "method" in m.message && m.message.method === "tools/list");
    const id = list && "id" in list.message ? list.message.id : undefined;
    expect(id).toBeDefined();
    expect(wire.cancellation(id!)?.message).toMatchObject({ params: { requestId: id, reason: "The tool list is no longer wanted." } });
    // A listing that finished is never cancelled afterwards.
    await firstValueFrom(connection.tools$);
    const sentLists = wire.messages.filter((m) => m.direction === "sent" && "method" in m.message && m.message.method === "tools/list");
    const lastId = (sentLists.at(-1)!.message as { id: number }).id;
    await sleep(20);
    expect(wire.cancellation(lastId)).toBeUndefined();
    await connection.close();
  });

  it("MCP1 · the filter option and the prefix shape the list; the tools call the server by its own names", async () => {
    const { connection } = await server([tool("keep.me"), tool("drop")], { prefix: "u_", filter: (t) => t.name !== "drop" });
    const [only] = await connection.listTools();
    expect(only).toMatchObject({ name: "u_keep_me", mcp: { name: "keep.me", server: "unit" } });
    const result = await firstValueFrom(only!.execute("c", {}, new AbortController().signal, () => {}) as never);
    expect(result).toMatchObject({ content: [{ type: "text", text: "called keep.me" }] });
    await connection.close();
  });

  it("MCP2 · listTools() with a signal aborted already lists nothing and rejects with the reason", async () => {
    const { state, connection, wire } = await server([tool("a")]);
    const stop = new AbortController();
    stop.abort("not wanted");
    await expect(connection.listTools(stop.signal)).rejects.toThrow(/^Could not list the tools of MCP server "unit": not wanted$/);
    expect(state.listings).toBe(0);
    expect(wire.messages.some((m) => m.direction === "sent" && "method" in m.message && m.message.method === "tools/list")).toBe(false);
    await connection.close();
  });

  it("MCP2 · clientOptions.listChanged.tools, which would silently replace the handler tools$ follows, is a TypeError; prompts and resources handlers are the app's", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const onChanged = () => {};
    // @ts-expect-error: not in the options type either
    const refused = connectMcp(clientSide, { connectTimeoutMs: 500, clientOptions: { listChanged: { tools: { onChanged } } } });
    await expect(refused).rejects.toThrow(TypeError);
    await expect(refused).rejects.toThrow(/listChanged\.tools .*tools\$/);
    await serverSide.close();

    const { state, mcp, connection } = await server([tool("a")], { clientOptions: { listChanged: { prompts: { onChanged } } } });
    const lists: string[][] = [];
    connection.tools$.subscribe((tools) => lists.push(names(tools)));
    await until(() => lists.length === 1, "the first listing");
    state.tools = [tool("a"), tool("b")];
    await mcp.sendToolListChanged();
    await until(() => lists.length === 2, "the listing after list_changed");
    await connection.close();
  });

  it("MCP5 · the SDK checks structuredContent against the output schema of a tool from every page, not only the last", async () => {
    const typed = (name: string): Tool => ({ ...tool(name), outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } });
    const { state, connection } = await server([typed("first"), typed("last")]);
    state.pageSize = 1;
    state.answer = () => ({ content: [{ type: "text", text: "n is missing" }], structuredContent: { m: 1 } });
    const [first, last] = await connection.listTools();
    expect(state.listings).toBe(2);
    for (const listed of [first!, last!]) {
      const result = await callOnce(listed);
      expect(result.isError, listed.name).toBe(true);
      expect(result.content[0]).toMatchObject({ text: expect.stringMatching(new RegExp(`^MCP server "unit" answered "${listed.name}" with a result that does not match the tool's own output schema`)) });
    }
    await connection.close();
  });
});
