/**
 * Tracing for the stateful `Agent`: a listener for `agent.subscribe`, and `instrumentAgent`,
 * which watches the Agent's `events$` and reads its model, transcript and tools itself.
 *
 * @module
 */
import type { Agent } from "../agent/agent.js";
import type { AgentEvent } from "../model/types.js";
import { AgentEventTracer } from "./agent-event-tracer.js";
import { type AgentTracingOptions, tracingSettings } from "./tracing-options.js";

/**
 * An Agent listener that traces the runs it hears, and can end the spans it holds open.
 *
 * @example
 * ```ts
 * const tracing: TracingListener = tracingListener({ agentName: "support" });
 * agent.subscribe(tracing);
 * ```
 */
export interface TracingListener {
  (event: AgentEvent): void;
  /**
   * Ends the spans of a run still open (marked `rxagent.tracing_stopped`): call it after
   * removing the listener mid-run, or the run's spans never end.
   */
  close(): void;
}

/**
 * A listener for `agent.subscribe` that traces the Agent's runs as `traceAgent` does. It
 * returns nothing, so the Agent never waits for it and a synchronous run stays synchronous
 * (SPEC L12, A5). An Agent's run always reaches `agent_end`, an aborted or unsubscribed one too
 * (its last answer `aborted`), so the spans end with the run.
 *
 * ```text
 * listener:  a-t-(mM)-S-u-E-(xx)-X-X-…-Z      every event, as the Agent tells it
 * spans:     [invoke_agent ·················]
 *                [chat ···]  [execute_tool ×2]
 * ```
 *
 * @example
 * ```ts
 * import { tracingListener } from "rxagent/otel";
 * const tracing = tracingListener({ agentName: "support", model: () => agent.state.model });
 * const remove = agent.subscribe(tracing);
 * // later, mid-run or not:
 * remove();
 * tracing.close();
 * ```
 */
export function tracingListener(options: AgentTracingOptions = {}): TracingListener {
  const tracer = new AgentEventTracer(tracingSettings(options));
  const listener = (event: AgentEvent): void => tracer.observe(event);
  return Object.assign(listener, { close: () => tracer.close({ kind: "stopped" }) });
}

/**
 * The parts of an `Agent` that {@link instrumentAgent} reads.
 *
 * @example
 * ```ts
 * const traced: InstrumentedAgent = agent;
 * ```
 */
export type InstrumentedAgent = Pick<Agent, "events$" | "state" | "sessionId">;

/**
 * Traces every run of `agent` (SPEC O1–O4), as `traceAgent` does, reading from the Agent what
 * the options leave out: at each `agent_start` the run's model (the run span's
 * `gen_ai.request.model`, `gen_ai.provider.name`, `server.*`), the transcript before the run
 * (for `gen_ai.input.messages`, with `captureContent`) and the Agent's `sessionId` (as
 * `gen_ai.conversation.id`); at each tool call, the tools' descriptions. An option given
 * `undefined` counts as left out. It watches `agent.events$` rather than adding a listener: the Agent
 * tells `events$` each event as it happens and never waits on it, so tracing costs a run one
 * call per event, and nothing the Agent waits for (SPEC A5, L11). Returns a function that stops
 * tracing: it unsubscribes and ends the spans of a run still open.
 *
 * ```text
 * agent.events$:  a-t-(mM)-S-u-E-(xx)-X-X-…-Z      every event of every run
 * spans:          [invoke_agent ·················]
 *                     [chat ···]  [execute_tool ×2]
 * ```
 *
 * @example
 * ```ts
 * import { instrumentAgent } from "rxagent/otel";
 * const stop = instrumentAgent(agent, { agentName: "support" });
 * await agent.prompt("Where is my parcel?");
 * stop();
 * ```
 */
export function instrumentAgent(agent: InstrumentedAgent, options: AgentTracingOptions = {}): () => void {
  const tracer = new AgentEventTracer(
    tracingSettings({
      ...options,
      // The Agent's own values stand in for options left out or given as `undefined`.
      model: options.model ?? (() => agent.state.model),
      // Read only when content is recorded: the transcript view is copied once per change (SPEC I1).
      history: options.history ?? (options.captureContent ? () => agent.state.messages : undefined),
      tools: options.tools ?? (() => agent.state.tools),
      conversationId: options.conversationId ?? (() => agent.sessionId),
    }),
  );
  const subscription = agent.events$.subscribe((event) => tracer.observe(event));
  return () => {
    subscription.unsubscribe();
    tracer.close({ kind: "stopped" });
  };
}
