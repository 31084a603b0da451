/**
 * One upstream call of the proxy, as the server-sent events the browser reads. A failure
 * reaches the browser as a generic `error` event with the failure's kind and status; its text
 * goes to the server's log only, redacted.
 *
 * @module
 */
import type { Subscription } from "rxjs";
import { failedAssistantMessage } from "../../model/assistant-message.js";
import { describeError } from "../../model/describe-error.js";
import type { AssistantMessageEvent, LlmContext, Model, StreamFn, StreamOptions } from "../../model/messages.js";
import { callStreamFn, StreamFnFailure } from "../../stream/stream-fn-call.js";
import { getProviderFailure, recordProviderFailure } from "../shared/provider-failure.js";
import { ProxyEventEncoder } from "./proxy-events.js";
import { proxyError, publicFailure, publicFailureText, type ProxyError } from "./proxy-error.js";

/** One upstream call of an accepted request, and the means to end it. */
export interface UpstreamCall {
  model: Model;
  context: LlmContext;
  /** Carries the upstream signal: aborting `upstream` cancels the provider request. */
  streamOptions: StreamOptions;
  upstream: AbortController;
  /** Keys and tokens this request involved, taken out of what is logged. */
  secrets: readonly (string | undefined)[];
  /** Receives each failure's redacted detail. */
  report: (error: ProxyError) => void;
  /** Frees what the call holds (its stream slot, the client-connection watch); idempotent. */
  release: () => void;
}

const bytes = new TextEncoder();
const INCOMPLETE = "The upstream provider ended without a final done or error event";
const UNENCODABLE = "The upstream provider sent an event that could not be encoded";

/**
 * The upstream call's events as server-sent events. The stream closes after the final event
 * (an upstream failure becomes that `error` event); cancelling it aborts the upstream call.
 * An event that cannot be written as JSON (nested past the stack, a BigInt, a cycle) ends the
 * stream with a generic `error` event and stops the upstream call: any `StreamFn` may send one.
 */
export function upstreamEventStream(streamFn: StreamFn, call: UpstreamCall): ReadableStream<Uint8Array> {
  const { model, context, streamOptions, upstream, release } = call;
  let subscription: Subscription | undefined;
  let closed = false;
  const stop = () => {
    closed = true;
    release();
    upstream.abort();
    subscription?.unsubscribe();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const encoder = new ProxyEventEncoder();
      const failed = (reason: "error" | "aborted", text: string): AssistantMessageEvent => ({
        type: "error",
        reason,
        error: failedAssistantMessage(model, text, reason, streamOptions.scheduler?.now() ?? Date.now()),
      });
      const enqueue = (event: AssistantMessageEvent) => controller.enqueue(bytes.encode(`data: ${JSON.stringify(encoder.encode(event))}\n\n`));
      const close = () => {
        if (closed) return;
        closed = true;
        release();
        controller.close();
      };
      const write = (event: AssistantMessageEvent) => {
        if (closed) return;
        try {
          enqueue(event);
        } catch (error) {
          // Thrown inside the subscriber's `next`, this would escape as an unhandled error.
          call.report(proxyError(`The upstream provider sent an event that could not be encoded (${event.type}): ${describeError(error)}`, call.secrets));
          enqueue(failed("error", UNENCODABLE));
          controller.close();
          stop();
        }
      };
      // The upstream's own error events are rewritten; the ones written here are generic already.
      const send = (event: AssistantMessageEvent) => write(event.type === "error" && !closed ? publicErrorEvent(event, call) : event);
      // `callStreamFn` ends the stream at the final event and reports every failure, an
      // incomplete stream included, as one `StreamFnFailure`.
      subscription = callStreamFn(streamFn, model, context, streamOptions).subscribe({
        next: send,
        error: (error: unknown) => {
          const reason = upstream.signal.aborted ? "aborted" : "error";
          const incomplete = error instanceof StreamFnFailure && error.kind === "incomplete";
          if (reason === "error" && !incomplete) call.report(proxyError(`The upstream call failed: ${failureDetail(error)}`, call.secrets));
          write(failed(reason, incomplete ? INCOMPLETE : reason === "aborted" ? "The upstream request was aborted" : publicFailureText(undefined)));
          close();
        },
        complete: close,
      });
      // A synchronous StreamFn may have sent an unencodable event before `subscription` was set.
      if (closed) subscription.unsubscribe();
    },
    cancel: stop,
  });
}

function failureDetail(error: unknown): string {
  if (error instanceof StreamFnFailure) return error.cause !== undefined ? describeError(error.cause) : error.message;
  return describeError(error);
}

/**
 * The `error` event the browser gets for an upstream one: the same message with a generic
 * `errorMessage` and only the failure's kind, status, code and wait. The original text is reported.
 */
function publicErrorEvent(event: AssistantMessageEvent & { type: "error" }, call: UpstreamCall): AssistantMessageEvent {
  const recorded = getProviderFailure(event.error);
  const failure = recorded ? publicFailure(recorded, call.secrets) : undefined;
  if (event.reason === "aborted") {
    return { ...event, error: { ...event.error, errorMessage: "The upstream request was aborted" } };
  }
  call.report(proxyError(`The upstream provider failed: ${event.error.errorMessage ?? "(no message)"}`, call.secrets, failure));
  const error = { ...event.error, errorMessage: publicFailureText(failure) };
  if (failure) recordProviderFailure(error, failure);
  return { ...event, error };
}
