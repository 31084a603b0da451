/**
 * An MCP tool definition as an rxagent tool (SPEC MCP1, MCP4): names, schemas in the validators'
 * dialect, the fallback to the server's own check (or, where code generation is refused, to the
 * Agent's validator), and when a call's signal is aborted. A
 * stand-in `callTool` here; the real servers are in the other files of this folder.
 */
import { firstValueFrom, isObservable, lastValueFrom, toArray, type Observable } from "rxjs";
import { describe, expect, it, vi } from "vitest";
import { Agent, interpretingValidator, type ToolResultMessage } from "../../src/index.js";
import { CANCEL_REASON, mcpAgentTool, SERVER_VALIDATED, type McpAgentTool, type McpToolCaller, type McpToolDefinition } from "../../src/mcp/mcp-tool.js";
import { MAX_TOOL_NAME_LENGTH, mcpToolName, uniqueToolNames } from "../../src/mcp/tool-name.js";
import { mcpToolParameters } from "../../src/mcp/tool-schema.js";
import { ajvValidator } from "../../src/tools/validators/ajv-validator.js";
import type { AgentToolResult } from "../../src/model/tool-types.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { until } from "./servers.js";

const def = (name: string, inputSchema: object, extra: Partial<McpToolDefinition> = {}): McpToolDefinition => ({ name, inputSchema: inputSchema as McpToolDefinition["inputSchema"], ...extra });

describe("tool names (SPEC MCP1)", () => {
  it("MCP1 · a prefix, characters model APIs accept, at most 64 characters, unique within a server", () => {
    expect(mcpToolName("get-sum")).toBe("get-sum");
    expect(mcpToolName("files.read/v2", "fs_")).toBe("fs_files_read_v2");
    expect(mcpToolName("")).toBe("tool");
    const long = mcpToolName("x".repeat(100));
    expect(long).toHaveLength(MAX_TOOL_NAME_LENGTH);
    // Two long names that share their first 64 characters stay apart.
    expect(mcpToolName(`${"x".repeat(100)}a`)).not.toBe(mcpToolName(`${"x".repeat(100)}b`));
    expect(uniqueToolNames(["a.b", "a_b", "a/b"], "s_")).toEqual(["s_a_b", "s_a_b_2", "s_a_b_3"]);
    for (const name of uniqueToolNames(["é", "名前", "a b"])) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });
});

