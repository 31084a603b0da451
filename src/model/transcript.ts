/**
 * The transcript owns the system prompt and the tool declarations (SPEC M5): a leading system
 * message is the prompt; later system messages append `content`, replace or delete named
 * `sections`, and add or remove tools. These helpers replay that history.
 *
 * @module
 */
import { canonicalJson } from "./canonical-json.js";
import type { SystemMessage, TextContent, Tool, ToolReference } from "./messages.js";
import type { AgentMessage } from "./types.js";

/** Whether a transcript entry is a system message. */
export function isSystem(message: AgentMessage): message is SystemMessage {
  return (message as { role?: string }).role === "system";
}

/** The text of a `string | TextContent[]` content field. */
export function textOf(content: string | readonly { type: string; text?: string }[]): string {
  if (typeof content === "string") return content;
  let text = "";
  for (const block of content) if (block.type === "text") text += (text ? "\n" : "") + (block as TextContent).text;
  return text;
}

/**
 * The leading system message for a prompt and tool set, or `undefined` when both are empty
 * (an empty transcript stays empty).
 */
export function createInitialSystemMessage(systemPrompt: string | undefined, tools: readonly Tool[] = []): SystemMessage | undefined {
  if (!systemPrompt && tools.length === 0) return undefined;
  const message: SystemMessage = { role: "system", content: systemPrompt ?? "", timestamp: 0 };
  if (tools.length > 0) message.toolsAdded = tools.map(toToolDeclaration);
  return message;
}

/** A tool as the model sees it: name, description and a plain-JSON copy of its schema. */
export function toToolDeclaration(tool: Tool): Tool {
  return { name: tool.name, description: tool.description, parameters: JSON.parse(JSON.stringify(tool.parameters ?? {})) };
}

/** The declared tools after replaying every system message, in declaration order. */
export function getCurrentTools(messages: readonly AgentMessage[]): Tool[] {
  const tools = new Map<string, Tool>();
  for (const message of messages) if (isSystem(message)) applyToolDelta(tools, message);
  return [...tools.values()];
}

/** Applies a system message's tool additions and removals to `tools`, by name. */
export function applyToolDelta(tools: Map<string, Tool>, message: SystemMessage): void {
  for (const removed of message.toolsRemoved ?? []) tools.delete(removed.name);
  for (const added of message.toolsAdded ?? []) tools.set(added.name, added);
}

/**
 * All system messages folded into one: the contents joined by blank lines, the surviving
 * sections, and the current tools. `undefined` when the transcript declares nothing.
 */
export function getCurrentSystemMessage(messages: readonly AgentMessage[]): SystemMessage | undefined {
  const parts: string[] = [];
  const sections = new Map<string, string>();
  let timestamp: number | undefined;
  for (const message of messages) {
    if (!isSystem(message)) continue;
    timestamp ??= message.timestamp;
    const text = textOf(message.content);
    if (text) parts.push(text);
    for (const [name, value] of Object.entries(message.sections ?? {})) {
      if (value === null) sections.delete(name);
      else sections.set(name, value);
    }
  }
  const tools = getCurrentTools(messages);
  if (timestamp === undefined) return undefined;
  const folded: SystemMessage = { role: "system", content: parts.join("\n\n"), timestamp };
  if (sections.size > 0) folded.sections = Object.fromEntries(sections);
  if (tools.length > 0) folded.toolsAdded = tools;
  return folded;
}

/** The system prompt text after replaying every system message: content, then sections. */
export function getSystemPrompt(messages: readonly AgentMessage[]): string {
  const folded = getCurrentSystemMessage(messages);
  if (!folded) return "";
  const parts = [textOf(folded.content), ...Object.values(folded.sections ?? {})];
  return parts.filter((part): part is string => typeof part === "string" && part.length > 0).join("\n\n");
}

/** What changed between two tool sets; a changed definition is a removal plus an addition. */
export interface ToolChanges {
  toolsAdded: Tool[];
  toolsRemoved: ToolReference[];
}

/** A tool's declaration as a string, to compare definitions. */
export function declarationKey(tool: Tool): string {
  // Keys sorted: a transcript loaded from a store that reorders keys (PostgreSQL's jsonb, a
  // document database) declares the same tools, not new ones.
  return canonicalJson({ name: tool.name, description: tool.description, parameters: tool.parameters ?? {} });
}

/** The additions and removals that turn the `declared` tools into the `executable` ones. */
export function getToolChanges(declared: readonly Tool[], executable: readonly Tool[]): ToolChanges {
  const before = new Map(declared.map((tool) => [tool.name, declarationKey(tool)]));
  const after = new Map(executable.map((tool) => [tool.name, declarationKey(tool)]));
  return {
    toolsAdded: executable.filter((tool) => before.get(tool.name) !== after.get(tool.name)).map(toToolDeclaration),
    toolsRemoved: declared.filter((tool) => after.get(tool.name) !== before.get(tool.name)).map((tool) => ({ name: tool.name })),
  };
}
