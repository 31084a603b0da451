/**
 * Bounds on what a model's answer may hold. A value nested thousands of levels deep parses fine
 * (`JSON.parse` does not recurse) but overflows the stack of everything after it —
 * `structuredClone`, `JSON.stringify` for the next request, the session journal — so one such
 * tool call would poison the conversation for good. Past the bounds, the call keeps `{}` and
 * says why in `argumentsError`: the tool pipeline answers it as invalid arguments (SPEC T3) and
 * the transcript stays serialisable. A call's id and name must be strings, and usage figures
 * numbers, for the same reason.
 *
 * @module
 */
import type { AssistantMessage, ToolCall, Usage } from "./messages.js";

/** The deepest nesting of objects and arrays accepted in one tool call's arguments. */
export const MAX_TOOL_ARGUMENT_DEPTH = 64;
/** The largest tool call accepted, in characters of its JSON (strings, keys, scalars, one per value). */
export const MAX_TOOL_ARGUMENT_SIZE = 4 * 1024 * 1024;
/** The longest tool-call id or tool name kept as it is. */
const MAX_ID_LENGTH = 1024;

/** A scalar's size: its JSON length, one for anything else. */
function scalarSize(item: unknown): number {
  switch (typeof item) {
    case "string":
      return item.length + 1;
    case "number":
    case "bigint":
      return String(item).length + 1;
    case "boolean":
      return item ? 5 : 6;
    default:
      return item === null ? 5 : 1;
  }
}

/**
 * Why `value` is out of bounds, or `undefined` when it is within them. Iterative, so it cannot
 * overflow itself. An array's or object's entries are counted before they are visited, so its
 * work and memory stop at the first bound crossed: they are capped by the bounds, not the value.
 */
export function toolArgumentsOutOfBounds(value: unknown): string | undefined {
  const tooLarge = `Tool call arguments are larger than ${MAX_TOOL_ARGUMENT_SIZE} characters.`;
  const stack: [unknown, number][] = [[value, 1]];
  let size = 0;
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== "object") {
      size += scalarSize(item);
      if (size > MAX_TOOL_ARGUMENT_SIZE) return tooLarge;
      continue;
    }
    if (depth > MAX_TOOL_ARGUMENT_DEPTH) return `Tool call arguments nest deeper than ${MAX_TOOL_ARGUMENT_DEPTH} levels.`;
    const entries = Array.isArray(item) ? item : Object.keys(item);
    size += entries.length + 1;
    if (size > MAX_TOOL_ARGUMENT_SIZE) return tooLarge;
    if (Array.isArray(item)) {
      for (const element of item) stack.push([element, depth + 1]);
      continue;
    }
    for (const key of entries as string[]) {
      size += key.length;
      if (size > MAX_TOOL_ARGUMENT_SIZE) return tooLarge;
      stack.push([(item as Record<string, unknown>)[key], depth + 1]);
    }
  }
  return undefined;
}

/** `value` as a bounded string: itself when it is one, else a marker the transcript can carry. */
function boundedString(value: unknown, fallback: string): string {
  if (typeof value !== "string") return fallback;
  return value.length > MAX_ID_LENGTH ? value.slice(0, MAX_ID_LENGTH) : value;
}

/** The call with its id, name and arguments bounded; the same object when nothing was out of bounds. */
function boundedCall(block: ToolCall, index: number): ToolCall {
  const id = boundedString(block.id, `invalid-id-${index}`);
  const name = boundedString(block.name, "");
  const outOfBounds = toolArgumentsOutOfBounds(block.arguments);
  if (outOfBounds === undefined && id === block.id && name === block.name) return block;
  const bounded: ToolCall = { ...block, id, name };
  if (outOfBounds !== undefined) Object.assign(bounded, { arguments: {}, argumentsError: outOfBounds });
  return bounded;
}

const USAGE_FIELDS = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"] as const;
const COST_FIELDS = ["input", "output", "cacheRead", "cacheWrite", "total"] as const;
const finite = (value: unknown): boolean => typeof value === "number" && Number.isFinite(value);

/** The usage with every figure a finite number (0 for anything else); the same object when all were. */
function boundedUsage(usage: Usage | undefined): Usage | undefined {
  if (usage === undefined || usage === null) return usage;
  const cost = usage.cost as Usage["cost"] | undefined;
  const clean = USAGE_FIELDS.every((field) => finite(usage[field])) && (cost === undefined || (typeof cost === "object" && COST_FIELDS.every((field) => finite(cost[field]))));
  if (clean) return usage;
  const fixed = { ...usage } as Usage;
  for (const field of USAGE_FIELDS) if (!finite(fixed[field])) fixed[field] = 0;
  const fixedCost = (cost && typeof cost === "object" ? { ...cost } : {}) as Usage["cost"];
  for (const field of COST_FIELDS) if (!finite(fixedCost[field])) fixedCost[field] = 0;
  fixed.cost = fixedCost;
  return fixed;
}

/**
 * `message` with every tool call held to the bounds (arguments past them replaced by `{}` with
 * an `argumentsError` that says which bound; an id or name that is not a string replaced) and
 * its usage made of finite numbers; the same object when nothing was out of bounds.
 *
 * @example
 * ```ts
 * let deep: unknown = {};
 * for (let i = 0; i < 100_000; i++) deep = { a: deep };
 * const call = { type: "toolCall", id: "1", name: "t", arguments: deep as Record<string, unknown> } as const;
 * boundToolCalls({ ...message, content: [call] }).content[0];
 * // { type: "toolCall", id: "1", name: "t", arguments: {}, argumentsError: "Tool call arguments nest deeper than 64 levels." }
 * ```
 */
export function boundToolCalls(message: AssistantMessage): AssistantMessage {
  let content: AssistantMessage["content"] | undefined;
  message.content.forEach((block, index) => {
    if (block?.type !== "toolCall") return;
    const bounded = boundedCall(block, index);
    if (bounded === block) return;
    content ??= message.content.slice();
    content[index] = bounded;
  });
  const usage = boundedUsage(message.usage);
  if (content === undefined && usage === message.usage) return message;
  return { ...message, content: content ?? message.content, usage: usage as Usage };
}
