/**
 * An MCP `CallToolResult` as the result an rxagent tool returns: what the model reads in
 * `content` (text and images, the blocks a transcript carries), and what the app keeps in
 * `details`.
 *
 * @module
 */
import type { ImageContent, TextContent } from "../model/messages.js";
import type { AgentToolResult } from "../model/tool-types.js";

/** How `structuredContent` reaches the model; it is always in `details.structuredContent`. */
export type StructuredContentMode =
  /**
   * As JSON text when the result has no text of its own. A server that sent text chose what the
   * model reads (often the same data, as the MCP convention asks); sending the JSON too would
   * double it.
   */
  | "auto"
  /** As JSON text, unless a text block already holds the same JSON. */
  | "always"
  /** Never: `details` only. */
  | "never";

/** A resource a result named: a `resource_link`, or an embedded `resource` (its payload is in the content). */
export interface McpResourceRef {
  kind: "link" | "embedded";
  uri: string;
  name?: string;
  title?: string;
  mimeType?: string;
  description?: string;
}

/** A payload the model could not be sent (audio, binary resources other than images), kept for the app. */
export interface McpAttachment {
  type: "audio" | "resource";
  mimeType?: string;
  /** Base64, as the server sent it. */
  data: string;
  uri?: string;
}

/** The `details` of an MCP tool's result. */
export interface McpResultDetails {
  /** The server's name (as the connection knows it). */
  server?: string;
  /** The tool's name on the server (the model may know it by a prefixed one). */
  tool?: string;
  /** The result's `structuredContent`, as sent. */
  structuredContent?: unknown;
  /** Resource links and embedded resources, in the order of the content. */
  resources?: McpResourceRef[];
  /** Payloads left out of `content`. */
  attachments?: McpAttachment[];
  /** The result's `_meta`. */
  meta?: Record<string, unknown>;
  /** Set when the result broke `maxResultBytes`, `maxResultDepth` or `maxContentBlocks` and was not passed on: which, its size, depth or count (see `McpLimitExceeded`), and the limit. */
  limitExceeded?: { limit: "maxResultBytes" | "maxResultDepth" | "maxContentBlocks"; actual: number; max: number };
}

/** Options of {@link mcpToolResult}. */
export interface McpToolResultOptions {
  /** Default `"auto"`. */
  structuredContent?: StructuredContentMode | undefined;
  /** Put in `details.server`. */
  server?: string | undefined;
  /** Put in `details.tool`. */
  tool?: string | undefined;
}

/** What {@link mcpToolResult} reads: a `CallToolResult`, or anything a server sent in its place. */
export interface McpCallResultLike {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  _meta?: unknown;
  [key: string]: unknown;
}

/** The text of an error result whose server gave no reason. */
export const NO_ERROR_TEXT = "The tool reported an error without a message.";

type Block = Record<string, unknown>;
const isObject = (value: unknown): value is Block => value !== null && typeof value === "object" && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** Bytes held by a base64 string. */
function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

const text = (value: string): TextContent => ({ type: "text", text: value });
const mime = (value: string | undefined): string => (value ? ` (${value})` : "");

/** A JSON rendering with object keys sorted, to compare two values as JSON. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

function holdsJson(block: TextContent | ImageContent, expected: string): boolean {
  if (block.type !== "text") return false;
  try {
    return canonical(JSON.parse(block.text)) === expected;
  } catch {
    return false;
  }
}

/** Collects the model's content and the app's details from the result's blocks. */
class ResultBuilder {
  readonly content: (TextContent | ImageContent)[] = [];
  readonly resources: McpResourceRef[] = [];
  readonly attachments: McpAttachment[] = [];

  add(block: unknown): void {
    if (!isObject(block)) {
      this.content.push(text(`Unsupported content block (${block === null ? "null" : typeof block}), not shown.`));
      return;
    }
    switch (block.type) {
      case "text":
        this.content.push(text(str(block.text) ?? ""));
        return;
      case "image":
        if (typeof block.data === "string" && typeof block.mimeType === "string") this.content.push({ type: "image", data: block.data, mimeType: block.mimeType });
        else this.content.push(text("An image block without data or MIME type, not shown."));
        return;
      case "audio":
        this.audio(block);
        return;
      case "resource_link":
        this.link(block);
        return;
      case "resource":
        this.embedded(block.resource);
        return;
      default:
        this.content.push(text(`Unsupported content block of type ${JSON.stringify(block.type ?? null)}, not shown.`));
    }
  }

