/**
 * The tool list as an Observable (SPEC MCP2) with server-everything over stdio: a
 * `notifications/tools/list_changed` re-lists and emits, and the app's `agent.state.tools = …`
 * (between runs) or `prepareNextTurn` (within one) gets the change announced in the transcript
 * before the next request (SPEC M5: the loop diffs the executable tools against the declared ones).
 *
 * server-everything registers some tools when it gets the client's `notifications/initialized`
 * (`get-roots-list` among them, for a client that declares `roots`), and tells the client with
 * `list_changed`. Sent as usual, that happens before the client can list anything, so the first
 * listing already has them. The tap holds the notification back until the test releases it: the
 * first listing comes before the change, and the change is the server's own.
 */
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, type AgentTool, type SystemMessage } from "../../src/index.js";
import { connectMcp, type McpAgentTool, type McpConnection } from "../../src/mcp/index.js";
import { fauxProvider, fauxToolCall, type FauxRequest } from "../../src/testing/index.js";
import { everythingStdio, tapped, until } from "./servers.js";

const open: McpConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
});

async function heldBack() {
  const transport = tapped(new StdioClientTransport(everythingStdio), { holdInitialized: true });
  const connection = await connectMcp(transport, { prefix: "ev_", capabilities: { roots: {} } });
  open.push(connection);
  return { connection, transport };
}

const local: AgentTool = {
  name: "note",
  label: "Note",
  description: "Keeps a note.",
  parameters: { type: "object", properties: { text: { type: "string" } } },
  execute: () => ({ content: [{ type: "text", text: "noted" }] }),
};

/** The system messages of a request that add or remove tools, reduced to the names. */
const announcements = (request: FauxRequest) =>
  request.messages
    .filter((m): m is SystemMessage => m.role === "system" && !!(m.toolsAdded?.length || m.toolsRemoved?.length))
    .map((m) => ({ added: (m.toolsAdded ?? []).map((t) => t.name), removed: (m.toolsRemoved ?? []).map((t) => t.name) }));

describe("the tool list follows notifications/tools/list_changed (SPEC MCP2, M5)", () => {
  it("MCP2 · a list change re-lists and emits; agent.state.tools = … between prompts is announced before the next request; so is the app dropping the tools when the server goes", async () => {
    const { connection, transport } = await heldBack();
    const lists: McpAgentTool[][] = [];
    let completed = false;
    const provider = fauxProvider([
      { content: [fauxToolCall("ev_echo", { message: "one" })] },
      { content: "Echoed." },
      { content: "I can list roots now." },
      { content: "The server's tools are gone." },
    ]);
    const agent = new Agent({ streamFn: provider, initialState: { model: provider.model, systemPrompt: "Be brief.", tools: [local] } });
    connection.tools$.subscribe({
      next: (tools) => {
        lists.push(tools);
        agent.state.tools = [local, ...tools];
      },
      complete: () => (completed = true),
    });
    await until(() => lists.length === 1, "the first listing");
    const before = lists[0]!.map((t) => t.name);
    expect(before).toContain("ev_echo");
    expect(before).not.toContain("ev_get-roots-list");

    await agent.prompt("Echo one.");
    // The leading system message declared the Agent's first tools; the server's came before the first request.
    expect(announcements(provider.requests[0]!)).toEqual([{ added: ["note"], removed: [] }, { added: before, removed: [] }]);
    expect(announcements(provider.requests[1]!)).toEqual(announcements(provider.requests[0]!)); // nothing new within the run

    await transport.release();
    await until(() => lists.length === 2, "the listing after list_changed");
    expect(transport.wire.notifications("notifications/tools/list_changed").length).toBeGreaterThan(0);
    const after = lists[1]!.map((t) => t.name);
    expect(after).toEqual([...before, "ev_get-roots-list"]);

    await agent.prompt("What can you do now?");
    const third = provider.requests[2]!;
    expect(announcements(third)).toEqual([{ added: ["note"], removed: [] }, { added: before, removed: [] }, { added: ["ev_get-roots-list"], removed: [] }]);
    // The announcement is in the transcript, before the prompt it came with.
    const roles = third.messages.map((m) => m.role);
    expect(roles.slice(-3)).toEqual(["assistant", "system", "user"]);
    expect(agent.state.messages.some((m) => m.role === "system" && m.toolsAdded?.some((t) => t.name === "ev_get-roots-list"))).toBe(true);
    expect(third.messages.at(-2)).toMatchObject({ toolsAdded: [{ name: "ev_get-roots-list", description: expect.any(String), parameters: { type: "object" } }] });

    // Reconnecting or not is the app's call; this app drops the server's tools when it goes.
    void connection.closed.then(() => (agent.state.tools = [local]));
    await connection.close();
    await until(() => agent.state.tools.length === 1, "the app to drop the tools");
    expect(completed).toBe(true);
    await agent.prompt("And now?");
    expect(announcements(provider.requests[3]!).at(-1)).toEqual({ added: [], removed: after });
    expect(agent.state.errorMessage).toBeUndefined();
  });

  it("MCP2 · within a run, prepareNextTurn hands the next turn the tools as they are now: the change is announced before that turn's request", async () => {
    const { connection, transport } = await heldBack();
    const provider = fauxProvider([
      { content: [fauxToolCall("ev_trigger-long-running-operation", { duration: 1.5, steps: 3 }, "long")] },
      { content: "Done, and there is a new tool." },
    ]);
    const agent: Agent = new Agent({
      streamFn: provider,
      initialState: { model: provider.model, tools: await connection.listTools() },
      // The run took its tools when it started; the next turn takes the Agent's current ones.
      prepareNextTurn: (turn) => (turn.context.tools === agent.state.tools ? undefined : { context: { ...turn.context, tools: agent.state.tools } }),
    });
    let changedAt = 0;
    connection.tools$.subscribe((tools) => {
      if (tools.some((t) => t.name === "ev_get-roots-list")) changedAt = Date.now();
      agent.state.tools = tools;
    });
    let endedAt = 0;
    agent.subscribe((event) => {
      if (event.type === "tool_execution_update" && event.partialResult.details.mcpProgress.progress === 1) void transport.release();
      if (event.type === "tool_execution_end") endedAt = Date.now();
    });
    await agent.prompt("Start it.");

    expect(changedAt).toBeGreaterThan(0);
    expect(changedAt).toBeLessThan(endedAt); // the list changed while the call ran
    expect(provider.requests).toHaveLength(2);
    expect(announcements(provider.requests[1]!).at(-1)).toEqual({ added: ["ev_get-roots-list"], removed: [] });
    expect(provider.requests[1]!.messages.slice(-2).map((m) => m.role)).toEqual(["toolResult", "system"]);
    expect(agent.state.errorMessage).toBeUndefined();
  });
});
