/**
 * One turn of the loop (SPEC L3): an assistant message and all its tool results. Read it like
 * the pseudo-code; each phase hands its result to the next:
 *
 * ```text
 * [not first] prepareNextTurn → steering poll if nothing is pending → turn_start
 * pending messages (tool changes declared) → prepareRequest → transformContext → convertToLlm
 *   → getApiKey → provider → final message
 *   error | aborted → hard exit (turn-end.ts)
 *   else the tool calls (a length stop fails them all) → finishTurn (turn-end.ts)
 * ```
 *
 * @module
 */
import { EMPTY, type Observable } from "rxjs";
import { deferred } from "../rx/deferred.js";
import { followedBy } from "../rx/sequence.js";
import type { AssistantMessage, Message, StreamOptions, ToolCall } from "../model/messages.js";
import type { AgentEvent, AgentMessage } from "../model/types.js";
import { unwatched } from "../model/watched-transcript.js";
import { andThen, maybeAsync } from "../rx/maybe-async.js";
import { continueWith } from "../rx/continue-with.js";
import { streamAssistantResponse } from "../stream/assistant-stream.js";
import type { ToolCallEnvironment } from "../tools/prepare-tool-call.js";
import { executeToolBatch, failTruncatedToolCalls, type ToolBatchResult } from "../tools/tool-batch.js";
import type { AgentTurnContext } from "./loop-config.js";
import { messagesOrNone, poll } from "./queue-poll.js";
import { resultsAfter, type ResumedTurn, type Run } from "./run.js";
import { NextTurn, type Step } from "./next-turn.js";
import { finishTurn, hardExit } from "./turn-end.js";

/** One turn. Ends with the next turn's {@link NextTurn} or with `agent_end`. */
export function turn(run: Run, next: NextTurn): Observable<Step> {
  const open = (messages: AgentMessage[]): Observable<Step> => followedBy(appendMessages(run, messages), () => request(run));
  return next.lastTurn ? betweenTurns(run, next.lastTurn, next.pending, open) : open(next.pending);
}

/**
 * Messages added before a request: the tool changes are declared (SPEC M5), and each message
 * gets its start and end events (its end commits it).
 */
export function appendMessages(run: Run, messages: readonly AgentMessage[]): Observable<AgentEvent> {
  return deferred(() => {
    const declared = run.declarations.declare(run.transcript(), messages, run.context.tools ?? [], run.now(), run.writes);
    if (declared.length === 0) return EMPTY;
    // What is waiting now is exactly these messages, as declared (a system message may be rewritten).
    run.waiting = declared.slice();
    const events: AgentEvent[] = [];
    for (const message of declared) events.push({ type: "message_start", message }, { type: "message_end", message });
    return run.emitter.all(events);
  });
}

/** Between turns: `prepareNextTurn`, one more steering poll if nothing is pending (SPEC L7), `turn_start`. */
function betweenTurns(run: Run, lastTurn: AgentTurnContext, pending: AgentMessage[], then: (messages: AgentMessage[]) => Observable<Step>): Observable<Step> {
  const opened = (prepared: AgentMessage[]): Observable<Step> => {
    const start = (queued: AgentMessage[]): Observable<Step> =>
      run.emitter.oneThen({ type: "turn_start" }, () => then([...prepared, ...queued]));
    return pending.length === 0 ? poll(run, run.steering, start) : start(pending);
  };
  const hook = run.config.prepareNextTurn;
  if (!hook) return opened([]);
  return deferred(() =>
    andThen(maybeAsync(() => hook(lastTurn, run.signal), "error"), (update) => {
      if (!update) return opened([]);
      run.update(update);
      return opened(run.took(messagesOrNone(update.messages, "prepareNextTurn messages")));
    }),
  );
}

/**
 * `prepareRequest` may replace the context, the model or the thinking level for this and later
 * requests. Tool changes are declared with each turn's pending messages (SPEC M5), so what it does
 * to the declarations shows from the next turn on, as in pi.
 */
function request(run: Run): Observable<Step> {
  const hook = run.config.prepareRequest;
  if (!hook) return respond(run);
  const update = maybeAsync(() => hook({ context: run.context, model: run.config.model, thinkingLevel: run.thinkingLevel }, run.signal), "error");
  return andThen(update, (changes) => {
    if (changes) run.update(changes);
    return respond(run);
  });
}

