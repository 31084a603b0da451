/**
 * An AG-UI conversation as an rxagent transcript: user, assistant and tool messages become
 * rxagent's; system, developer, reasoning and activity messages are left out (the server owns
 * the system prompt, and the others are the front end's own).
 *
 * @module
 */
import { emptyUsage } from "../model/assistant-message.js";
import type { AssistantMessage, ImageContent, Model, TextContent, ToolCall } from "../model/messages.js";
import { boundToolCalls } from "../model/tool-call-bounds.js";
import type { AgentMessage } from "../model/types.js";
import type { AgUiContentPart, AgUiMessage } from "./ag-ui-types.js";

/** Text and inline images; anything the server would have to fetch, or cannot send a model, is refused. */
function content(value: string | AgUiContentPart[], where: string): (TextContent | ImageContent)[] | string {
  if (typeof value === "string") return [{ type: "text", text: value }];
  const blocks: (TextContent | ImageContent)[] = [];
  for (const [i, part] of value.entries()) {
    if (part.type === "text") {
      blocks.push({ type: "text", text: part.text });
    } else if (part.type === "image" && part.source.type === "data" && typeof part.source.mimeType === "string" && part.source.mimeType.startsWith("image/")) {
      blocks.push({ type: "image", data: part.source.value, mimeType: part.source.mimeType });
    } else if (part.type === "image") {
      // A URL or file id would make the server fetch what the client names.
      return `${where}[${i}]: only inline images are accepted (source { type: "data", mimeType: "image/…" })`;
    } else {
      return `${where}[${i}]: ${part.type} parts are not supported`;
    }
  }
  return blocks;
}

function toolCall(call: { id: string; function: { name: string; arguments: string } }): ToolCall {
  let parsed: unknown;
  try {
    parsed = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments);
  } catch {
    parsed = undefined;
  }
  const ok = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
  return {
    type: "toolCall",
    id: call.id,
    name: call.function.name,
    arguments: ok ? (parsed as Record<string, unknown>) : {},
    ...(ok ? {} : { argumentsError: "The arguments the client sent are not a JSON object" }),
  };
}

/**
 * The transcript an AG-UI conversation stands for, or the sentence that says why it cannot be
 * one. Assistant messages are attributed to `model` (the one the server runs); a tool message
 * must answer a call an earlier assistant message made.
 *
 * @example
 * ```ts
 * const transcript = fromAgUiMessages(input.messages, agent.state.model, Date.now());
 * if (typeof transcript === "string") return badRequest(transcript);
 * ```
 * @param messages - `RunAgentInput.messages`, already checked.
 * @param model - The model the assistant messages are attributed to.
 * @param timestamp - The timestamp the messages get (AG-UI messages carry none).
 * @return The transcript, without system messages.
 */
export function fromAgUiMessages(messages: readonly AgUiMessage[], model: Pick<Model, "id" | "api" | "provider">, timestamp: number): AgentMessage[] | string {
  const transcript: AgentMessage[] = [];
  const callNames = new Map<string, string>();
  for (const [i, message] of messages.entries()) {
    const where = `messages[${i}]`;
    switch (message.role) {
      case "user": {
        if (typeof message.content === "string") {
          transcript.push({ role: "user", content: message.content, timestamp });
          break;
        }
        const blocks = content(message.content, `${where}.content`);
        if (typeof blocks === "string") return blocks;
        transcript.push({ role: "user", content: blocks, timestamp });
        break;
      }
      case "assistant": {
        const calls = (message.toolCalls ?? []).map(toolCall);
        for (const call of calls) callNames.set(call.id, call.name);
        const text: TextContent[] = message.content ? [{ type: "text", text: message.content }] : [];
        const answer: AssistantMessage = {
          role: "assistant",
          content: [...text, ...calls],
          api: model.api,
          provider: model.provider,
          model: model.id,
          usage: emptyUsage(),
          stopReason: calls.length > 0 ? "toolUse" : "stop",
          timestamp,
        };
        // A client's arguments are held to the bounds a model's are: nesting past them would
        // overflow the stack of every later clone, journal write and request.
        transcript.push(boundToolCalls(answer));
        break;
      }
      case "tool": {
        const toolName = callNames.get(message.toolCallId);
        if (toolName === undefined) return `${where} answers tool call "${message.toolCallId.slice(0, 100)}", which no earlier assistant message made`;
        const blocks = content(message.content, `${where}.content`);
        if (typeof blocks === "string") return blocks;
        const error = message.error;
        // An error with nothing else to read: the model reads the error.
        const empty = blocks.every((block) => block.type === "text" && block.text === "");
        const body = empty && error ? [{ type: "text" as const, text: error }] : blocks;
        transcript.push({ role: "toolResult", toolCallId: message.toolCallId, toolName, content: body, isError: error !== undefined, timestamp });
        break;
      }
      default:
        // System and developer messages would let a client rewrite the server's prompt; reasoning
        // and activity messages are the front end's record, not the model's input.
        break;
    }
  }
  return transcript;
}
