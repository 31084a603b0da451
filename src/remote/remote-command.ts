/**
 * A remote agent's commands: the JSON bodies the session server reads, and the POST that sends
 * one. A refusal rejects with the server's own text (the Agent's, for what the Agent refuses).
 *
 * @module
 */
import type { ImageContent } from "../model/messages.js";
import type { AgentMessage } from "../model/types.js";

/** What a command needs of the remote agent's options. */
interface CommandTarget {
  readonly url: string;
  readonly fetch?: typeof fetch;
  readonly headers?: () => Record<string, string> | Promise<Record<string, string>>;
}

/** The text of a message the server makes a user message of. */
function textOf(message: AgentMessage | string): string {
  if (typeof message === "string") return message;
  const { role, content } = message as { role?: string; content?: unknown };
  if (role === "user" && typeof content === "string") return content;
  if (role === "user" && Array.isArray(content) && content.every((part) => (part as { type?: string }).type === "text")) {
    return content.map((part) => (part as { text: string }).text).join("");
  }
  throw new TypeError("A remote agent sends text: the server makes the user message (a client cannot send messages of other roles).");
}

/** The command bodies. */
export const commandBody = {
  prompt: (text: string, images?: ImageContent[]) => (images?.length ? { type: "prompt", text, images } : { type: "prompt", text }),
  text: (type: "steer" | "follow_up", message: AgentMessage | string) => ({ type, text: textOf(message) }),
};

/** POSTs `body` to the session's commands; resolves with the server's position before it. */
export async function postCommand(target: CommandTarget, body: unknown): Promise<{ at: string }> {
  const fetchFn = target.fetch ?? fetch;
  const headers = { "content-type": "application/json", ...(await target.headers?.()) };
  const response = await fetchFn(`${target.url}/commands`, { method: "POST", headers, body: JSON.stringify(body) });
  const answer = (await response.json().catch(() => ({}))) as { at?: unknown; error?: unknown };
  if (response.status !== 202) {
    throw new Error(typeof answer.error === "string" ? answer.error : `The session server answered ${response.status} to the command.`);
  }
  return { at: typeof answer.at === "string" ? answer.at : "" };
}
