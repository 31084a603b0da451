/**
 * The commands a follower may send a hosted session, checked as untrusted input: text and
 * images from the user, never a message of another role (a client cannot put words in the
 * assistant's mouth or forge a tool result), and approvals by the id of a call that waits.
 *
 * @module
 */
import type { Agent } from "../agent/agent.js";
import type { ImageContent } from "../model/messages.js";

/** A command, as a follower sends it (JSON). */
export type SessionCommand =
  | { readonly type: "prompt"; readonly text: string; readonly images?: ImageContent[] }
  | { readonly type: "steer"; readonly text: string }
  | { readonly type: "follow_up"; readonly text: string }
  | { readonly type: "abort" }
  | { readonly type: "approve"; readonly toolCallId: string; readonly args?: unknown }
  | { readonly type: "deny"; readonly toolCallId: string; readonly reason?: string };

/** The command's type: what `authorize` is asked about, beside `watch`. */
export type SessionAction = SessionCommand["type"] | "watch";

/** A command refused, with the status and the text the follower reads. */
export interface CommandRefusal {
  readonly status: 400 | 409;
  readonly error: string;
}

const MAX_IMAGES = 16;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isImage(value: unknown): value is ImageContent {
  return isRecord(value) && value.type === "image" && typeof value.data === "string" && typeof value.mimeType === "string" && /^image\/[\w.+-]{1,64}$/.test(value.mimeType);
}

/** The command in `body` (parsed JSON), or why it is none. */
export function parseCommand(body: unknown): SessionCommand | CommandRefusal {
  const bad = (error: string): CommandRefusal => ({ status: 400, error });
  if (!isRecord(body)) return bad("The body must be a JSON object with a `type`.");
  switch (body.type) {
    case "prompt":
      if (typeof body.text !== "string") return bad("A prompt needs `text`, a string.");
      if (body.images === undefined) return { type: "prompt", text: body.text };
      if (!Array.isArray(body.images) || body.images.length > MAX_IMAGES || !body.images.every(isImage)) {
        return bad(`\`images\` must be at most ${MAX_IMAGES} objects { type: "image", data, mimeType: "image/…" }.`);
      }
      return { type: "prompt", text: body.text, images: body.images.map((image) => ({ type: "image", data: image.data, mimeType: image.mimeType })) };
    case "steer":
    case "follow_up":
      return typeof body.text === "string" ? { type: body.type, text: body.text } : bad(`A ${body.type} command needs \`text\`, a string.`);
    case "abort":
      return { type: "abort" };
    case "approve":
      if (typeof body.toolCallId !== "string") return bad("An approve command needs `toolCallId`, a string.");
      return body.args === undefined ? { type: "approve", toolCallId: body.toolCallId } : { type: "approve", toolCallId: body.toolCallId, args: body.args };
    case "deny":
      if (typeof body.toolCallId !== "string") return bad("A deny command needs `toolCallId`, a string.");
      if (body.reason !== undefined && typeof body.reason !== "string") return bad("A deny command's `reason` must be a string.");
      return body.reason === undefined ? { type: "deny", toolCallId: body.toolCallId } : { type: "deny", toolCallId: body.toolCallId, reason: body.reason };
    default:
      return bad("`type` must be one of prompt, steer, follow_up, abort, approve, deny.");
  }
}

/**
 * Applies `command` to `agent`: a prompt starts a run (its end is the events'); the rest act at
 * once. Refused with the Agent's own text when the Agent would refuse it.
 */
export function applyCommand(agent: Agent, command: SessionCommand, onRunFailure: (error: unknown) => void): CommandRefusal | undefined {
  switch (command.type) {
    case "prompt":
      if (agent.state.isStreaming) return { status: 409, error: "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion." };
      agent.prompt(command.text, command.images).catch(onRunFailure);
      return undefined;
    case "steer":
      agent.steer(command.text);
      return undefined;
    case "follow_up":
      agent.followUp(command.text);
      return undefined;
    case "abort":
      agent.abort();
      return undefined;
    case "approve":
    case "deny": {
      if (!agent.state.pendingApprovals.some((request) => request.toolCallId === command.toolCallId)) {
        return { status: 409, error: `No tool call ${JSON.stringify(command.toolCallId.slice(0, 200))} waits for approval.` };
      }
      if (command.type === "approve") agent.approve(command.toolCallId, command.args === undefined ? {} : { args: command.args });
      else agent.deny(command.toolCallId, command.reason);
      return undefined;
    }
  }
}
