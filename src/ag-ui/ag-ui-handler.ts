/**
 * The AG-UI endpoint: a fetch-style handler, `(request: Request) => Promise<Response>`, that
 * runs an rxagent agent for an AG-UI client (`@ag-ui/client`'s `HttpAgent`, and so CopilotKit)
 * and streams the run as AG-UI events over server-sent events. Guarded as the stream proxy is:
 * the token before the body, the body bounded in size and time, the input checked by hand.
 *
 * @module
 */
import { finalize } from "rxjs";
import type { AgentLike } from "../agent/agent-like.js";
import { describeError } from "../model/describe-error.js";
import { redactSecrets } from "../model/redact-secrets.js";
import { bearerToken, StreamSlots, tokenMatcher } from "../providers/proxy/proxy-auth.js";
import { declaredTooLarge, readBodyText } from "../providers/proxy/proxy-body.js";
import { runOnAgent } from "./ag-ui-run.js";
import { planRun, type AgUiHistory } from "./ag-ui-run-plan.js";
import { agUiEventStream } from "./ag-ui-sse.js";
import type { RunAgentInput } from "./ag-ui-types.js";
import { checkRunAgentInput } from "./run-agent-input.js";

/**
 * Configuration of {@link createAgUiHandler}. Give `token` or `authorize`.
 *
 * @example
 * ```ts
 * const options: AgUiHandlerOptions = { authorize: (token) => sessions.isValid(token), agentFor: (input) => agents.get(input.threadId) };
 * ```
 */
export interface AgUiHandlerOptions {
  /**
   * The agent that runs this request, or `undefined` to refuse it (403): the place to check that
   * the caller may use `input.threadId`. To answer approvals across requests, return the same
   * agent for the same thread (a map of thread id to `Agent`); a fresh agent per request suits
   * runs without approvals. `input.tools`, `input.context`, `input.state` and
   * `input.forwardedProps` are the client's words: read them here if the app wants them.
   */
  agentFor: (input: RunAgentInput, request: Request) => AgentLike | undefined | PromiseLike<AgentLike | undefined>;
  /** The bearer token clients must send (not blank). Use `authorize` for per-user checks. */
  token?: string | undefined;
  /** Decides, before any of the body is read, whether the request may run an agent. */
  authorize?: ((token: string | undefined, request: Request) => boolean | PromiseLike<boolean>) | undefined;
  /**
   * Whose transcript a run starts from. `client` (default): an `Agent`'s transcript becomes its
   * system prompt and the conversation the client sent (AG-UI clients send it whole every time).
   * `server`: the agent keeps its own transcript and is prompted with the client's last message.
   */
  history?: AgUiHistory | undefined;
  /** How approvals travel: AG-UI interrupts (default) or `CUSTOM` events (see `toAgUiEvents`). */
  approvals?: "interrupt" | "custom" | undefined;
  /** Keeps the run's view under this key of the AG-UI state (see `toAgUiEvents`). */
  stateKey?: string | undefined;
  /** Sends the run's own error text (redacted) in `RUN_ERROR`; default a generic text, the detail going to `onError`. */
  exposeErrors?: boolean | undefined;
  /** The largest request body read, in bytes; larger ones get 413. Default 4 MiB. */
  maxBodyBytes?: number | undefined;
  /** How long reading the body may take, in ms; slower ones get 408. Default 30 000. */
  bodyTimeoutMs?: number | undefined;
  /** The most messages a request may carry; more get 400. Default 1 000. */
  maxMessages?: number | undefined;
  /** How many runs one bearer token (or one `slotKey`) may stream at once; more get 429. Default: no limit. */
  maxConcurrentPerToken?: number | undefined;
  /** Whose runs `maxConcurrentPerToken` counts together (default the bearer token): a user id with cookie auth. */
  slotKey?: ((request: Request, token: string | undefined) => string | undefined) | undefined;
  /** Receives failures (a hook that threw, a run that failed), redacted. Default: `console.error`. */
  onError?: ((error: Error, request: Request) => void) | undefined;
}

const GENERIC_FAILURE = "The agent run failed";

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(value > 0) || !Number.isFinite(value)) throw new TypeError(`createAgUiHandler: \`${name}\` must be a positive number, got ${String(value)}`);
  return value;
}

