/**
 * One turn of the loop (SPEC L3): an assistant message and all its tool results. Each phase is
 * an Observable that ends with the step to take next (`steps.ts`):
 *
 * ```text
 * openTurn:  [not first] prepareNextTurn → steering poll if nothing is pending → turn_start
 *            pending messages (tool changes declared) → prepareRequest → transformContext
 *            → convertToLlm → getApiKey → Request
 * respond:   the provider's message events → error | aborted: FinishTurn (hard exit)
 *            else the tool calls (a length stop fails them all) → FinishTurn (turn-end.ts)
 * ```
 *
 * @module
 */
import { concat, concatMap, defer, EMPTY, map, type Observable, of } from "rxjs";
import type { AssistantMessage, Message, StreamOptions, ToolCall } from "../model/messages.js";
import type { AgentEvent, AgentMessage } from "../model/types.js";
import { unwatched } from "../model/watched-transcript.js";
import { fromHook } from "../rx/from-hook.js";
import { continueWithLast } from "../rx/continue-with-last.js";
import { streamAssistantResponse } from "../stream/assistant-stream.js";
import type { ToolCallEnvironment } from "../tools/prepare-tool-call.js";
import { executeToolBatch, failTruncatedToolCalls, ToolBatchResult } from "../tools/tool-batch.js";
import type { AgentTurnContext } from "./loop-config.js";
import { messagesOrNone } from "./queue-poll.js";
import { resultsAfter, type ResumedTurn, type Run } from "./run.js";
import { FinishTurn, type NextTurn, type Phase, Request } from "./steps.js";

/** A turn up to its request: its opening events, its pending messages, the request hooks. */
export function openTurn(run: Run, next: NextTurn): Observable<Phase> {
  const { lastTurn, pending } = next;
  if (!lastTurn) return concat(appendMessages(run, pending), request(run));
  return beforeNextTurn(run, lastTurn, pending).pipe(
    concatMap((messages) => concat(run.emitter.one({ type: "turn_start" }), appendMessages(run, messages), request(run))),
  );
}

/**
 * Messages added before a request: the tool changes are declared (SPEC M5), and each message
 * gets its start and end events (its end commits it).
 */
export function appendMessages(run: Run, messages: readonly AgentMessage[]): Observable<AgentEvent> {
  return defer(() => {
    const declared = run.declarations.declare(run.transcript(), messages, run.context.tools ?? [], run.now(), run.writes);
    if (declared.length === 0) return EMPTY;
    // What is waiting now is exactly these messages, as declared (a system message may be rewritten).
    run.waiting = declared.slice();
    const events: AgentEvent[] = [];
    for (const message of declared) events.push({ type: "message_start", message }, { type: "message_end", message });
    return run.emitter.all(events);
  });
}

/** Between turns: `prepareNextTurn`, then one more steering poll if nothing is pending (SPEC L7). */
function beforeNextTurn(run: Run, lastTurn: AgentTurnContext, pending: AgentMessage[]): Observable<AgentMessage[]> {
  const queued = (prepared: AgentMessage[]): Observable<AgentMessage[]> =>
    pending.length > 0 ? of([...prepared, ...pending]) : run.poll(run.steering).pipe(map((polled) => (prepared.length === 0 ? polled : [...prepared, ...polled])));
  const hook = run.config.prepareNextTurn;
  if (!hook) return queued([]);
  return fromHook(() => hook(lastTurn, run.signal)).pipe(
    concatMap((update) => {
      if (!update) return queued([]);
      run.update(update);
      return queued(run.took(messagesOrNone(update.messages, "prepareNextTurn messages")));
    }),
  );
}

/**
 * `prepareRequest` may replace the context, the model or the thinking level for this and later
 * requests; then transformContext → convertToLlm → getApiKey. Tool changes are declared with each
 * turn's pending messages (SPEC M5), so what `prepareRequest` does to the declarations shows from
 * the next turn on, as in pi.
 */
function request(run: Run): Observable<Request> {
  const { prepareRequest } = run.config;
  if (!prepareRequest) return llmRequest(run);
  return fromHook(() => prepareRequest({ context: run.context, model: run.config.model, thinkingLevel: run.thinkingLevel }, run.signal)).pipe(
    concatMap((changes) => {
      if (changes) run.update(changes);
      return llmRequest(run);
    }),
  );
}

