/**
 * MCP tool results as rxagent tool results (SPEC MCP3): what the model reads in `content`, what
 * the app keeps in `details`, and `isError`. Pure mapping, no server.
 */
import { describe, expect, it } from "vitest";
import { mcpToolResult } from "../../src/mcp/index.js";
import { NO_ERROR_TEXT } from "../../src/mcp/tool-result.js";
import { callFailureText } from "../../src/mcp/call-failure.js";

const PNG = "iVBORw0KGgo=";

describe("mcpToolResult (SPEC MCP3)", () => {
  it("MCP3 · text and images reach the model as they are", () => {
    const result = mcpToolResult({ content: [{ type: "text", text: "Here:" }, { type: "image", data: PNG, mimeType: "image/png" }] });
    expect(result).toEqual({ content: [{ type: "text", text: "Here:" }, { type: "image", data: PNG, mimeType: "image/png" }], details: {} });
    expect(result.isError).toBeUndefined();
  });

  it("MCP3 · structuredContent is kept in details, and sent as JSON text when the result has no text of its own", () => {
    const alone = mcpToolResult({ content: [], structuredContent: { temperature: 21, conditions: "sunny" } });
    expect(alone.content).toEqual([{ type: "text", text: '{"temperature":21,"conditions":"sunny"}' }]);
    expect(alone.details?.structuredContent).toEqual({ temperature: 21, conditions: "sunny" });
    // Beside an image only: the JSON is the only text.
    expect(mcpToolResult({ content: [{ type: "image", data: PNG, mimeType: "image/png" }], structuredContent: { n: 1 } }).content.at(-1)).toEqual({ type: "text", text: '{"n":1}' });
    // The server's own text (here the file's content, which the structured value repeats) is what the model reads.
    const text = mcpToolResult({ content: [{ type: "text", text: "hello\n" }], structuredContent: { content: "hello\n" } });
    expect(text.content).toEqual([{ type: "text", text: "hello\n" }]);
    expect(text.details?.structuredContent).toEqual({ content: "hello\n" });
  });

  it("MCP3 · structuredContent modes: always adds the JSON unless a text block holds the same JSON; never keeps it in details only", () => {
    const plain = mcpToolResult({ content: [{ type: "text", text: "21 degrees" }], structuredContent: { temperature: 21 } }, { structuredContent: "always" });
    expect(plain.content.map((block) => block.type === "text" && block.text)).toEqual(["21 degrees", '{"temperature":21}']);
    // The MCP convention: the same JSON already in a text block (in any key order) is not sent twice.
    const same = mcpToolResult({ content: [{ type: "text", text: '{ "conditions": "sunny", "temperature": 21 }' }], structuredContent: { temperature: 21, conditions: "sunny" } }, { structuredContent: "always" });
    expect(same.content).toHaveLength(1);
    const never = mcpToolResult({ content: [], structuredContent: { n: 1 } }, { structuredContent: "never" });
    expect(never.content).toEqual([]);
    expect(never.details?.structuredContent).toEqual({ n: 1 });
  });

  it("MCP3 · a resource link becomes a line naming it; its metadata is in details.resources", () => {
    const result = mcpToolResult({
      content: [{ type: "resource_link", uri: "demo://resource/1", name: "Resource 1", mimeType: "text/plain", description: "a plaintext resource" }],
    });
    expect(result.content).toEqual([{ type: "text", text: "Resource link: Resource 1 <demo://resource/1> (text/plain) — a plaintext resource" }]);
    expect(result.details?.resources).toEqual([{ kind: "link", uri: "demo://resource/1", name: "Resource 1", mimeType: "text/plain", description: "a plaintext resource" }]);
  });

  it("MCP3 · an embedded text resource is its text, an embedded image an image, other binary a line and an attachment", () => {
    const result = mcpToolResult({
      content: [
        { type: "resource", resource: { uri: "file:///notes.txt", mimeType: "text/plain", text: "hello" } },
        { type: "resource", resource: { uri: "file:///pic.png", mimeType: "image/png", blob: PNG } },
        { type: "resource", resource: { uri: "file:///a.gz", mimeType: "application/gzip", blob: "AAAA" } },
      ],
    });
    expect(result.content).toEqual([
      { type: "text", text: "Resource <file:///notes.txt> (text/plain):\nhello" },
      { type: "text", text: "Resource <file:///pic.png> (image/png):" },
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "text", text: "Resource <file:///a.gz> (application/gzip): 3 bytes of binary data, not shown." },
    ]);
    expect(result.details?.resources?.map((ref) => ref.uri)).toEqual(["file:///notes.txt", "file:///pic.png", "file:///a.gz"]);
    expect(result.details?.attachments).toEqual([{ type: "resource", uri: "file:///a.gz", mimeType: "application/gzip", data: "AAAA" }]);
  });

  it("MCP3 · audio is a line saying what was there (the payload is kept for the app)", () => {
    const result = mcpToolResult({ content: [{ type: "audio", data: "AAAAAA==", mimeType: "audio/wav" }] });
    expect(result.content).toEqual([{ type: "text", text: "Audio (audio/wav), 4 bytes, not shown: the model is sent text and images only." }]);
    expect(result.details?.attachments).toEqual([{ type: "audio", mimeType: "audio/wav", data: "AAAAAA==" }]);
  });

  it("MCP3 · isError is an error result; without any text the model still reads why", () => {
    const failed = mcpToolResult({ content: [{ type: "text", text: "No such city." }], isError: true });
    expect(failed).toMatchObject({ isError: true, content: [{ type: "text", text: "No such city." }] });
    expect(mcpToolResult({ content: [], isError: true }).content).toEqual([{ type: "text", text: NO_ERROR_TEXT }]);
    // Anything but `true` is not an error.
    expect(mcpToolResult({ content: [], isError: "yes" }).isError).toBeUndefined();
  });

  it("MCP3 · blocks of unknown or broken shape become lines saying so, never a crash", () => {
    const result = mcpToolResult({ content: [{ type: "video", url: "x" }, null, 7, { type: "image" }, { type: "resource" }] });
    expect(result.content).toEqual([
      { type: "text", text: 'Unsupported content block of type "video", not shown.' },
      { type: "text", text: "Unsupported content block (null), not shown." },
      { type: "text", text: "Unsupported content block (number), not shown." },
      { type: "text", text: "An image block without data or MIME type, not shown." },
      { type: "text", text: "An embedded resource without contents, not shown." },
    ]);
  });

  it("MCP3 · details name the server and tool, and keep the result's _meta", () => {
    const result = mcpToolResult({ content: [{ type: "text", text: "ok" }], _meta: { trace: "abc" } }, { server: "everything", tool: "echo" });
    expect(result.details).toEqual({ server: "everything", tool: "echo", meta: { trace: "abc" } });
  });
});