/**
 * Creates the AG-UI endpoint. Requires `agentFor`, and `token` or `authorize` (it throws without).
 *
 * Answers, in this order: `405` to anything but `POST`; `401` (with `WWW-Authenticate: Bearer`)
 * before any of the body is read; `429` (with `Retry-After`) over `maxConcurrentPerToken`, also
 * before the body; `413` to a body over `maxBodyBytes` (by `Content-Length`, or
 * while reading); `408` to a body slower than `bodyTimeoutMs`; `400` to a body that is not a
 * `RunAgentInput` (the text says which field), or a conversation the agent cannot answer; `403`
 * when `agentFor` returns nothing; `409` when the thread's agent is busy, or a `resume` answers a
 * call that does not wait; `500` when a hook throws; otherwise `200` with a `text/event-stream`
 * of AG-UI events that ends with `RUN_FINISHED` or `RUN_ERROR`. The client going away aborts the
 * run. `input.tools` never reaches the agent: the client cannot add or choose server tools.
 *
 * @example
 * ```ts
 * import { createAgUiHandler } from "rxagent/ag-ui";
 *
 * const threads = new Map<string, Agent>();
 * const handler = createAgUiHandler({
 *   token: process.env.AG_UI_TOKEN,
 *   agentFor: (input) => threads.get(input.threadId) ?? threads.set(input.threadId, makeAgent()).get(input.threadId),
 * });
 * Deno.serve(handler); // or createServer(toNodeListener(handler)) with rxagent/proxy/node
 * ```
 * @param options - How agents are found, who may run them, and the limits.
 * @return The handler.
 */
export function createAgUiHandler(options: AgUiHandlerOptions): (request: Request) => Promise<Response> {
  if (typeof options.agentFor !== "function") throw new TypeError("createAgUiHandler: give an `agentFor` function");
  if (options.token !== undefined && (typeof options.token !== "string" || options.token.trim() === "")) {
    throw new TypeError("createAgUiHandler: `token` is blank; set a non-blank token or use `authorize`");
  }
  const matches = options.token !== undefined ? tokenMatcher(options.token) : undefined;
  if (!options.authorize && !matches) throw new TypeError("createAgUiHandler: give a `token` or an `authorize` function");
  const maxBodyBytes = positive(options.maxBodyBytes, 4 * 1024 * 1024, "maxBodyBytes");
  const bodyTimeoutMs = positive(options.bodyTimeoutMs, 30_000, "bodyTimeoutMs");
  const maxMessages = positive(options.maxMessages, 1000, "maxMessages");
  const slots = options.maxConcurrentPerToken !== undefined ? new StreamSlots(positive(options.maxConcurrentPerToken, 0, "maxConcurrentPerToken")) : undefined;
  const history = options.history ?? "client";
  const log = options.onError ?? ((error: Error) => console.error(`rxagent ag-ui: ${error.message}`));

  return async (request) => {
    if (request.method !== "POST") return json(405, { error: "Method not allowed: POST a RunAgentInput" }, { allow: "POST" });
    const token = bearerToken(request);
    // Errors are logged redacted of the token and of credential shapes, never sent.
    const report = (error: unknown) => {
      try {
        log(new Error(redactSecrets(describeError(error), [token, options.token])), request);
      } catch {
        // A logger that throws must not break the response it reports on.
      }
    };
    // The slot is held from the token check on (an upload counts as a run); the stream frees it when it ends.
    let release = () => undefined as void;
    let streaming = false;
    try {
      const allowed = options.authorize ? await options.authorize(token, request) : await matches!(token);
      if (!allowed) return json(401, { error: token === undefined ? "Missing access token" : "Invalid access token" }, { "www-authenticate": 'Bearer realm="rxagent-ag-ui"' });
      if (slots) {
        const slot = slots.acquire(options.slotKey ? options.slotKey(request, token) : token);
        if (!slot) return json(429, { error: `Too many concurrent runs for this token (limit ${slots.limit})` }, { "retry-after": "1" });
        release = slot;
      }
      const declared = declaredTooLarge(request, maxBodyBytes);
      if (declared) return json(declared.status, { error: declared.error });
      const text = await readBodyText(request, maxBodyBytes, bodyTimeoutMs);
      if (typeof text !== "string") return json(text.status, { error: text.error });
      const input = checkRunAgentInput(text, maxMessages);
      if (typeof input === "string") return json(400, { error: input });

      const agent = await options.agentFor(input, request);
      if (!agent) return json(403, { error: "This thread is not available" });
      // From the plan to the run's start nothing awaits, so a second request for the same agent
      // sees it busy (409) rather than racing it.
      const plan = planRun(agent, input, history, Date.now());
      if ("status" in plan) return json(plan.status, { error: plan.error });
      const errorText = (detail: string | undefined) => {
        if (options.exposeErrors) return redactSecrets(detail ?? GENERIC_FAILURE, [token, options.token]);
        if (detail !== undefined) report(new Error(`A run failed: ${detail}`));
        return GENERIC_FAILURE;
      };
      const mapping = { threadId: input.threadId, runId: input.runId, parentRunId: input.parentRunId, approvals: options.approvals, stateKey: options.stateKey, errorText };
      const events = runOnAgent(agent, plan, mapping, report).pipe(finalize(() => release()));
      streaming = true;
      return new Response(agUiEventStream(events, request.signal), {
        status: 200,
        headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" },
      });
    } catch (error) {
      report(error);
      return json(500, { error: "The AG-UI endpoint failed to handle the request" });
    } finally {
      if (!streaming) release();
    }
  };
}
