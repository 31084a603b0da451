/**
 * The name the model calls an MCP tool by: the app's prefix plus the server's name, in the
 * characters every provider accepts.
 *
 * @module
 */

/**
 * The longest tool name rxagent gives an MCP tool. OpenAI allows 64 characters, Anthropic 128;
 * the lower bound fits both.
 */
export const MAX_TOOL_NAME_LENGTH = 64;

/** 32-bit FNV-1a of `text`, as 8 hex digits: a short, stable tag for a name that was cut. */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/**
 * `prefix` + `name`, with every character outside `A-Z a-z 0-9 _ -` replaced by `_` (MCP allows
 * `.` and `/`, which model APIs refuse) and cut to {@link MAX_TOOL_NAME_LENGTH} characters. A cut
 * name ends with a fingerprint of the whole, so two long names that share a start stay apart.
 *
 * @example
 * ```ts
 * mcpToolName("get-sum");                 // "get-sum"
 * mcpToolName("files.read", "fs_");       // "fs_files_read"
 * ```
 */
export function mcpToolName(name: string, prefix = ""): string {
  const whole = `${prefix}${name}`;
  const safe = whole.replace(/[^A-Za-z0-9_-]/g, "_") || "tool";
  if (safe.length <= MAX_TOOL_NAME_LENGTH) return safe;
  const tag = fingerprint(whole);
  return `${safe.slice(0, MAX_TOOL_NAME_LENGTH - tag.length - 1)}_${tag}`;
}

/**
 * Names for a server's tools, one per tool in order: {@link mcpToolName} of each, and where two
 * come out the same (`a.b` and `a_b`), the later ones get `_2`, `_3`, … so every name is unique
 * within the server. Names from different servers are kept apart by their prefixes.
 *
 * @example
 * ```ts
 * uniqueToolNames(["a.b", "a_b"]); // ["a_b", "a_b_2"]
 * ```
 */
export function uniqueToolNames(names: readonly string[], prefix = ""): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    const base = mcpToolName(name, prefix);
    let candidate = base;
    for (let n = 2; taken.has(candidate); n++) {
      const suffix = `_${n}`;
      candidate = `${base.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
    }
    taken.add(candidate);
    return candidate;
  });
}