describe("mcpToolParameters (SPEC MCP1)", () => {
  it("MCP1 · zod's draft-07 output loses its $schema line and is otherwise kept", () => {
    const input = { type: "object", properties: { message: { type: "string", description: "Message to echo" } }, required: ["message"], $schema: "http://json-schema.org/draft-07/schema#" };
    expect(mcpToolParameters(input)).toEqual({ type: "object", properties: { message: { type: "string", description: "Message to echo" } }, required: ["message"] });
  });

  it("MCP1 · draft 2020-12 keywords are rewritten to draft-07, so ajv and the interpreter both compile them", () => {
    const input = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false },
        card: { type: "object", properties: { number: { type: "string" }, cvc: { type: "string" } }, dependentRequired: { number: ["cvc"] } },
        tags: { type: "array", items: { type: "string" }, contains: { const: "x" }, minContains: 1 },
        rest: { type: "object", unevaluatedProperties: false, $defs: { id: { type: "integer", exclusiveMinimum: 0 } } },
      },
    };
    const out = mcpToolParameters(input);
    expect(out).toEqual({
      type: "object",
      properties: {
        point: { type: "array", items: [{ type: "number" }, { type: "number" }], additionalItems: false },
        card: { type: "object", properties: { number: { type: "string" }, cvc: { type: "string" } }, dependencies: { number: ["cvc"] } },
        tags: { type: "array", items: { type: "string" }, contains: { const: "x" } },
        rest: { type: "object", $defs: { id: { type: "integer", exclusiveMinimum: 0 } } },
      },
    });
    for (const validator of [ajvValidator, interpretingValidator]) {
      // As given, the schema does not compile: ajv does not know the 2020-12 meta-schema, the interpreter refuses prefixItems.
      expect(() => validator.compile(structuredClone(input), "t")).toThrow();
      const check = validator.compile(out, "t");
      expect(check({ point: [1, 2] })).toBeUndefined();
      expect(check({ point: [1, 2, 3] })).toBeDefined();
      expect(check({ card: { number: "4242" } })).toBeDefined();
    }
    // The server's object is not touched.
    expect(input.properties.point.prefixItems).toHaveLength(2);
  });

  it("MCP1 · draft-04 boolean exclusiveMinimum, nullable without a type, and no type at all", () => {
    expect(mcpToolParameters({ type: "object", properties: { n: { type: "number", minimum: 0, exclusiveMinimum: true }, m: { type: "number", maximum: 9, exclusiveMaximum: false }, o: { nullable: true } } })).toEqual({
      type: "object",
      properties: { n: { type: "number", exclusiveMinimum: 0 }, m: { type: "number", maximum: 9 }, o: {} },
    });
    expect(mcpToolParameters({})).toEqual({ type: "object", properties: {} });
    expect(mcpToolParameters(undefined)).toEqual({ type: "object", properties: {} });
    // A property named like a keyword is a property, not a keyword.
    expect(mcpToolParameters({ type: "object", properties: { $schema: { type: "string" }, prefixItems: { type: "string" } } })).toEqual({ type: "object", properties: { $schema: { type: "string" }, prefixItems: { type: "string" } } });
  });
});

/** A stand-in for the SDK client whose calls the test settles by hand. */
function caller() {
  const calls: { params: { name: string; arguments?: Record<string, unknown> }; signal: AbortSignal; onprogress?: (p: { progress: number; total?: number; message?: string }) => void; resolve(value: unknown): void; reject(error: unknown): void }[] = [];
  const client = {
    callTool: (params: { name: string; arguments?: Record<string, unknown> }, _schema: unknown, options: { signal: AbortSignal; onprogress?: (p: { progress: number; total?: number }) => void }) =>
      new Promise((resolve, reject) => calls.push({ params, signal: options.signal, onprogress: options.onprogress, resolve, reject })),
  } as unknown as McpToolCaller;
  return { client, calls };
}

const run = (tool: ReturnType<typeof mcpAgentTool>, args: Record<string, unknown>, signal = new AbortController().signal) => {
  const returned = tool.execute("call-1", args, signal, () => {});
  if (!isObservable(returned)) throw new Error("expected an Observable");
  return returned as Observable<AgentToolResult>;
};

