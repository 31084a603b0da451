/**
 * `@modelcontextprotocol/server-filesystem` over stdio on a temporary folder (SPEC MCP1, MCP3,
 * MCP5): its tools under a prefix, an Agent writing, listing and reading in parallel, and the
 * server's refusal of a path outside the folder as an error result the model reads.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, interpretingValidator, type ToolResultMessage } from "../../src/index.js";
import { connectMcpStdio, type McpConnection } from "../../src/mcp/stdio.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { ajvValidator } from "../../src/tools/validators/ajv-validator.js";
import { FILESYSTEM } from "./servers.js";

let folder: string;
let connection: McpConnection;

beforeAll(async () => {
  folder = realpathSync(mkdtempSync(join(tmpdir(), "rxagent-mcp-fs-")));
  writeFileSync(join(folder, "notes.txt"), "first line\nsecond line\n");
  connection = await connectMcpStdio({ command: process.execPath, args: [FILESYSTEM, folder], stderr: "pipe", prefix: "fs_" });
});

afterAll(async () => {
  await connection?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const textOf = (message: ToolResultMessage | undefined) => (message?.content ?? []).map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");

describe("server-filesystem over stdio", () => {
  it("MCP1 · its tools under the prefix; every schema compiles with ajv and the interpreter", async () => {
    const tools = await connection.listTools();
    expect(connection.name).toBe("secure-filesystem-server");
    const names = tools.map((tool) => tool.name);
    for (const name of ["fs_read_text_file", "fs_write_file", "fs_list_directory", "fs_get_file_info"]) expect(names).toContain(name);
    for (const tool of tools) {
      expect(tool.mcp.name).toBe(tool.name.slice(3));
      expect(() => ajvValidator.compile(tool.parameters, tool.name)).not.toThrow();
      expect(() => interpretingValidator.compile(tool.parameters, tool.name)).not.toThrow();
    }
  });

  it("MCP3 · an Agent writes, lists and reads in parallel, then reads what it wrote; a path outside the folder is the server's error result", async () => {
    const written = join(folder, "hello.md");
    const provider = fauxProvider([
      {
        content: [
          fauxToolCall("fs_write_file", { path: written, content: "# Hello\nfrom the agent\n" }, "write"),
          fauxToolCall("fs_read_text_file", { path: join(folder, "notes.txt"), head: "1" }, "head"), // "1": a numeric string, coerced
          fauxToolCall("fs_list_directory", { path: folder }, "list"),
          fauxToolCall("fs_read_text_file", { path: "/etc/passwd" }, "outside"),
        ],
      },
      { content: [fauxToolCall("fs_read_text_file", { path: written }, "reread")] },
      { content: "Done." },
    ]);
    const agent = new Agent({ streamFn: provider, initialState: { model: provider.model, tools: await connection.listTools() } });
    await agent.prompt("Work in the folder.");

    const results = new Map(agent.state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult").map((m) => [m.toolCallId, m]));
    expect(results.get("write")).toMatchObject({ isError: false });
    expect(readFileSync(written, "utf8")).toBe("# Hello\nfrom the agent\n");
    expect(textOf(results.get("head"))).toBe("first line");
    expect(results.get("head")!.details.structuredContent).toEqual({ content: "first line" });
    expect(textOf(results.get("list")).split("\n")).toEqual(expect.arrayContaining(["[FILE] notes.txt"]));
    expect(results.get("outside")).toMatchObject({ isError: true });
    expect(textOf(results.get("outside"))).toMatch(/Access denied - path outside allowed directories/);
    expect(textOf(results.get("reread"))).toBe("# Hello\nfrom the agent\n");
    expect(agent.state.errorMessage).toBeUndefined();
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
  });
});
