/**
 * The transcript owns the system prompt and the tool declarations (SPEC M5): a leading system
 * message is the prompt; later system messages append `content`, replace or delete named
 * `sections`, and add or remove tools. These helpers replay that history.
 *
 * @module
 */
import type { SystemMessage, TextContent, Tool, ToolReference } from "./messages.js";
import type { AgentMessage, AgentTool } from "./types.js";

function isSystem(message: AgentMessage): message is SystemMessage {
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

function applyToolDelta(tools: Map<string, Tool>, message: SystemMessage): void {
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

function declarationKey(tool: Tool): string {
  return JSON.stringify(toToolDeclaration(tool));
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

/**
 * Declares tool changes before a request (SPEC M5). Remembers what it has read of an
 * append-only transcript and which tool array it last compared, so a turn with unchanged
 * tools costs O(new messages), not O(transcript) (SPEC L4b).
 *
 * @internal
 */
export class ToolDeclarations {
  private source: readonly AgentMessage[] | undefined;
  private read = 0;
  /** The message folded last, at `read - 1`: when another one sits there, the array was rewritten in place. */
  private lastRead: AgentMessage | undefined;
  private declared = new Map<string, Tool>();
  private declaredKeys = new Map<string, string>();
  /** A copy of the tool list last compared: the caller's array may be mutated in place. */
  private comparedTools: readonly AgentTool[] | undefined;
  private comparedVersion = -1;
  private version = 0;

  /**
   * Fold the system messages appended since the last call, or replay a replaced transcript —
   * also one rewritten in place (a hook compacting `context.messages` with `splice`), which the
   * last folded message no longer being at its index reveals in O(1), as in `IncrementalLlmMessages`.
   */
  private catchUp(messages: readonly AgentMessage[]): void {
    if (messages !== this.source || messages.length < this.read || (this.read > 0 && messages[this.read - 1] !== this.lastRead)) {
      this.source = messages;
      this.read = 0;
      this.declared.clear();
      this.declaredKeys.clear();
      this.version++;
    }
    for (; this.read < messages.length; this.read++) this.fold(messages[this.read]!);
    this.lastRead = messages[this.read - 1];
  }

  private fold(message: AgentMessage): void {
    if (!isSystem(message) || (!message.toolsAdded?.length && !message.toolsRemoved?.length)) return;
    for (const removed of message.toolsRemoved ?? []) {
      this.declared.delete(removed.name);
      this.declaredKeys.delete(removed.name);
    }
    for (const added of message.toolsAdded ?? []) {
      this.declared.set(added.name, added);
      this.declaredKeys.set(added.name, declarationKey(added));
    }
    this.version++;
  }

  /**
   * `pending` with the tool changes declared: the delta between what `committed` plus
   * `pending` declares and `tools` is written onto the last pending system message (its own
   * tool fields are intent and get replaced), or onto a new system message placed before the
   * first non-system pending message. Returns `pending` itself when nothing changes.
   */
  declare(committed: readonly AgentMessage[], pending: readonly AgentMessage[], tools: readonly AgentTool[], timestamp: number): readonly AgentMessage[] {
    this.catchUp(committed);
    let systemIndex = -1;
    for (let i = pending.length - 1; i >= 0; i--) if (isSystem(pending[i]!)) { systemIndex = i; break; }
    const pendingDeclares = pending.some((m, i) => i !== systemIndex && isSystem(m) && (m.toolsAdded?.length || m.toolsRemoved?.length));
    if (systemIndex < 0 && !pendingDeclares && sameTools(tools, this.comparedTools) && this.version === this.comparedVersion) return pending;

    // The declared state the pending messages would leave, ignoring the last system message's intent.
    let declared: Tool[] = [...this.declared.values()];
    if (pendingDeclares) {
      const map = new Map(this.declared);
      pending.forEach((m, i) => { if (i !== systemIndex && isSystem(m)) applyToolDelta(map, m); });
      declared = [...map.values()];
    }
    const changes = getToolChanges(declared, tools);
    const unchanged = changes.toolsAdded.length === 0 && changes.toolsRemoved.length === 0;
    if (systemIndex < 0 && !pendingDeclares) {
      this.comparedTools = tools.slice();
      this.comparedVersion = this.version;
    }
    if (systemIndex >= 0) {
      const target = pending[systemIndex] as SystemMessage;
      if (unchanged && !target.toolsAdded?.length && !target.toolsRemoved?.length) return pending;
      return pending.map((m, i) => (i === systemIndex ? withToolChanges(target, changes) : m));
    }
    if (unchanged) return pending;
    const announcement = withToolChanges({ role: "system", content: "", timestamp }, changes);
    const at = pending.findIndex((m) => !isSystem(m));
    const index = at < 0 ? pending.length : at;
    return [...pending.slice(0, index), announcement, ...pending.slice(index)];
  }
}

/**
 * The same tools, element by element. Not `===` on the arrays: a tool that loads tools pushes
 * onto `context.tools` in place, and that change must still be announced (as Pi does). Costs
 * O(tools) per turn, independent of the transcript (SPEC L4b).
 */
function sameTools(tools: readonly AgentTool[], compared: readonly AgentTool[] | undefined): boolean {
  if (!compared || compared.length !== tools.length) return false;
  for (let i = 0; i < tools.length; i++) if (tools[i] !== compared[i]) return false;
  return true;
}

/** A copy of `message` whose tool fields are `changes`; empty lists are left out. */
function withToolChanges(message: SystemMessage, changes: ToolChanges): SystemMessage {
  const { toolsAdded: _added, toolsRemoved: _removed, ...rest } = message;
  const next: SystemMessage = { ...rest };
  if (changes.toolsAdded.length > 0) next.toolsAdded = changes.toolsAdded;
  if (changes.toolsRemoved.length > 0) next.toolsRemoved = changes.toolsRemoved;
  return next;
}