describe("callFailureText (SPEC MCP5)", () => {
  const context = { server: "everything", tool: "slow", timeoutMs: 500 };
  const mcpError = (code: number, message: string) => Object.assign(new Error(`MCP error ${code}: ${message}`), { code, name: "McpError" });

  it("MCP5 · each failure says what happened and what the model can do", () => {
    expect(callFailureText(mcpError(-32001, "Request timed out"), context)).toMatch(/^MCP server "everything" did not answer "slow" within 500 ms; the request was cancelled\./);
    expect(callFailureText(mcpError(-32001, "Maximum total timeout exceeded"), context)).toMatch(/within its maximum total time/);
    expect(callFailureText(mcpError(-32000, "Connection closed"), context)).toMatch(/^The connection to MCP server "everything" closed while "slow" was running .* until the app reconnects\.$/);
    expect(callFailureText(new Error("Not connected"), context)).toMatch(/is not connected .* so "slow" did not run/);
    expect(callFailureText(mcpError(-32602, "Structured content does not match the tool's output schema: data/t must be number"), context)).toMatch(/does not match the tool's own output schema: .*must be number/);
    expect(callFailureText(Object.assign(new Error("[{ expected: array }]"), { name: "ZodError", issues: [] }), context)).toMatch(/with something that is not a valid tool result/);
    expect(callFailureText(mcpError(-32601, "Method not found"), context)).toBe('MCP server "everything" refused "slow": MCP error -32601: Method not found');
    expect(callFailureText(new TypeError("fetch failed"), context)).toBe('Could not reach MCP server "everything" to run "slow": fetch failed');
    expect(callFailureText("odd", context)).toBe('Calling "slow" on MCP server "everything" failed: odd');
  });

  it("MCP5 · a connection the app closed during the call is said to be the app's doing, not the server's", () => {
    const closed = mcpError(-32000, "Connection closed");
    expect(callFailureText(closed, { ...context, closedByApp: true })).toBe('The app closed its connection to MCP server "everything" while "slow" was running; the call may or may not have taken effect. Its tools cannot be used until the app reconnects.');
    expect(callFailureText(closed, { ...context, closedByApp: false })).toMatch(/\(the server stopped or crashed\)/);
  });
});
