/**
 * The Chat Completions request body for a transcript (the wire format OpenAI, OpenRouter, Groq,
 * Together, DeepSeek, vLLM, llama.cpp, Ollama, LM Studio and others accept).
 *
 * The transcript's system messages are replayed into one leading system message (SPEC M5):
 * content appended, sections replaced or deleted, tools added or removed. Most compatible
 * servers accept a system message only at the start, so later system messages are folded into
 * it rather than sent in place.
 *
 * @module
 */
import type {
  AssistantMessage,
  ImageContent,
  Message,
  Model,
  StreamOptions,
  TextContent,
  ThinkingLevel,
  Tool,
  ToolCall,
  ToolResultMessage,
} from "../../model/messages.js";
import { getCurrentTools, getSystemPrompt } from "../../model/transcript.js";

/** A content part of a user message. */
export type ChatContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

/** A tool call as the assistant sends it. */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** One message of a Chat Completions request. */
export type ChatMessage =
  | { role: "system" | "developer"; content: string }
  | { role: "user"; content: string | ChatContentPart[] }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: ChatToolCall[] | undefined;
      reasoning_content?: string | undefined;
      reasoning?: string | undefined;
    }
  | { role: "tool"; tool_call_id: string; content: string };

/** A declared function tool. */
export interface ChatTool {
  type: "function";
  function: { name: string; description: string; parameters: object };
}

/** The request body (only the fields rxagent sets; `extraBody` adds others). */
export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  stream: true;
  stream_options?: { include_usage: boolean } | undefined;
  tools?: ChatTool[] | undefined;
  max_tokens?: number | undefined;
  max_completion_tokens?: number | undefined;
  temperature?: number | undefined;
  reasoning_effort?: string | undefined;
  [field: string]: unknown;
}

/** How the request is shaped; every field has a default that suits OpenAI. */
export interface ChatRequestSettings {
  /** The model id sent; defaults to `model.id`. */
  modelId?: string | undefined;
  /** Role of the system prompt: `developer` for OpenAI reasoning models. Default `system`. */
  systemRole?: "system" | "developer" | undefined;
  /**
   * Which field carries `maxTokens`. Default: `max_completion_tokens` for api.openai.com,
   * `max_tokens` elsewhere (most compatible servers only know that one).
   */
  maxTokensField?: "max_tokens" | "max_completion_tokens" | undefined;
  /** Ask for usage in the final chunk (`stream_options.include_usage`). Default `true`. */
  includeUsage?: boolean | undefined;
  /**
   * Request fields for a reasoning level. Default: `{ reasoning_effort }` (`xhigh` and `max`
   * sent as `high`) unless `model.reasoning === false`.
   */
  reasoningParams?: ((level: Exclude<ThinkingLevel, "off">, model: Model) => Record<string, unknown> | undefined) | undefined;
  /** Extra fields merged into every request body (provider-specific parameters). */
  extraBody?: Record<string, unknown> | undefined;
  /** The base URL, used to pick the `maxTokensField` default. */
  baseUrl?: string | undefined;
}

/** The reasoning fields assistant messages may carry back to the server (DeepSeek, llama.cpp). */
const REASONING_FIELDS = new Set(["reasoning_content", "reasoning"]);

/**
 * Builds the streaming request body for `messages`.
 *
 * @example
 * ```ts
 * const body = buildChatCompletionRequest(model, context.messages, { reasoning: "low" });
 * await fetch(`${baseUrl}/chat/completions`, { method: "POST", body: JSON.stringify(body) });
 * ```
 */
export function buildChatCompletionRequest(
  model: Model,
  messages: readonly Message[],
  options: Pick<StreamOptions, "maxTokens" | "temperature" | "reasoning">,
  settings: ChatRequestSettings = {},
): ChatCompletionRequest {
  const body: ChatCompletionRequest = {
    model: settings.modelId ?? model.id,
    messages: toChatMessages(model, messages, settings.systemRole ?? "system"),
    stream: true,
  };
  if (settings.includeUsage !== false) body.stream_options = { include_usage: true };
  const tools = getCurrentTools(messages);
  if (tools.length > 0) body.tools = tools.map(toChatTool);
  if (options.maxTokens !== undefined) {
    const field = settings.maxTokensField ?? (settings.baseUrl?.includes("api.openai.com") ? "max_completion_tokens" : "max_tokens");
    body[field] = options.maxTokens;
  }
  if (options.temperature !== undefined) body.temperature = options.temperature;
  if (options.reasoning !== undefined) {
    const params = (settings.reasoningParams ?? defaultReasoningParams)(options.reasoning, model);
    if (params) Object.assign(body, params);
  }
  if (settings.extraBody) Object.assign(body, settings.extraBody);
  return body;
}

