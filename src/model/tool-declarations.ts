/**
 * Announcing tool changes in the transcript before a request (SPEC M5, L4b).
 *
 * @module
 */
import type { SystemMessage, Tool } from "./messages.js";
import { applyToolDelta, declarationKey, getToolChanges, isSystem, type ToolChanges } from "./transcript.js";
import { TranscriptCursor } from "./transcript-cursor.js";
import type { AgentMessage } from "./types.js";
import type { AgentTool } from "./tool-types.js";

/**
 * Declares tool changes before a request (SPEC M5). Remembers what it has read of an
 * append-only transcript and which tool array it last compared, so a turn with unchanged
 * tools costs O(new messages), not O(transcript) (SPEC L4b).
 *
 * @internal
 */
export class ToolDeclarations {
  private readonly cursor = new TranscriptCursor();
  private declared = new Map<string, Tool>();
  private declaredKeys = new Map<string, string>();
  /** A copy of the tool list last compared: the caller's array may be mutated in place. */
  private comparedTools: readonly AgentTool[] | undefined;
  private comparedVersion = -1;
  private version = 0;

  /** Folds the system messages appended since the last call, or replays a replaced or rewritten transcript. */
  private catchUp(messages: readonly AgentMessage[], writes: number): void {
    const from = this.cursor.advance(messages, writes);
    if (from === 0) {
      this.declared.clear();
      this.declaredKeys.clear();
      this.version++;
    }
    for (let i = from; i < messages.length; i++) this.fold(messages[i]!);
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
  declare(committed: readonly AgentMessage[], pending: readonly AgentMessage[], tools: readonly AgentTool[], timestamp: number, writes = 0): readonly AgentMessage[] {
    this.catchUp(committed, writes);
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
