/**
 * OpenTelemetry tracing for rxagent runs, with the GenAI semantic conventions: an
 * `invoke_agent` span per run, `chat {model}` per model request, `execute_tool {tool}` per tool
 * call. As an operator on any event stream ({@link traceAgent}), as an Agent listener
 * ({@link tracingListener}), or wired to an Agent in one call ({@link instrumentAgent}).
 *
 * Needs `@opentelemetry/api` (an optional peer dependency of rxagent): install it, and an SDK
 * to export the spans. Without a registered tracer provider nothing is traced and a run costs
 * what it costs untraced.
 *
 * @example
 * ```ts
 * import { instrumentAgent } from "rxagent/otel";
 * instrumentAgent(agent, { agentName: "support" });
 * ```
 *
 * @module rxagent/otel
 */
export { traceAgent } from "./trace-agent.js";
export { instrumentAgent, tracingListener, type InstrumentedAgent, type TracingListener } from "./tracing-listener.js";
export type { AgentTracingOptions, PerRun, TracedModel } from "./tracing-options.js";
