/**
 * The attribute names and values the spans carry: OpenTelemetry's GenAI semantic conventions
 * (development status; the current names, what `OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`
 * selects elsewhere), plus the few `rxagent.*` attributes the conventions have no name for.
 *
 * @internal
 * @module
 */
import type { StopReason } from "../model/messages.js";

/** GenAI semantic-convention attribute keys, by what they hold. */
export const ATTR = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  agentDescription: "gen_ai.agent.description",
  agentVersion: "gen_ai.agent.version",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  finishReasons: "gen_ai.response.finish_reasons",
  timeToFirstChunk: "gen_ai.response.time_to_first_chunk",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheCreationTokens: "gen_ai.usage.cache_creation.input_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolDescription: "gen_ai.tool.description",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  errorType: "error.type",
  httpStatusCode: "http.response.status_code",
  serverAddress: "server.address",
  serverPort: "server.port",
  /** rxagent's own: the 1-based turn of the run a chat or tool span belongs to. */
  turn: "rxagent.turn",
  /** rxagent's own: what became of a call when its run was aborted (SPEC R4), when the loop says. */
  toolCancellation: "rxagent.tool.cancellation",
  /** rxagent's own: the run limit that ended the run (SPEC R2), when one did. */
  limit: "rxagent.limit",
  /** rxagent's own: on an approval event (SPEC R1), whether the call was approved. */
  approved: "rxagent.approved",
  /** rxagent's own: the span was ended because tracing stopped (the listener was removed, or tracing failed), not by the run. */
  tracingStopped: "rxagent.tracing_stopped",
} as const;

/** `gen_ai.operation.name` values. */
export const OPERATION = { invokeAgent: "invoke_agent", chat: "chat", executeTool: "execute_tool" } as const;

/**
 * `error.type` values, low-cardinality as the conventions ask (a run whose event stream itself
 * errors reports the thrown error's name instead).
 */
export const ERROR_TYPE = {
  /** The model request ended with `stopReason: "error"` (SPEC M4; also a hook that failed, A6). */
  provider: "provider_error",
  /** The tool call's result is an error result (SPEC T3). */
  tool: "tool_error",
  /** The run was aborted through its signal (`agent.abort()`): an `aborted` answer (SPEC L10). */
  aborted: "aborted",
  /** The run was unsubscribed, or its event stream ended, before `agent_end` (SPEC L10 hard cancel). */
  cancelled: "cancelled",
  /** Tracing itself failed (a tracer, exporter or option reader threw): the span was ended then, the run went on. */
  tracing: "tracing_error",
} as const;

// rxagent and pi-ai provider ids that the conventions name differently; others pass as they are.
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  google: "gcp.gemini",
  "google-gemini-cli": "gcp.gemini",
  "google-vertex": "gcp.vertex_ai",
  "amazon-bedrock": "aws.bedrock",
  mistral: "mistral_ai",
  xai: "x_ai",
  "azure-openai": "azure.ai.openai",
  "azure-openai-responses": "azure.ai.openai",
};

/** `gen_ai.provider.name` for an rxagent `provider` id: the conventions' name where there is one. */
export function providerName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}

/** `gen_ai.response.finish_reasons` entry for a stop reason (the conventions' `tool_call` for `toolUse`). */
export function finishReason(stopReason: StopReason): string {
  return stopReason === "toolUse" ? "tool_call" : stopReason;
}

/** `server.address` and `server.port` of a model's `baseUrl`, when it has one that parses. */
export function serverOf(baseUrl: unknown): { address: string; port: number } | undefined {
  if (typeof baseUrl !== "string" || baseUrl === "") return undefined;
  try {
    const url = new URL(baseUrl);
    if (!url.hostname) return undefined;
    const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : url.protocol === "http:" ? 80 : undefined;
    return port === undefined ? undefined : { address: url.hostname, port };
  } catch {
    return undefined;
  }
}