/** transformContext → convertToLlm → getApiKey: what the provider gets. Each absent hook costs nothing. */
function llmRequest(run: Run): Observable<Request> {
  return defer(() => {
    const { transformContext, convertToLlm, getApiKey } = run.config;
    // Re-watched first if a hook put another array in `context.messages`: the view below is the current one (I2).
    run.transcript();
    const view = run.context.messages;
    const withKey = (messages: unknown): Observable<Request> => {
      if (!Array.isArray(messages)) throw new TypeError(`convertToLlm must return an array of messages, got ${typeof messages}.`);
      const { apiKey, model } = run.config;
      if (!getApiKey) return of(new Request(messages, apiKey));
      return fromHook(() => getApiKey(model.provider)).pipe(map((found) => new Request(messages, found || apiKey)));
    };
    // The default conversion reads the transcript itself; a hook's own array as it is (I2).
    if (!transformContext && !convertToLlm) return withKey(run.llmMessages.convert(unwatched(view), run.writes));
    const transformed = transformContext ? fromHook(() => transformContext(view, run.signal)) : of(view);
    return transformed.pipe(
      concatMap((messages) => {
        if (!Array.isArray(messages)) throw new TypeError(`transformContext must return an array of messages, got ${typeof messages}.`);
        return convertToLlm ? fromHook(() => convertToLlm(messages)) : of(run.llmMessages.convert(unwatched(messages), run.writes));
      }),
      concatMap(withKey),
    );
  });
}

/**
 * The provider's response as message events; then, with its final message, the turn's end (an
 * error or aborted response ends the run, SPEC L6) or its tool calls.
 */
export function respond(run: Run, request: Request): Observable<Phase> {
  return defer(() => {
    run.turns++;
    const options: StreamOptions & { signal: AbortSignal } = { ...run.streamOptions, signal: run.signal };
    if (request.apiKey !== undefined) options.apiKey = request.apiKey;
    const response = streamAssistantResponse({ model: run.config.model, messages: request.messages, options, streamFn: run.input.streamFn, now: run.now, wait: run.emitter.wait });
    // The response always ends with `message_end` and its final message.
    return response.pipe(continueWithLast((end) => afterResponse(run, (end as { message: AssistantMessage }).message)));
  });
}

function afterResponse(run: Run, message: AssistantMessage): Observable<Phase> {
  if (message.stopReason === "error" || message.stopReason === "aborted") return of(new FinishTurn(message, [], false, true));
  const calls = message.content.filter((block): block is ToolCall => block.type === "toolCall");
  if (calls.length === 0) return of(new FinishTurn(message, [], false));
  return toolCalls(run, message, calls, toolEnvironment(run, message)).pipe(
    map((value) => (value instanceof ToolBatchResult ? new FinishTurn(message, value.messages, !value.terminate) : value)),
  );
}

/**
 * The calls of `message`: none runs after a length stop (SPEC L9); else the batch, in its mode,
 * which the message's calls decide (`all`: a resumed turn runs only some of them).
 */
function toolCalls(run: Run, message: AssistantMessage, calls: readonly ToolCall[], env: ToolCallEnvironment, all: readonly ToolCall[] = calls): Observable<AgentEvent | ToolBatchResult> {
  if (message.stopReason === "length") return failTruncatedToolCalls(calls, env, run.emitter);
  const sequential = run.config.toolExecution === "sequential" || all.some((call) => env.tools.find((t) => t.name === call.name)?.executionMode === "sequential");
  return executeToolBatch(calls, env, sequential, run.emitter);
}

/**
 * The rest of a turn a stopped process left open (SPEC S5): the calls without a result run (or
 * get their settled outcome), then the turn ends as any other, with every result of the message
 * in its source order.
 */
export function resumeTurn(run: Run, resume: ResumedTurn): Observable<Phase> {
  return defer(() => {
    const { message, settled, terminated } = resume;
    const answered = resultsAfter(run.transcript(), message);
    const calls = message.content.filter((block): block is ToolCall => block.type === "toolCall");
    const open = calls.filter((call) => !answered.has(call.id));
    const env = { ...toolEnvironment(run, message), settled };
    return toolCalls(run, message, open, env, calls).pipe(
      map((value) => {
        if (!(value instanceof ToolBatchResult)) return value;
        // The batch answers every open call, even an aborted one (SPEC L10), in the order of `open`:
        // matched by place, not by id, so calls that share an id keep their own results.
        let next = 0;
        const messages = calls.map((call) => answered.get(call.id) ?? value.messages[next++]!);
        // The run stops only when every result of the message asked to, the earlier ones too (SPEC L6).
        const terminate = (open.length === 0 || value.terminate) && calls.every((call) => !answered.has(call.id) || terminated?.has(call.id) === true);
        return new FinishTurn(message, messages, !terminate);
      }),
    );
  });
}

function toolEnvironment(run: Run, message: AssistantMessage): ToolCallEnvironment {
  const { config } = run;
  return {
    tools: run.context.tools ?? [],
    context: run.context,
    assistantMessage: message,
    signal: run.signal,
    now: run.now,
    validator: run.input.validator,
    scheduler: config.scheduler,
    beforeToolCall: config.beforeToolCall,
    afterToolCall: config.afterToolCall,
    requestApproval: config.requestApproval,
    maxConcurrency: config.maxConcurrency,
    toolTimeoutMs: config.limits?.toolTimeoutMs,
    abortGraceMs: config.abortGraceMs,
    budget: run.budget,
    control: run.input.control,
  };
}
