/**
 * Turns one stream of agent events into spans, one run at a time: what the operator and the
 * listener share.
 *
 * @internal
 * @module
 */
import { diag } from "@opentelemetry/api";
import type { AgentEvent } from "../model/types.js";
import { RunTrace } from "./run-trace.js";
import type { RunClosure } from "./span-failure.js";
import type { TracingSettings } from "./tracing-options.js";

/**
 * Follows the events of consecutive runs. Between runs, and for the whole of a run whose span
 * does not record (no tracer provider registered, or the run sampled out), an event costs a
 * check or two: nothing is read, allocated or timed. A failure of tracing itself (an exporter,
 * sampler or option reader that throws) is reported through `diag` and stops tracing that run,
 * never the run: its open spans end then, marked `error.type: "tracing_error"` (SPEC O4).
 */
export class AgentEventTracer {
  private run: RunTrace | undefined;

  constructor(private readonly settings: TracingSettings) {}

  observe(event: AgentEvent): void {
    const run = this.run;
    if (run === undefined) {
      if (event.type === "agent_start") this.start();
      return;
    }
    if (event.type === "agent_start") {
      // A run that never reached agent_end on this stream: it is over as far as these events tell.
      this.close({ kind: "cancelled" });
      this.start();
      return;
    }
    try {
      if (run.observe(event)) this.run = undefined;
    } catch (error) {
      this.run = undefined;
      diag.error("rxagent/otel: tracing this run failed; its remaining events are not traced", error);
      this.end(run, { kind: "failed", error });
    }
  }

  /** Ends the open run's spans, if a run is open. */
  close(closure: RunClosure): void {
    const run = this.run;
    if (run === undefined) return;
    this.run = undefined;
    this.end(run, closure);
  }

  private end(run: RunTrace, closure: RunClosure): void {
    try {
      run.close(closure);
    } catch (error) {
      diag.error("rxagent/otel: ending this run's spans failed", error);
    }
  }

  private start(): void {
    try {
      this.run = RunTrace.start(this.settings);
    } catch (error) {
      diag.error("rxagent/otel: starting the run span failed; this run is not traced", error);
    }
  }
}
