/**
 * The model of the example: the scripted provider of `rxagent/testing`, answering from the
 * transcript alone, so a worker that resumes another's session gets the reply the first worker
 * would have got. No API key needed; swap in `openaiCompatible(...)` for a real model.
 *
 * @module
 */
import { asyncScheduler } from "rxjs";
import type { Message, StreamFn } from "../../src/index.js"; // in your app: from "rxagent"
import { fauxProvider, fauxToolCall, type FauxReply, type FauxRequest } from "../../src/testing/index.js"; // "rxagent/testing"

/** The model's id, as the Agent's `initialState.model`. */
export const SCRIPTED_MODEL = { id: "faux-1", api: "faux", provider: "faux" } as const;

/**
 * Each prompt takes three turns: a lookup and a charge side by side, a second lookup, then the
 * answer. Which turn it is comes from the transcript: the prompts so far (k) and the assistant
 * messages since the last one.
 */
function reply(request: FauxRequest): FauxReply {
  const messages: readonly Message[] = request.messages;
  const k = messages.filter((m) => m.role === "user").length;
  const lastUser = messages.map((m) => m.role).lastIndexOf("user");
  const turn = messages.slice(lastUser + 1).filter((m) => m.role === "assistant").length;
  if (turn === 0) return { content: [fauxToolCall("lookup", { key: `order-${k}` }, `p${k}-lookup`), fauxToolCall("charge", { amount: 10 * k }, `p${k}-charge`)] };
  if (turn === 1) return { content: [fauxToolCall("lookup", { key: `receipt-${k}` }, `p${k}-check`)] };
  return { content: answerText(k) };
}

/** The scripted provider; it streams each reply a few characters per millisecond, like a model. */
export function scriptedModel(): StreamFn {
  return fauxProvider(
    Array.from({ length: 1_000 }, () => reply),
    { scheduler: asyncScheduler, delay: 1, chunkSize: 12 },
  );
}

/** The text the model answers prompt number `k` (1-based) with: how a finished prompt is recognised. */
export function answerText(k: number): string {
  return `answer ${k}: order ${k} is paid.`;
}
