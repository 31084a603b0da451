/**
 * How a span says it failed. An error text may quote model output, tool arguments or a key an
 * upstream echoed back, so it is content: without `captureContent` a failed span carries the
 * kind of failure (`error.type`) and the HTTP status a provider recorded, never the text; with
 * it, the text goes through `redactSecrets` first.
 *
 * @internal
 * @module
 */
import { type Span, SpanStatusCode } from "@opentelemetry/api";
import { describeError } from "../model/describe-error.js";
import type { AssistantMessage } from "../model/messages.js";
import { redactSecrets } from "../model/redact-secrets.js";
import { getProviderFailure } from "../model/provider-failure.js";
import { ATTR, ERROR_TYPE } from "./attributes.js";

/** How the open spans of a run end when the run did not reach `agent_end`. */
export type RunClosure =
  /** Unsubscribed, or the event stream ended, first (SPEC L10 hard cancel). */
  | { kind: "cancelled" }
  /** The event stream errored. */
  | { kind: "error"; error: unknown }
  /** Tracing stopped (a listener removed), the run may go on. */
  | { kind: "stopped" }
  /** Tracing itself failed (a tracer, exporter or option reader threw); the run goes on, untraced. */
  | { kind: "failed"; error: unknown };

/** Marks a span failed, the conventions' way: status ERROR with a description, and `error.type`. */
export function fail(span: Span, errorType: string, description: string): void {
  span.setAttribute(ATTR.errorType, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message: description });
}

/** The name of what was thrown: an `Error`'s, else `_OTHER` (the conventions' fallback). */
function errorName(error: unknown): string {
  return error instanceof Error ? error.name || "Error" : "_OTHER";
}

/** A thrown error as a span description: its text (redacted) with `captureContent`, its name without. */
function thrownText(error: unknown, capture: boolean): string {
  return capture ? redactSecrets(describeError(error)) : errorName(error);
}

/** How a span still open when its run is closed early ends (see {@link RunClosure}). */
export function closureStatus(span: Span, closure: RunClosure, capture: boolean): void {
  switch (closure.kind) {
    case "cancelled":
      fail(span, ERROR_TYPE.cancelled, "The run was cancelled (unsubscribed) before agent_end");
      return;
    case "error":
      fail(span, errorName(closure.error), thrownText(closure.error, capture));
      return;
    case "stopped":
      span.setAttribute(ATTR.tracingStopped, true);
      return;
    case "failed":
      // The run did not fail, its tracing did: said so, so the span is not read as the run's error.
      span.setAttribute(ATTR.tracingStopped, true);
      fail(span, ERROR_TYPE.tracing, `Tracing this run failed: ${thrownText(closure.error, capture)}`);
      return;
  }
}

/** Records the exception of a run whose event stream errored: its name, and its redacted text only with `captureContent`. */
export function recordRunException(span: Span, error: unknown, capture: boolean, time: Parameters<Span["recordException"]>[1]): void {
  if (capture) span.recordException(error instanceof Error ? { name: error.name, message: redactSecrets(error.message), ...(error.stack ? { stack: redactSecrets(error.stack) } : {}) } : redactSecrets(describeError(error)), time);
  else span.recordException({ name: errorName(error) }, time);
}

/**
 * An `error` answer fails its span; an `aborted` one was stopped (the conventions count a
 * cancelled operation as failed). The HTTP status a provider recorded is an attribute.
 */
export function answerStatus(span: Span, message: AssistantMessage, capture: boolean): void {
  if (message.stopReason !== "error" && message.stopReason !== "aborted") return;
  const status = getProviderFailure(message)?.status;
  if (status !== undefined) span.setAttribute(ATTR.httpStatusCode, status);
  if (message.stopReason === "aborted") {
    fail(span, ERROR_TYPE.aborted, capture && message.errorMessage ? redactSecrets(message.errorMessage) : "The run was aborted");
    return;
  }
  const generic = status !== undefined ? `The model request failed (HTTP ${status})` : "The model request failed";
  fail(span, ERROR_TYPE.provider, capture && message.errorMessage ? redactSecrets(message.errorMessage) : generic);
}
