/**
 * The transcript as an AI SDK prompt (`LanguageModelV4Prompt`) and tool list.
 *
 * The same rules as the Chat Completions request (SPEC M5): the system messages are replayed
 * into one leading system message, failed or aborted assistant messages are left out with
 * their tool results, and a tool call left without a result gets an error result, since
 * providers reject unanswered calls. Provider metadata kept in the signature fields goes back
 * as `providerOptions` only to the model that wrote it.
 *
 * @internal
 * @module
 */
import type { AssistantMessage, ImageContent, Message, Model, TextContent, Tool, ToolCall, ToolResultMessage } from "../../model/messages.js";
import { getCurrentTools, getSystemPrompt } from "../../model/transcript.js";
import type {
  AiSdkFilePart,
  AiSdkFunctionTool,
  AiSdkMessage,
  AiSdkPrompt,
  AiSdkProviderMetadata,
  AiSdkReasoningPart,
  AiSdkTextPart,
  AiSdkToolCallPart,
  AiSdkToolResultOutput,
  AiSdkToolResultPart,
} from "./ai-sdk-types.js";
import { decodeProviderMetadata } from "./provider-metadata.js";

type AssistantPart = Extract<AiSdkMessage, { role: "assistant" }>["content"][number];

const NO_RESULT = "No result was provided for this tool call.";

/**
 * The transcript as an AI SDK prompt.
 *
 * | rxagent | AI SDK |
 * | --- | --- |
 * | system messages (replayed, SPEC M5) | one leading `system` message |
 * | user text / image | `text` / `file` part (base64 `data`, the image's `mimeType`) |
 * | assistant text / thinking / tool call | `text` / `reasoning` / `tool-call` part; thinking only to the model that wrote it |
 * | tool results | one `tool` message per batch; `text`, `error-text`, or `content` with images |
 *
 * @example
 * ```ts
 * const prompt = toAiSdkPrompt(model, context.messages);
 * ```
 */
export function toAiSdkPrompt(model: Pick<Model, "id" | "api" | "provider">, messages: readonly Message[]): AiSdkPrompt {
  const prompt: AiSdkPrompt = [];
  const system = getSystemPrompt(messages);
  if (system.length > 0) prompt.push({ role: "system", content: system });

  let open: ToolCall[] = [];
  let results = new Map<string, AiSdkToolResultPart>();
  const closeToolCalls = () => {
    if (open.length === 0) return;
    const content = open.map((call) => results.get(call.id) ?? { type: "tool-result" as const, toolCallId: call.id, toolName: call.name, output: { type: "error-text" as const, value: NO_RESULT } });
    prompt.push({ role: "tool", content });
    open = [];
    results = new Map();
  };

  for (const message of messages) {
    switch (message.role) {
      case "system":
        break;
      case "user":
        closeToolCalls();
        prompt.push({ role: "user", content: toUserParts(message.content) });
        break;
      case "assistant": {
        closeToolCalls();
        if (message.stopReason === "error" || message.stopReason === "aborted") break;
        const content = toAssistantParts(model, message);
        if (content.length === 0) break;
        prompt.push({ role: "assistant", content });
        open = message.content.filter((block): block is ToolCall => block.type === "toolCall");
        break;
      }
      case "toolResult":
        if (!open.some((call) => call.id === message.toolCallId) || results.has(message.toolCallId)) break;
        results.set(message.toolCallId, toToolResultPart(message));
        break;
    }
  }
  closeToolCalls();
  return prompt;
}

/**
 * The declared tools (SPEC M5) as AI SDK function tools, their JSON Schemas as they are.
 *
 * @example
 * ```ts
 * toAiSdkTools(context.messages); // [{ type: "function", name: "get_weather", description, inputSchema }]
 * ```
 */
export function toAiSdkTools(messages: readonly Message[]): AiSdkFunctionTool[] {
  return getCurrentTools(messages).map(toAiSdkTool);
}

/**
 * One tool declaration as an AI SDK function tool.
 *
 * @example
 * ```ts
 * toAiSdkTool({ name: "search", description: "Search the web", parameters: { type: "object" } });
 * // { type: "function", name: "search", description: "Search the web", inputSchema: { type: "object" } }
 * ```
 */
export function toAiSdkTool(tool: Tool): AiSdkFunctionTool {
  return { type: "function", name: tool.name, description: tool.description, inputSchema: tool.parameters as AiSdkFunctionTool["inputSchema"] };
}

function toUserParts(content: string | (TextContent | ImageContent)[]): (AiSdkTextPart | AiSdkFilePart)[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((block) => (block.type === "text" ? { type: "text", text: block.text } : imagePart(block)));
}

function imagePart(image: ImageContent): AiSdkFilePart {
  return { type: "file", mediaType: image.mimeType, data: { type: "data", data: image.data } };
}

function withOptions<T extends object>(part: T, providerOptions: AiSdkProviderMetadata | undefined): T {
  return providerOptions ? { ...part, providerOptions } : part;
}

function toAssistantParts(model: Pick<Model, "id" | "api" | "provider">, message: AssistantMessage): AssistantPart[] {
  // Signatures and reasoning are only valid for the model that produced them.
  const sameModel = message.api === model.api && message.provider === model.provider && message.model === model.id;
  const parts: AssistantPart[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case "text":
        if (block.text.length === 0) break;
        parts.push(withOptions<AiSdkTextPart>({ type: "text", text: block.text }, sameModel ? decodeProviderMetadata(block.textSignature) : undefined));
        break;
      case "thinking": {
        if (!sameModel) break;
        const providerOptions = decodeProviderMetadata(block.thinkingSignature);
        // Redacted or signature-only reasoning has no text but must still go back.
        if (block.thinking.length === 0 && !providerOptions) break;
        parts.push(withOptions<AiSdkReasoningPart>({ type: "reasoning", text: block.thinking }, providerOptions));
        break;
      }
      case "toolCall":
        parts.push(
          withOptions<AiSdkToolCallPart>(
            { type: "tool-call", toolCallId: block.id, toolName: block.name, input: block.arguments ?? {} },
            sameModel ? decodeProviderMetadata(block.thoughtSignature) : undefined,
          ),
        );
        break;
    }
  }
  return parts;
}

function toToolResultPart(result: ToolResultMessage): AiSdkToolResultPart {
  return { type: "tool-result", toolCallId: result.toolCallId, toolName: result.toolName, output: toToolResultOutput(result) };
}

/**
 * A tool result's output: its text (`error-text` for an error result), or `content` with the
 * images, the text of an error result then saying so first.
 *
 * @example
 * ```ts
 * toToolResultOutput({ content: [{ type: "text", text: "boom" }], isError: true }); // { type: "error-text", value: "boom" }
 * ```
 */
export function toToolResultOutput(result: Pick<ToolResultMessage, "content" | "isError">): AiSdkToolResultOutput {
  const text = result.content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n");
  const images = result.content.filter((block): block is ImageContent => block.type === "image");
  if (images.length === 0) {
    const value = text.trim().length > 0 ? text : "(no output)";
    return result.isError ? { type: "error-text", value } : { type: "text", value };
  }
  const value: Extract<AiSdkToolResultOutput, { type: "content" }>["value"] = [];
  if (text.trim().length > 0 || result.isError) value.push({ type: "text", text: result.isError ? `Error: ${text.trim() || "the tool failed"}` : text });
  for (const image of images) value.push({ type: "file", mediaType: image.mimeType, data: { type: "data", data: image.data } });
  return { type: "content", value };
}