/** `reasoning_effort` as OpenAI names the levels, unless the model says it cannot reason. */
export function defaultReasoningParams(level: Exclude<ThinkingLevel, "off">, model: Model): Record<string, unknown> | undefined {
  if (model.reasoning === false) return undefined;
  return { reasoning_effort: level === "xhigh" || level === "max" ? "high" : level };
}

/** A transcript tool as a Chat Completions function declaration. */
export function toChatTool(tool: Tool): ChatTool {
  return { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

/**
 * The transcript as Chat Completions messages: one leading system message (the replayed
 * prompt), user text and images, assistant text and `tool_calls`, tool results as `tool`
 * messages. Failed or aborted assistant messages are left out with their tool results (they
 * are incomplete turns), and a tool call left without a result gets an error result, since
 * the API rejects unanswered calls.
 */
export function toChatMessages(model: Model, messages: readonly Message[], systemRole: "system" | "developer" = "system"): ChatMessage[] {
  const out: ChatMessage[] = [];
  const prompt = getSystemPrompt(messages);
  if (prompt.length > 0) out.push({ role: systemRole, content: prompt });

  let open: ToolCall[] = [];
  let answered = new Set<string>();
  let pendingImages: ChatContentPart[] = [];
  const closeToolCalls = () => {
    for (const call of open) {
      if (!answered.has(call.id)) out.push({ role: "tool", tool_call_id: call.id, content: "Error: no result was provided for this tool call." });
    }
    open = [];
    answered = new Set();
    if (pendingImages.length > 0) {
      out.push({ role: "user", content: [{ type: "text", text: "Images returned by the tools above:" }, ...pendingImages] });
      pendingImages = [];
    }
  };

  for (const message of messages) {
    switch (message.role) {
      case "system":
        break;
      case "user":
        closeToolCalls();
        out.push(toChatUser(message.content));
        break;
      case "assistant": {
        closeToolCalls();
        if (message.stopReason === "error" || message.stopReason === "aborted") break;
        const chat = toChatAssistant(model, message);
        if (!chat) break;
        out.push(chat);
        open = message.content.filter((block): block is ToolCall => block.type === "toolCall");
        break;
      }
      case "toolResult": {
        if (!open.some((call) => call.id === message.toolCallId) || answered.has(message.toolCallId)) break;
        answered.add(message.toolCallId);
        out.push({ role: "tool", tool_call_id: message.toolCallId, content: toolResultText(message) });
        for (const block of message.content) if (block.type === "image") pendingImages.push(imagePart(block));
        break;
      }
    }
  }
  closeToolCalls();
  return out;
}

function toChatUser(content: string | (TextContent | ImageContent)[]): ChatMessage {
  if (typeof content === "string") return { role: "user", content };
  const parts: ChatContentPart[] = content.map((block) => (block.type === "text" ? { type: "text", text: block.text } : imagePart(block)));
  return { role: "user", content: parts };
}

function imagePart(image: ImageContent): ChatContentPart {
  return { type: "image_url", image_url: { url: `data:${image.mimeType};base64,${image.data}` } };
}

function toChatAssistant(model: Model, message: AssistantMessage): ChatMessage | undefined {
  let text = "";
  const toolCalls: ChatToolCall[] = [];
  const reasoning = new Map<string, string>();
  const sameModel = message.provider === model.provider && message.model === model.id;
  for (const block of message.content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "toolCall") {
      toolCalls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.arguments ?? {}) } });
    } else if (sameModel && block.thinkingSignature && REASONING_FIELDS.has(block.thinkingSignature) && block.thinking.trim()) {
      const field = block.thinkingSignature;
      reasoning.set(field, reasoning.has(field) ? `${reasoning.get(field)}\n${block.thinking}` : block.thinking);
    }
  }
  if (text.length === 0 && toolCalls.length === 0) return undefined;
  const chat: ChatMessage & { role: "assistant" } = { role: "assistant", content: text.length > 0 ? text : null };
  if (toolCalls.length > 0) chat.tool_calls = toolCalls;
  for (const [field, value] of reasoning) chat[field as "reasoning_content" | "reasoning"] = value;
  return chat;
}

/**
 * A tool result's text. Error results say so first, so the model knows the call failed;
 * images travel in a user message after the results (tool messages carry text only).
 */
function toolResultText(result: ToolResultMessage): string {
  const text = result.content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n");
  const hasImages = result.content.some((block) => block.type === "image");
  const body = text.trim().length > 0 ? text : hasImages ? "(see the attached image)" : "(no output)";
  return result.isError ? `Error: ${body}` : body;
}
