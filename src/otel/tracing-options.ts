/**
 * The options of `traceAgent`, `tracingListener` and `instrumentAgent`, and what they resolve
 * to once: the tracer, the clock and the readers of what may change between runs.
 *
 * @module
 */
import { type Attributes, type Context, type Tracer, type TracerProvider, trace } from "@opentelemetry/api";
import type { Model, Tool } from "../model/messages.js";
import type { AgentMessage } from "../model/types.js";
import { ATTR } from "./attributes.js";
import { epochNow } from "./span-clock.js";

/**
 * The model a run is configured with, as far as tracing reads it. A `Model` fits.
 *
 * @example
 * ```ts
 * const model: TracedModel = { id: "gpt-4o-mini", provider: "openai", baseUrl: "https://api.openai.com/v1" };
 * ```
 */
export type TracedModel = Pick<Model, "id" | "provider"> & { baseUrl?: string | undefined };

/**
 * A value, or a function read each time the value is needed, for what changes between runs:
 * `conversationId`, `model` and `history` at each `agent_start`, `tools` at each
 * `tool_execution_start` (so a tool added mid-run is described too).
 *
 * @example
 * ```ts
 * traceAgent({ conversationId: () => currentThread.id });
 * ```
 */
export type PerRun<T> = T | (() => T);

/**
 * How runs are traced. Every field is optional: `traceAgent()` traces through the global tracer
 * provider and records no message content.
 *
 * @example
 * ```ts
 * const options: AgentTracingOptions = { agentName: "support", tracerProvider: provider, captureContent: false };
 * agent.events$.pipe(traceAgent(options)).subscribe();
 * ```
 */
export interface AgentTracingOptions {
  /** Where spans go. Default: the tracer of the global provider (`trace.setGlobalTracerProvider`, an SDK's `register()`). */
  tracerProvider?: TracerProvider | undefined;
  /** A tracer to use as it is; wins over `tracerProvider`. */
  tracer?: Tracer | undefined;
  /** `gen_ai.agent.name`; the run span is then named `invoke_agent {agentName}`. */
  agentName?: string | undefined;
  /** `gen_ai.agent.id`. */
  agentId?: string | undefined;
  /** `gen_ai.agent.description`. */
  agentDescription?: string | undefined;
  /** `gen_ai.agent.version`. */
  agentVersion?: string | undefined;
  /** `gen_ai.conversation.id` on the run and chat spans (a session id, a thread id). */
  conversationId?: PerRun<string | undefined> | undefined;
  /**
   * The run's configured model: the run span's `gen_ai.request.model` and `gen_ai.provider.name`
   * at its start (the conventions want both there, for sampling), and `server.address` /
   * `server.port` from its `baseUrl`. Without it the run span takes the provider from the first
   * answer. Chat spans always name the model each answer reports.
   */
  model?: PerRun<TracedModel | undefined> | undefined;
  /** `gen_ai.provider.name` for every span, instead of the one derived from the model's `provider`. */
  providerName?: string | undefined;
  /**
   * Records message content (OpenTelemetry's "opt-in" attributes): `gen_ai.input.messages` and
   * `gen_ai.output.messages` on chat spans (and the prompts and the final answer on the run
   * span), `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result` on tool spans, and the
   * text of a tool's error result as its span status. Default `false`: prompts, answers,
   * arguments and results may hold personal data. Costs a JSON rendering of the transcript per
   * request.
   */
  captureContent?: boolean | undefined;
  /**
   * The transcript before the run, so `gen_ai.input.messages` is everything the model was sent
   * (with `captureContent`). The operator sees only the run's own messages otherwise: pass the
   * `context.messages` given to `agentLoop`. `instrumentAgent` reads the Agent's transcript itself.
   */
  history?: PerRun<readonly AgentMessage[] | undefined> | undefined;
  /** The run's tools, for `gen_ai.tool.description`: a function is read at each `tool_execution_start`. */
  tools?: PerRun<readonly Pick<Tool, "name" | "description">[] | undefined> | undefined;
  /** More attributes for every run span (a tenant, a deployment). */
  attributes?: Attributes | undefined;
  /**
   * The parent of the run span. Default: the context active when `agent_start` arrives (the
   * caller's span, with a context manager registered).
   */
  parentContext?: Context | undefined;
  /**
   * The clock for span times, in milliseconds since the epoch (`performance.timeOrigin +
   * performance.now()` by default). Pass `() => scheduler.now()` to time spans in virtual time
   * (the spans are then dated from 1970, their durations in frames).
   */
  now?: (() => number) | undefined;
}

/** The options, resolved once. @internal */
export interface TracingSettings {
  readonly tracer: Tracer;
  readonly now: () => number;
  readonly capture: boolean;
  readonly agentName: string | undefined;
  readonly runAttributes: Attributes;
  readonly providerName: string | undefined;
  readonly parentContext: Context | undefined;
  readonly conversationId: () => string | undefined;
  readonly model: () => TracedModel | undefined;
  readonly history: () => readonly AgentMessage[] | undefined;
  readonly tools: () => readonly Pick<Tool, "name" | "description">[] | undefined;
}

/** The tracer's instrumentation scope. */
export const TRACER_NAME = "rxagent";

function reader<T>(value: PerRun<T> | undefined): () => T | undefined {
  if (typeof value === "function") return value as () => T;
  return () => value;
}

/** Resolves `options`: the tracer is asked for once, here. @internal */
export function tracingSettings(options: AgentTracingOptions): TracingSettings {
  const runAttributes: Attributes = {};
  if (options.agentName !== undefined) runAttributes[ATTR.agentName] = options.agentName;
  if (options.agentId !== undefined) runAttributes[ATTR.agentId] = options.agentId;
  if (options.agentDescription !== undefined) runAttributes[ATTR.agentDescription] = options.agentDescription;
  if (options.agentVersion !== undefined) runAttributes[ATTR.agentVersion] = options.agentVersion;
  Object.assign(runAttributes, options.attributes);
  return {
    tracer: options.tracer ?? (options.tracerProvider ?? trace.getTracerProvider()).getTracer(TRACER_NAME),
    now: options.now ?? epochNow,
    capture: options.captureContent === true,
    agentName: options.agentName,
    runAttributes,
    providerName: options.providerName,
    parentContext: options.parentContext,
    conversationId: reader(options.conversationId),
    model: reader(options.model),
    history: reader(options.history),
    tools: reader(options.tools),
  };
}
