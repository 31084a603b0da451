/**
 * One turn of the loop (SPEC L3): an assistant message and all its tool results, as phases that
 * end with the step to take next (`steps.ts`); the turn opens in `next-turn.ts`:
 *
 * ```text
 * append:    pending messages (tool changes declared), each committed by its end → SendRequest
 * request:   prepareRequest → transformContext → convertToLlm → getApiKey → the provider's
 *            message events → error | aborted: FinishTurn (hard exit)
 *            else the tool calls (a length stop fails them all) → FinishTurn (turn-end.ts)
 * ```
 *
 * A phase runs when its step is taken: `expandSteps` calls it and subscribes to what it returns
 * at once, as `expand` does with its projection, so it reads the run as it is then, without a
 * `defer` of its own.
 *
 * @module
 */
import { concatMap, defer, type Observable, of } from "rxjs";
import type { AssistantMessage, Message, StreamOptions, ToolCall } from "../model/messages.js";
import type { AgentEvent, AgentMessage } from "../model/types.js";
import { unwatched } from "../model/watched-transcript.js";
import { isPlaceholderModel } from "../model/placeholder-model.js";
import { fromHook } from "../rx/from-hook.js";
import { streamAssistantResponse } from "../stream/assistant-stream.js";
import type { ToolCallEnvironment } from "../tools/prepare-tool-call.js";
import { executeToolBatch, failTruncatedToolCalls, type ToolBatchResult } from "../tools/tool-batch.js";
import { resultsAfter, type ResumedTurn, type Run } from "./run.js";
import { type Append, FinishTurn, type Phase, Responded, SendRequest, type Step } from "./steps.js";
import { finishTurn } from "./turn-end.js";

const SEND_REQUEST = new SendRequest();

/**
 * Messages added before a request: the tool changes are declared (SPEC M5), and each message
 * gets its start and end events (its end commits it); then `next`, or the request.
 */
export function append(run: Run, step: Append): Observable<Phase> {
  const declared = run.declarations.declare(run.transcript(), step.messages, run.context.tools ?? [], run.now(), run.writes);
  // What is waiting now is exactly these messages, as declared (a system message may be rewritten).
  if (declared.length > 0) run.waiting = declared.slice();
  const events: AgentEvent[] = [];
  for (const message of declared) events.push({ type: "message_start", message }, { type: "message_end", message });
  return run.emitter.tell<Step>(events, step.next ?? SEND_REQUEST);
}

/**
 * `prepareRequest` may replace the context, the model or the thinking level for this and later
 * requests; then transformContext → convertToLlm → getApiKey (not for the placeholder model,
 * SPEC A8) → the provider. Tool changes are
 * declared with each turn's pending messages (SPEC M5), so what `prepareRequest` does to the
 * declarations shows from the next turn on, as in pi. Each absent hook costs nothing.
 */
export function request(run: Run): Observable<Phase> {
  const { prepareRequest } = run.config;
  if (!prepareRequest) return llmRequest(run);
  return fromHook(() => prepareRequest({ context: run.context, model: run.config.model, thinkingLevel: run.thinkingLevel }, run.signal)).pipe(
    concatMap((changes) => {
      if (changes) run.update(changes);
      return llmRequest(run);
    }),
  );
}

function llmRequest(run: Run): Observable<Phase> {
  const { transformContext, convertToLlm, getApiKey } = run.config;
  // Re-watched first if a hook put another array in `context.messages`: the view below is the current one (I2).
  run.transcript();
  const view = run.context.messages;
  const withKey = (messages: unknown): Observable<Phase> => {
    if (!Array.isArray(messages)) throw new TypeError(`convertToLlm must return an array of messages, got ${typeof messages}.`);
    const { apiKey, model } = run.config;
    // The placeholder has no provider to fetch a key for: the provider says what is missing (SPEC A8).
    if (!getApiKey || isPlaceholderModel(model)) return respond(run, messages, apiKey);
    return fromHook(() => getApiKey(model.provider)).pipe(concatMap((found) => respond(run, messages, found || apiKey)));
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
}

/** The provider's response as message events, then the step with its final message. */
function respond(run: Run, messages: Message[], apiKey: string | undefined): Observable<Phase> {
  run.turns++;
  const options: StreamOptions & { signal: AbortSignal } = { ...run.streamOptions, signal: run.signal };
  if (apiKey !== undefined) options.apiKey = apiKey;
  return streamAssistantResponse({ model: run.config.model, messages, options, streamFn: run.input.streamFn, now: run.now, wait: run.emitter.wait, finish: (message) => new Responded(message) });
}

/** An error or aborted response ends the run (SPEC L6); any other runs its tool calls. */
export function afterResponse(run: Run, { message }: Responded): Observable<Phase> {
  if (message.stopReason === "error" || message.stopReason === "aborted") return finishTurn(run, new FinishTurn(message, [], false, true));
  const calls = message.content.filter((block): block is ToolCall => block.type === "toolCall");
  if (calls.length === 0) return finishTurn(run, new FinishTurn(message, [], false));
  return toolCalls(run, message, calls, toolEnvironment(run, message), calls, (batch) => new FinishTurn(message, batch.messages, !batch.terminate));
}

/**
 * The calls of `message`: none runs after a length stop (SPEC L9); else the batch, in its mode,
 * which the message's calls decide (`all`: a resumed turn runs only some of them).
 */
function toolCalls(run: Run, message: AssistantMessage, calls: readonly ToolCall[], env: ToolCallEnvironment, all: readonly ToolCall[], finish: (batch: ToolBatchResult) => FinishTurn): Observable<Phase> {
  if (message.stopReason === "length") return failTruncatedToolCalls(calls, env, run.emitter, finish);
  const sequential = run.config.toolExecution === "sequential" || all.some((call) => env.tools.find((t) => t.name === call.name)?.executionMode === "sequential");
  return executeToolBatch(calls, env, sequential, run.emitter, finish);
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
    return toolCalls(run, message, open, env, calls, (batch) => {
      // The batch answers every open call, even an aborted one (SPEC L10), in the order of `open`:
      // matched by place, not by id, so calls that share an id keep their own results.
      let next = 0;
      const messages = calls.map((call) => answered.get(call.id) ?? batch.messages[next++]!);
      // The run stops only when every result of the message asked to, the earlier ones too (SPEC L6).
      const terminate = (open.length === 0 || batch.terminate) && calls.every((call) => !answered.has(call.id) || terminated?.has(call.id) === true);
      return new FinishTurn(message, messages, !terminate);
    });
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
