/**
 * Bounds on the arguments a model may send in one tool call. A value nested thousands of levels
 * deep parses fine (`JSON.parse` does not recurse) but overflows the stack of everything after it
 * — `structuredClone`, `JSON.stringify` for the next request, the session journal — so one such
 * call would poison the conversation for good. Past the bounds, the call keeps `{}` and says why
 * in `argumentsError`: the tool pipeline answers it as invalid arguments (SPEC T3) and the
 * transcript stays serialisable.
 *
 * @module
 */
import type { AssistantMessage, ToolCall } from "./messages.js";

/** The deepest nesting of objects and arrays accepted in one tool call's arguments. */
export const MAX_TOOL_ARGUMENT_DEPTH = 64;
/** The largest tool call accepted, in characters of strings and keys plus one per value. */
export const MAX_TOOL_ARGUMENT_SIZE = 4 * 1024 * 1024;

/**
 * Why `value` is out of bounds, or `undefined` when it is within them. Iterative, so it cannot
 * overflow itself, and it stops at the first bound crossed: its cost is capped by the bounds.
 */
export function toolArgumentsOutOfBounds(value: unknown): string | undefined {
  const stack: [unknown, number][] = [[value, 1]];
  let size = 0;
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    size += typeof item === "string" ? item.length + 1 : 1;
    if (size > MAX_TOOL_ARGUMENT_SIZE) return `Tool call arguments are larger than ${MAX_TOOL_ARGUMENT_SIZE} characters.`;
    if (item === null || typeof item !== "object") continue;
    if (depth > MAX_TOOL_ARGUMENT_DEPTH) return `Tool call arguments nest deeper than ${MAX_TOOL_ARGUMENT_DEPTH} levels.`;
    if (Array.isArray(item)) {
      for (const element of item) stack.push([element, depth + 1]);
      continue;
    }
    for (const key of Object.keys(item)) {
      size += key.length;
      stack.push([(item as Record<string, unknown>)[key], depth + 1]);
    }
  }
  return undefined;
}

/**
 * `message` with every out-of-bounds tool call replaced by one with `arguments: {}` and an
 * `argumentsError` that says which bound it crossed; the same object when none is.
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
    const reason = toolArgumentsOutOfBounds(block.arguments);
    if (reason === undefined) return;
    content ??= message.content.slice();
    const bounded: ToolCall = { ...block, arguments: {}, argumentsError: reason };
    content[index] = bounded;
  });
  return content ? { ...message, content } : message;
}
