/**
 * The commands a follower may send a hosted session, checked as untrusted input: text and
 * images from the user, never a message of another role (a client cannot put words in the
 * assistant's mouth or forge a tool result), and approvals by the id of a call that waits
 * (edited arguments held to a model's bounds).
 *
 * @module
 */
import { first } from "rxjs";
import type { Agent } from "../agent/agent.js";
import { describeError } from "../model/describe-error.js";
import type { ImageContent } from "../model/messages.js";
import { redactSecrets } from "../model/redact-secrets.js";
import { toolArgumentsOutOfBounds } from "../model/tool-call-bounds.js";
import type { HostedSession } from "./hosted-session.js";

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
const MAX_REASON = 4096;

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
      if (body.args !== undefined) {
        // Edited arguments are the client's: held to the bounds a model's are held to.
        const outOfBounds = toolArgumentsOutOfBounds(body.args);
        if (outOfBounds) return bad(`An approve command's \`args\`: ${outOfBounds}`);
      }
      return body.args === undefined ? { type: "approve", toolCallId: body.toolCallId } : { type: "approve", toolCallId: body.toolCallId, args: body.args };
    case "deny":
      if (typeof body.toolCallId !== "string") return bad("A deny command needs `toolCallId`, a string.");
      if (body.reason !== undefined && (typeof body.reason !== "string" || body.reason.length > MAX_REASON)) return bad(`A deny command's \`reason\` must be a string of at most ${MAX_REASON} characters.`);
      return body.reason === undefined ? { type: "deny", toolCallId: body.toolCallId } : { type: "deny", toolCallId: body.toolCallId, reason: body.reason };
    default:
      return bad("`type` must be one of prompt, steer, follow_up, abort, approve, deny.");
  }
}

/** The refusal's text for the client: the Agent's own words, redacted, cut. */
function refusalText(error: unknown): string {
  return redactSecrets(describeError(error)).slice(0, 1000);
}

/**
 * Starts a run with `text`: resolves once its user message has ended (`undefined`) — with a
 * durable session, on record: an entry is stored before anyone is told of it, so a crash after
 * the answer does not lose the prompt — or when it was refused (the refusal). A failure after it
 * began is the run's, and goes to `onRunFailure`.
 */
function startRun(agent: Agent, text: string, images: ImageContent[] | undefined, onRunFailure: (error: unknown) => void): Promise<CommandRefusal | undefined> {
  return new Promise((resolve) => {
    let begun = false;
    const beginning = agent.events$.pipe(first((event) => event.type === "message_end" && event.message.role === "user")).subscribe(() => {
      begun = true;
      resolve(undefined);
    });
    agent.prompt$(text, images).subscribe({
      error: (error: unknown) => {
        beginning.unsubscribe();
        if (begun) onRunFailure(error);
        else resolve({ status: 409, error: refusalText(error) });
      },
      complete: () => {
        beginning.unsubscribe();
        resolve(undefined);
      },
    });
  });
}

/**
 * Applies `command` to the hosted session's Agent: a prompt starts a run (resolving once it has
 * begun; its end is the events'); the rest act at once. Refused with the Agent's own text when
 * the Agent refuses it.
 */
export async function applyCommand(session: HostedSession, command: SessionCommand, onRunFailure: (error: unknown) => void): Promise<CommandRefusal | undefined> {
  const { agent } = session;
  switch (command.type) {
    case "prompt":
      // Its `agent_end` was sent but its listeners still settle: the run has ended for the follower.
      if (agent.state.isStreaming && !session.log.view.isStreaming) await agent.waitForIdle();
      if (agent.state.isStreaming) return { status: 409, error: "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion." };
      return startRun(agent, command.text, command.images, onRunFailure);
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
