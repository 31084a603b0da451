/**
 * `traceAgent`: OpenTelemetry spans for the runs of an event stream, as an operator.
 *
 * @module
 */
import { defer, finalize, type MonoTypeOperatorFunction, tap } from "rxjs";
import type { AgentEvent } from "../model/types.js";
import { AgentEventTracer } from "./agent-event-tracer.js";
import { type AgentTracingOptions, tracingSettings } from "./tracing-options.js";

/**
 * Traces the runs of an event stream (an `agentLoop(...)`, `agent.prompt$(...)` or
 * `agent.events$`) with the OpenTelemetry GenAI conventions: an `invoke_agent` span per run,
 * a `chat {model}` span per model request and an `execute_tool {tool}` span per tool call, the
 * tool spans children of the run span (parallel calls side by side). The events pass through
 * unchanged — the same objects, in the same frames, synchronously (SPEC L12); tracing only
 * watches. Without a registered tracer provider (or when the sampler drops the run) the run's
 * span does not record and the run is not traced: an event then costs a check of one field.
 *
 * Every span ends: at `agent_end`; when the subscriber unsubscribes (or the stream completes)
 * first, with `error.type: "cancelled"`; when the stream errors, with the error. An aborted run
 * ends normally, its last answer `aborted` (`error.type: "aborted"`). Message content is recorded
 * only with `captureContent: true`.
 *
 * ```text
 * events:  a-t-(mM)-S-u-u-E-(xx)--X-X-…-Z|      agent_start, turn_start, the prompt, the answer, two tools, …, agent_end
 * result:  a-t-(mM)-S-u-u-E-(xx)--X-X-…-Z|      the same events, the same frames
 * spans:   [invoke_agent ······················]
 *              [chat faux-1 ··]
 *                             [execute_tool a ···]
 *                             [execute_tool b ·]
 * ```
 *
 * @example
 * ```ts
 * import { agentLoop } from "rxagent";
 * import { traceAgent } from "rxagent/otel";
 * agentLoop(prompts, context, { model }, undefined, streamFn)
 *   .pipe(traceAgent({ agentName: "support", model, history: context.messages }))
 *   .subscribe(render);
 * ```
 */
export function traceAgent(options: AgentTracingOptions = {}): MonoTypeOperatorFunction<AgentEvent> {
  const settings = tracingSettings(options);
  return (source) =>
    defer(() => {
      const tracer = new AgentEventTracer(settings);
      return source.pipe(
        tap({
          next: (event) => tracer.observe(event),
          error: (error: unknown) => tracer.close({ kind: "error", error }),
          // A stream that completes without agent_end cut its run short.
          complete: () => tracer.close({ kind: "cancelled" }),
        }),
        // Unsubscribed before it ended: the run was cut short.
        finalize(() => tracer.close({ kind: "cancelled" })),
      );
    });
}
