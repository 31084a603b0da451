/**
 * Message content in the shapes of the GenAI conventions' input and output messages JSON
 * schemas, for the opt-in content attributes (`captureContent`). Recorded as JSON strings:
 * OpenTelemetry span attributes hold only primitives and arrays of them.
 *
 * @internal
 * @module
 */
import type { AssistantMessage, ImageContent, TextContent, ThinkingContent, ToolCall } from "../model/messages.js";
import { finishReason } from "./attributes.js";
import type { AgentMessage } from "../model/types.js";
import type { AgentToolResult } from "../model/tool-types.js";

type Block = TextContent | ImageContent | ThinkingContent | ToolCall;
type Part = Record<string, unknown>;

/** A message as the conventions write it; app messages (no model role) have none. */
interface ConventionMessage {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

/** JSON, or a marker when a value cannot be written (a cycle, a BigInt): tracing never throws into a run. */
export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return '"[unserializable]"';
  }
}

// Image bytes are left out: a base64 image in every span would dwarf the trace.
function part(block: Block): Part {
  switch (block.type) {
    case "text":
      return { type: "text", content: block.text };
    case "thinking":
      return { type: "reasoning", content: block.thinking };
    case "toolCall":
      return { type: "tool_call", id: block.id, name: block.name, arguments: block.arguments };
    case "image":
      return { type: "image", mime_type: block.mimeType };
    default:
      return { type: (block as { type?: unknown }).type ?? "unknown" };
  }
}

function parts(content: string | readonly Block[] | undefined): Part[] {
  if (typeof content === "string") return [{ type: "text", content }];
  return Array.isArray(content) ? content.map(part) : [];
}

/** The text a tool result carries, images named by type: what `gen_ai.tool.call.result` holds. */
export function resultText(result: Pick<AgentToolResult, "content"> | undefined): string {
  const content = result?.content;
  if (!Array.isArray(content)) return "";
  return content.map((block) => (block.type === "text" ? block.text : `[${block.mimeType ?? block.type}]`)).join("\n");
}

function conventionMessage(message: AgentMessage): ConventionMessage | undefined {
  const m = message as { role?: string; content?: string | Block[]; sections?: Record<string, string | null> };
  switch (m.role) {
    case "system": {
      const sections = Object.values(m.sections ?? {}).filter((s): s is string => typeof s === "string");
      const text = [...parts(m.content), ...sections.map((content) => ({ type: "text", content }))].filter((p) => p.content !== "");
      // A system message that only declares tools (SPEC M5) has no instructions to show.
      return text.length > 0 ? { role: "system", parts: text } : undefined;
    }
    case "user":
      return { role: "user", parts: parts(m.content) };
    case "assistant":
      return { role: "assistant", parts: parts(m.content) };
    case "toolResult": {
      const result = message as { toolCallId: string; content: (TextContent | ImageContent)[] };
      return { role: "tool", parts: [{ type: "tool_call_response", id: result.toolCallId, response: resultText(result) }] };
    }
    default:
      // App messages reach the model only through a `convertToLlm` of the app's: not known here.
      return undefined;
  }
}

/** `gen_ai.input.messages`: the model messages of `messages`, in order, as JSON. */
export function inputMessagesJson(messages: readonly AgentMessage[]): string {
  const out: ConventionMessage[] = [];
  for (const message of messages) {
    const converted = conventionMessage(message);
    if (converted) out.push(converted);
  }
  return safeJson(out);
}

/** `gen_ai.output.messages`: the one answer, with its finish reason, as JSON. */
export function outputMessagesJson(message: AssistantMessage): string {
  return safeJson([{ role: "assistant", parts: parts(message.content), finish_reason: finishReason(message.stopReason) }]);
}