  private audio(block: Block): void {
    const data = str(block.data) ?? "";
    const mimeType = str(block.mimeType);
    this.content.push(text(`Audio${mime(mimeType)}, ${base64Bytes(data)} bytes, not shown: the model is sent text and images only.`));
    this.attachments.push({ type: "audio", data, ...(mimeType ? { mimeType } : {}) });
  }

  private link(block: Block): void {
    const uri = str(block.uri) ?? "";
    const ref: McpResourceRef = { kind: "link", uri };
    for (const key of ["name", "title", "mimeType", "description"] as const) if (typeof block[key] === "string") ref[key] = block[key] as string;
    this.resources.push(ref);
    const label = ref.title ?? ref.name;
    this.content.push(text(`Resource link: ${label ? `${label} ` : ""}<${uri}>${mime(ref.mimeType)}${ref.description ? ` — ${ref.description}` : ""}`));
  }

  private embedded(resource: unknown): void {
    if (!isObject(resource)) {
      this.content.push(text("An embedded resource without contents, not shown."));
      return;
    }
    const uri = str(resource.uri) ?? "";
    const mimeType = str(resource.mimeType);
    this.resources.push({ kind: "embedded", uri, ...(mimeType ? { mimeType } : {}) });
    if (typeof resource.text === "string") {
      this.content.push(text(`Resource <${uri}>${mime(mimeType)}:\n${resource.text}`));
    } else if (typeof resource.blob === "string") {
      if (mimeType?.startsWith("image/")) {
        this.content.push(text(`Resource <${uri}>${mime(mimeType)}:`), { type: "image", data: resource.blob, mimeType });
      } else {
        this.content.push(text(`Resource <${uri}>${mime(mimeType)}: ${base64Bytes(resource.blob)} bytes of binary data, not shown.`));
        this.attachments.push({ type: "resource", uri, data: resource.blob, ...(mimeType ? { mimeType } : {}) });
      }
    } else {
      this.content.push(text(`Resource <${uri}>${mime(mimeType)} without text or data.`));
    }
  }
}

/**
 * The rxagent result of an MCP tool call. Text and images go to the model as they are; a
 * resource link becomes a line naming it; an embedded text resource its text, an embedded image
 * an image; audio and other binary payloads a line saying what was there (the payload is kept in
 * `details.attachments`); an unknown block a line saying so. `structuredContent` is kept in
 * `details` and, by `structuredContent` mode, sent as JSON text (by default when the result has
 * no text of its own). `isError` makes it an error
 * result the model reads (with a stock text if the server gave none).
 *
 * @example
 * ```ts
 * mcpToolResult({ content: [], structuredContent: { temperature: 21 } });
 * // { content: [{ type: "text", text: '{"temperature":21}' }], details: { structuredContent: { temperature: 21 } } }
 * mcpToolResult({ content: [{ type: "text", text: "no such city" }], isError: true }).isError; // true
 * ```
 */
export function mcpToolResult(result: McpCallResultLike, options: McpToolResultOptions = {}): AgentToolResult<McpResultDetails> {
  const builder = new ResultBuilder();
  const blocks = Array.isArray(result.content) ? result.content : result.content === undefined ? [] : [result.content];
  for (const block of blocks) builder.add(block);
  const details: McpResultDetails = {};
  if (options.server !== undefined) details.server = options.server;
  if (options.tool !== undefined) details.tool = options.tool;
  const content = builder.content;
  if (result.structuredContent !== undefined) {
    details.structuredContent = result.structuredContent;
    const mode = options.structuredContent ?? "auto";
    const json = canonical(result.structuredContent);
    const hasText = content.some((block) => block.type === "text");
    if ((mode === "auto" && !hasText) || (mode === "always" && !content.some((block) => holdsJson(block, json)))) content.push(text(JSON.stringify(result.structuredContent)));
  }
  if (builder.resources.length > 0) details.resources = builder.resources;
  if (builder.attachments.length > 0) details.attachments = builder.attachments;
  if (isObject(result._meta)) details.meta = result._meta;
  const isError = result.isError === true;
  if (isError && !content.some((block) => block.type === "text" && block.text.trim() !== "")) content.unshift(text(NO_ERROR_TEXT));
  return isError ? { content, details, isError } : { content, details };
}
