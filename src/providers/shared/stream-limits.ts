/**
 * The memory caps of the streaming providers (`openaiCompatible`, `streamProxy`): what one
 * response may make this process hold. A server that streams a line with no end, an event with no end or valid deltas forever
 * would otherwise grow the heap until the process dies; past a cap the request is cancelled
 * and the response ends with a non-retryable protocol error that names the option to raise.
 *
 * @internal
 * @module
 */
import { SseLimitExceeded, type SseLimits } from "./sse.js";
import { StreamFailure } from "./stream-failure.js";

/** The caps, as given to `openaiCompatible` or `streamProxy`. */
export type StreamLimits = Required<SseLimits>;

const MiB = 1024 * 1024;

/**
 * The defaults. One line or event: 4 MiB, room for a tool call whose whole arguments (a file
 * written through a tool, say) arrive in one chunk, as vLLM and llama.cpp send them. One
 * response: 64 MiB of raw body, about twice what a 128k-token answer takes at some 300 bytes
 * of chunk JSON per token.
 */
export const DEFAULT_STREAM_LIMITS: Readonly<StreamLimits> = { maxLineBytes: 4 * MiB, maxEventBytes: 4 * MiB, maxResponseBytes: 64 * MiB };

/**
 * The caps from the options, each checked: a positive number (`Infinity` turns one off).
 * Throws `TypeError` naming the option otherwise.
 */
export function streamLimits(options: Partial<StreamLimits>, provider = "openaiCompatible"): StreamLimits {
  const limits = { ...DEFAULT_STREAM_LIMITS };
  for (const name of Object.keys(DEFAULT_STREAM_LIMITS) as (keyof StreamLimits)[]) {
    const value = options[name];
    if (value === undefined) continue;
    if (typeof value !== "number" || !(value > 0)) {
      throw new TypeError(`${provider}: ${name} must be a positive number of bytes (or Infinity), got ${typeof value === "string" ? JSON.stringify(value) : String(value)}`);
    }
    limits[name] = value;
  }
  return limits;
}

const WHAT: Record<keyof StreamLimits, string> = {
  maxLineBytes: "A line of the event stream exceeded",
  maxEventBytes: "One event of the event stream exceeded",
  maxResponseBytes: "The response exceeded",
};

/** The failure for a cap that was hit: not retryable, as the same request would hit it again. */
export function limitFailure(error: SseLimitExceeded, provider = "openaiCompatible"): StreamFailure {
  const unfinished = error.limit === "maxResponseBytes" ? "" : " without ending";
  return new StreamFailure(`${WHAT[error.limit]} ${error.limit} (${error.max} bytes)${unfinished}; raise the limit with ${provider}({ ${error.limit} })`, {
    kind: "protocol",
    retryable: false,
  });
}
