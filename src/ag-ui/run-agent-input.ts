/**
 * Checking a `RunAgentInput` by hand, field by field, with a sentence for the client that says
 * which field is wrong. No schema library: the checks are few, and a server entry should not
 * pull zod in for them.
 *
 * @module
 */
import type { AgUiMessage, AgUiResumeEntry, AgUiTool, RunAgentInput } from "./ag-ui-types.js";

/** The longest id (thread, run, message, tool call) accepted, in characters. */
const MAX_ID_LENGTH = 256;

type Check<T> = T | string;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function id(value: unknown, where: string): string | undefined {
  if (typeof value !== "string" || value === "") return `${where} must be a non-empty string`;
  if (value.length > MAX_ID_LENGTH) return `${where} is longer than ${MAX_ID_LENGTH} characters`;
  return undefined;
}

function parts(value: unknown, where: string): string | undefined {
  if (typeof value === "string") return undefined;
  if (!Array.isArray(value)) return `${where} must be a string or an array of parts`;
  for (const [i, part] of value.entries()) {
    if (!isRecord(part)) return `${where}[${i}] must be an object`;
    if (part.type === "text") {
      if (typeof part.text !== "string") return `${where}[${i}].text must be a string`;
    } else if (part.type === "image" || part.type === "audio" || part.type === "video" || part.type === "document") {
      const source = part.source;
      if (!isRecord(source) || typeof source.value !== "string" || !["data", "url", "file"].includes(source.type as string)) return `${where}[${i}].source must be { type: "data" | "url" | "file", value }`;
      if (source.type === "data" && typeof source.mimeType !== "string") return `${where}[${i}].source.mimeType must be a string`;
    } else {
      return `${where}[${i}].type must be text, image, audio, video or document`;
    }
  }
  return undefined;
}

function toolCalls(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return `${where} must be an array`;
  for (const [i, call] of value.entries()) {
    if (!isRecord(call)) return `${where}[${i}] must be an object`;
    const bad = id(call.id, `${where}[${i}].id`);
    if (bad) return bad;
    const fn = call.function;
    if (!isRecord(fn) || typeof fn.name !== "string" || typeof fn.arguments !== "string") return `${where}[${i}].function must be { name: string, arguments: string }`;
  }
  return undefined;
}

function message(value: unknown, where: string): string | undefined {
  if (!isRecord(value)) return `${where} must be an object`;
  const badId = id(value.id, `${where}.id`);
  if (badId) return badId;
  switch (value.role) {
    case "user":
      return parts(value.content, `${where}.content`);
    case "assistant":
      if (value.content !== undefined && value.content !== null && typeof value.content !== "string") return `${where}.content must be a string`;
      return toolCalls(value.toolCalls, `${where}.toolCalls`);
    case "tool": {
      const badCall = id(value.toolCallId, `${where}.toolCallId`);
      if (badCall) return badCall;
      if (value.error !== undefined && typeof value.error !== "string") return `${where}.error must be a string`;
      return parts(value.content, `${where}.content`);
    }
    case "system":
    case "developer":
    case "reasoning":
      return typeof value.content === "string" ? undefined : `${where}.content must be a string`;
    case "activity":
      return undefined;
    default:
      return `${where}.role must be user, assistant, tool, system, developer, reasoning or activity`;
  }
}

function list<T>(value: unknown, where: string, each: (item: unknown, where: string) => string | undefined): Check<T[]> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return `${where} must be an array`;
  for (const [i, item] of value.entries()) {
    const bad = each(item, `${where}[${i}]`);
    if (bad) return bad;
  }
  return value as T[];
}

function tool(value: unknown, where: string): string | undefined {
  return isRecord(value) && typeof value.name === "string" ? undefined : `${where} must be a tool with a name`;
}

function resumeEntry(value: unknown, where: string): string | undefined {
  if (!isRecord(value)) return `${where} must be an object`;
  const bad = id(value.interruptId, `${where}.interruptId`);
  if (bad) return bad;
  return value.status === "resolved" || value.status === "cancelled" ? undefined : `${where}.status must be "resolved" or "cancelled"`;
}

/**
 * The body as a `RunAgentInput`, or the sentence that says why it is not one. Checks the fields
 * the handler reads (ids, messages, resume entries) and the shape of `tools` and `context`;
 * `state` and `forwardedProps` are passed to the app as they are.
 *
 * @example
 * ```ts
 * const input = checkRunAgentInput(await request.text(), 500);
 * if (typeof input === "string") return new Response(JSON.stringify({ error: input }), { status: 400 });
 * ```
 * @param text - The request body.
 * @param maxMessages - The most messages accepted.
 * @return The input, or the reason it was refused.
 */
export function checkRunAgentInput(text: string, maxMessages: number): Check<RunAgentInput> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return "The body is not JSON";
  }
  if (!isRecord(body)) return "The body must be a RunAgentInput object";
  const badIds = id(body.threadId, "threadId") ?? id(body.runId, "runId") ?? (body.parentRunId === undefined ? undefined : id(body.parentRunId, "parentRunId"));
  if (badIds) return badIds;
  if (!Array.isArray(body.messages)) return "messages must be an array";
  if (body.messages.length > maxMessages) return `messages holds more than ${maxMessages} messages`;
  const messages = list<AgUiMessage>(body.messages, "messages", message);
  if (typeof messages === "string") return messages;
  const tools = list<AgUiTool>(body.tools, "tools", tool);
  if (typeof tools === "string") return tools;
  const context = list<RunAgentInput["context"][number]>(body.context, "context", (item, where) =>
    isRecord(item) && typeof item.description === "string" && typeof item.value === "string" ? undefined : `${where} must be { description: string, value: string }`,
  );
  if (typeof context === "string") return context;
  const resume = body.resume === undefined ? undefined : list<AgUiResumeEntry>(body.resume, "resume", resumeEntry);
  if (typeof resume === "string") return resume;
  if (body.protocolVersion !== undefined && typeof body.protocolVersion !== "string") return "protocolVersion must be a string";
  return { ...(body as unknown as RunAgentInput), messages, tools, context, ...(resume !== undefined ? { resume } : {}) };
}