/** transformContext → convertToLlm → getApiKey → the provider. */
function respond(run: Run): Observable<Step> {
  const { config } = run;
  const { transformContext, convertToLlm, getApiKey } = config;
  // Re-watched first if a hook put another array in `context.messages`: the view below is the current one (I2).
  run.transcript();
  const view = run.context.messages;
  const transformed = transformContext ? maybeAsync(() => transformContext(view, run.signal), "error") : view;
  return andThen(transformed, (messages) => {
    if (!Array.isArray(messages)) throw new TypeError(`transformContext must return an array of messages, got ${typeof messages}.`);
    // The default conversion reads the transcript itself; a hook's own array as it is (I2).
    const converted = convertToLlm ? maybeAsync(() => convertToLlm(messages), "error") : run.llmMessages.convert(unwatched(messages), run.writes);
    return andThen(converted, (llmMessages) => {
      if (!Array.isArray(llmMessages)) throw new TypeError(`convertToLlm must return an array of messages, got ${typeof llmMessages}.`);
      const apiKey = getApiKey ? maybeAsync(() => getApiKey(config.model.provider), "error") : undefined;
      return andThen(apiKey, (key) => streamResponse(run, llmMessages, key || config.apiKey));
    });
  });
}

/** The provider's response as message events; the turn goes on with its final message. */
function streamResponse(run: Run, messages: Message[], apiKey: string | undefined): Observable<Step> {
  run.turns++;
  const options: StreamOptions & { signal: AbortSignal } = { ...run.streamOptions, signal: run.signal };
  if (apiKey !== undefined) options.apiKey = apiKey;
  // The response waits on the emitter itself, so its updates can take the short path to the subscriber.
  const response = streamAssistantResponse({ model: run.config.model, messages, options, streamFn: run.input.streamFn, now: run.now, onUpdate: run.sink, wait: run.emitter.wait });
  // The response always ends with `message_end` and its final message.
  return response.pipe(continueWith((end) => afterResponse(run, (end as { message: AssistantMessage }).message)));
}

/** An error or aborted response ends the run (SPEC L6); any other runs its tool calls. */
function afterResponse(run: Run, message: AssistantMessage): Observable<Step> {
  if (message.stopReason === "error" || message.stopReason === "aborted") return hardExit(run, message);
  const calls = message.content.filter((block): block is ToolCall => block.type === "toolCall");
  if (calls.length === 0) return finishTurn(run, message, [], false);
  return runToolCalls(run, message, calls, toolEnvironment(run, message), (batch) => finishTurn(run, message, batch.messages, !batch.terminate));
}

/**
 * The calls of `message`: none runs after a length stop (SPEC L9); else the batch, in its mode,
 * which the message's calls decide (`all`: a resumed turn runs only some of them).
 */
function runToolCalls(run: Run, message: AssistantMessage, calls: readonly ToolCall[], env: ToolCallEnvironment, then: (batch: ToolBatchResult) => Observable<Step>, all: readonly ToolCall[] = calls): Observable<Step> {
  if (message.stopReason === "length") return failTruncatedToolCalls(calls, env, run.emitter, then);
  const sequential = run.config.toolExecution === "sequential" || all.some((call) => env.tools.find((t) => t.name === call.name)?.executionMode === "sequential");
  return executeToolBatch(calls, env, sequential, run.emitter, then);
}

/**
 * The rest of a turn a stopped process left open (SPEC S5): the calls without a result run (or
 * get their settled outcome), then the turn ends as any other, with every result of the message
 * in its source order.
 */
export function resumeTurn(run: Run, resume: ResumedTurn): Observable<Step> {
  const { message, settled, terminated } = resume;
  const answered = resultsAfter(run.transcript(), message);
  const calls = message.content.filter((block): block is ToolCall => block.type === "toolCall");
  const open = calls.filter((call) => !answered.has(call.id));
  const env = { ...toolEnvironment(run, message), settled };
  return runToolCalls(run, message, open, env, (batch) => {
    // The batch answers every open call, even an aborted one (SPEC L10), in the order of `open`:
    // matched by place, not by id, so calls that share an id keep their own results.
    let next = 0;
    const messages = calls.map((call) => answered.get(call.id) ?? batch.messages[next++]!);
    // The run stops only when every result of the message asked to, the earlier ones too (SPEC L6).
    const terminate = (open.length === 0 || batch.terminate) && calls.every((call) => !answered.has(call.id) || terminated?.has(call.id) === true);
    return finishTurn(run, message, messages, !terminate);
  }, calls);
}

function toolEnvironment(run: Run, message: AssistantMessage): ToolCallEnvironment {
  const { config } = run;
  const tools = run.context.tools ?? [];
  return {
    tools,
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