describe("mcpAgentTool (SPEC MCP1, MCP4)", () => {
  it("MCP1 · name, label, description and parameters come from the definition; the server's name is used for the call", async () => {
    const { client, calls } = caller();
    const tool = mcpAgentTool(client, def("files.read", { type: "object", properties: { path: { type: "string" } } }, { title: "Read a file", description: "Reads a file." }), { prefix: "fs_", server: "files" });
    expect(tool).toMatchObject({ name: "fs_files_read", label: "Read a file", description: "Reads a file.", parameters: { type: "object", properties: { path: { type: "string" } } } });
    expect(tool.mcp).toMatchObject({ server: "files", name: "files.read", checkedBy: "rxagent" });
    expect(tool.validator).toBeUndefined();
    const result = firstValueFrom(run(tool, { path: "a" }));
    expect(calls[0]!.params).toEqual({ name: "files.read", arguments: { path: "a" } });
    calls[0]!.resolve({ content: [{ type: "text", text: "A" }] });
    expect(await result).toEqual({ content: [{ type: "text", text: "A" }], details: { server: "files", tool: "files.read" } });
  });

  it("MCP1 · a schema the validator cannot compile leaves the check to the server, so prompt() still starts", async () => {
    const { client, calls } = caller();
    const remote = def("lookup", { type: "object", properties: { id: { $ref: "https://example.com/schemas/id.json" } } });
    const tool = mcpAgentTool(client, remote, { server: "s" });
    expect(tool.mcp.checkedBy).toBe("server");
    expect(tool.mcp.schemaError).toMatch(/"https:\/\/example\.com\/schemas\/id\.json" at #\/properties\/id is not supported/);
    expect(tool.validator).toBe(SERVER_VALIDATED);
    // The same schema as a tool of its own makes prompt() reject (SPEC T1); the MCP tool does not.
    const provider = fauxProvider([{ content: [fauxToolCall("lookup", { id: 7 })] }, { content: "ok" }]);
    await expect(new Agent({ streamFn: provider, initialState: { model: provider.model, tools: [{ ...tool, validator: undefined }] } }).prompt("go")).rejects.toThrow(/invalid parameters schema/);
    const agent = new Agent({ streamFn: provider, initialState: { model: provider.model, tools: [tool] } });
    const prompted = agent.prompt("go");
    await Promise.resolve();
    expect(calls[0]!.params.arguments).toEqual({ id: 7 });
    calls[0]!.resolve({ content: [{ type: "text", text: "found" }] });
    await prompted;
    expect(agent.state.errorMessage).toBeUndefined();
  });

  it("MCP1 · where code generation is refused (a strict CSP), ajvValidator decides nothing: the tool has no validator of its own and the Agent's checks the arguments; the default validator needs no code generation", async () => {
    const { client, calls } = caller();
    // A fresh module graph: the ajv instance this test leaves behind (it never worked) is its own.
    vi.resetModules();
    const fresh = await import("../../src/mcp/mcp-tool.js");
    const { ajvValidator: freshAjv } = await import("../../src/tools/validators/ajv-validator.js");
    const refuse = function (): never {
      throw new EvalError("Refused to evaluate a string as JavaScript because 'unsafe-eval' is not an allowed source of script");
    };
    const trap = vi.spyOn(globalThis, "Function").mockImplementation(refuse as never);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {}); // ajv logs the code it could not compile
    let tool: McpAgentTool;
    try {
      const schema = { type: "object", properties: { n: { type: "number", minimum: 17 } }, required: ["n"] };
      tool = fresh.mcpAgentTool(client, def("count", schema), { server: "s", validator: freshAjv });
      // The default compiles without generating code: it checks the tool itself, trap or not.
      expect(fresh.mcpAgentTool(client, def("count", schema), { server: "s" }).mcp.checkedBy).toBe("rxagent");
    } finally {
      trap.mockRestore();
      logged.mockRestore();
    }
    expect(tool.mcp.checkedBy).toBe("agent");
    expect(tool.mcp.schemaError).toMatch(/unsafe-eval/);
    expect(tool.validator).toBeUndefined();
    // The Agent's interpreting validator decides: arguments it refuses never reach the server, the others are coerced.
    const provider = fauxProvider([{ content: [fauxToolCall("count", { n: 3 }, "low"), fauxToolCall("count", { n: "20" }, "good")] }, { content: "ok" }]);
    const agent = new Agent({ streamFn: provider, validator: interpretingValidator, initialState: { model: provider.model, tools: [tool] } });
    const prompted = agent.prompt("go");
    await until(() => calls.length === 1, "the valid call to reach the server");
    expect(calls[0]!.params.arguments).toEqual({ n: 20 });
    calls[0]!.resolve({ content: [{ type: "text", text: "counted" }] });
    await prompted;
    const results = agent.state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
    expect(results.map((m) => [m.toolCallId, m.isError])).toEqual([
      ["low", true],
      ["good", false],
    ]);
    expect(calls).toHaveLength(1);
    expect(agent.state.errorMessage).toBeUndefined();
  });

  it("MCP4 · unsubscribing before the answer aborts the request's signal, with a reason; never after the answer", async () => {
    const { client, calls } = caller();
    const tool = mcpAgentTool(client, def("slow", { type: "object" }), { server: "s" });
    const first = run(tool, {}).subscribe();
    first.unsubscribe();
    expect(calls[0]!.signal.aborted).toBe(true);
    expect(calls[0]!.signal.reason).toBe(CANCEL_REASON);

    const values: AgentToolResult[] = [];
    const second = run(tool, {}).subscribe((value) => values.push(value));
    calls[1]!.resolve({ content: [{ type: "text", text: "done" }] });
    await Promise.resolve();
    await Promise.resolve();
    expect(values).toHaveLength(1);
    second.unsubscribe();
    // The SDK keeps listening to the signal after the request settled: aborting now would send a cancellation for a finished request.
    expect(calls[1]!.signal.aborted).toBe(false);
  });

  it("MCP3 · progress notifications are emitted as they come, the result last; a signal aborted before the call sends nothing", async () => {
    const { client, calls } = caller();
    const tool = mcpAgentTool(client, def("slow", { type: "object" }), { server: "s" });
    const all = lastValueFrom(run(tool, {}).pipe(toArray()));
    calls[0]!.onprogress!({ progress: 1, total: 4, message: "one of four" });
    calls[0]!.onprogress!({ progress: 2 });
    calls[0]!.resolve({ content: [{ type: "text", text: "done" }] });
    expect(await all).toEqual([
      { content: [{ type: "text", text: "one of four" }], details: { server: "s", tool: "slow", progress: 0.25, mcpProgress: { progress: 1, total: 4, message: "one of four" } } },
      { content: [{ type: "text", text: "2" }], details: { server: "s", tool: "slow", mcpProgress: { progress: 2 } } },
      { content: [{ type: "text", text: "done" }], details: { server: "s", tool: "slow" } },
    ]);
    const before = new AbortController();
    before.abort();
    expect(await firstValueFrom(run(tool, {}, before.signal))).toEqual({ content: [{ type: "text", text: "Operation aborted" }], details: {}, isError: true });
    expect(calls).toHaveLength(1);
  });

  it("MCP5 · a rejected call is an error result naming server and tool, not an error of the Observable", async () => {
    const { client, calls } = caller();
    const tool = mcpAgentTool(client, def("slow", { type: "object" }), { server: "s", timeoutMs: 250 });
    const result = firstValueFrom(run(tool, {}));
    calls[0]!.reject(Object.assign(new Error("MCP error -32001: Request timed out"), { code: -32001 }));
    expect(await result).toEqual({ content: [{ type: "text", text: expect.stringMatching(/^MCP server "s" did not answer "slow" within 250 ms/) }], details: { server: "s", tool: "slow" }, isError: true });
  });
});

describe("a failed call's text (SPEC MCP5)", () => {
  it("MCP5 · credentials the server echoes into its error are redacted before the text is cut, and the cut never splits a word", async () => {
    const { client, calls } = caller();
    const key = `sk-${"a1B2".repeat(10)}`;
    const tool = mcpAgentTool(client, def("echo", { type: "object" }), { server: "remote", secrets: ["my-header-secret"] });
    const result = firstValueFrom(run(tool, {}));
    // Padding puts the key across the 600th character, where a plain slice would keep its prefix.
    const padding = "x ".repeat(280);
    calls[0]!.reject(Object.assign(new Error(`Error POSTing to endpoint: ${padding}Authorization: Bearer abc.def-123 key ${key} header my-header-secret`), { code: -32603 }));
    const text = ((await result).content[0] as { text: string }).text;
    expect((await result).isError).toBe(true);
    expect(text).toContain("[redacted]");
    expect(text).not.toContain("abc.def");
    expect(text).not.toContain("sk-a1B2");
    expect(text).not.toContain("my-header");
    expect(text).not.toMatch(/\[redact…|\[redacted\w/);
  });
});
