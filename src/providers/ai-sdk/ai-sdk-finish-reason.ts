/**
 * AI SDK finish reasons → rxagent stop reasons.
 *
 * @internal
 * @module
 */
import type { DoneReason } from "../shared/message-builder.js";
import { StreamFailure } from "../shared/stream-failure.js";
import type { AiSdkFinishReason } from "./ai-sdk-types.js";

/**
 * The stop reason of a finished response, given how many tool calls it made for the app to
 * run. `stop` and `other` become `toolUse` when there are such calls (a provider may say
 * `stop` for them) and `tool-calls` becomes `stop` when there are none (the calls were
 * executed by the provider). `content-filter`, `error` and `interrupted` are failures: they
 * throw a `StreamFailure` that becomes the final `error` message.
 *
 * | AI SDK | rxagent |
 * | --- | --- |
 * | `stop`, `other` | `stop` (`toolUse` with tool calls) |
 * | `tool-calls` | `toolUse` (`stop` without tool calls) |
 * | `length` | `length` |
 * | `content-filter` | error, kind `refused` |
 * | `error` | error, kind `stream` |
 * | `interrupted` | error, kind `network`, retryable |
 *
 * @example
 * ```ts
 * toStopReason({ unified: "tool-calls", raw: "tool_use" }, 1); // "toolUse"
 * ```
 */
export function toStopReason(finishReason: AiSdkFinishReason | undefined, toolCalls: number): DoneReason {
  const unified = finishReason?.unified;
  const raw = finishReason?.raw;
  const said = raw && raw !== unified ? ` (${raw})` : "";
  switch (unified) {
    case "stop":
    case "other":
    case undefined:
      return toolCalls > 0 ? "toolUse" : "stop";
    case "tool-calls":
      return toolCalls > 0 ? "toolUse" : "stop";
    case "length":
      return "length";
    case "content-filter":
      throw new StreamFailure(`The provider stopped the response: finish reason content-filter${said} (the output was blocked by its content filter)`, {
        kind: "refused",
        code: raw ?? "content-filter",
        retryable: false,
      });
    case "interrupted":
      throw new StreamFailure("The stream ended before the response was finished: the connection was closed early", { kind: "network", retryable: true });
    case "error":
      throw new StreamFailure(`The provider ended the response with finish reason error${said}`, { kind: "stream", ...(raw ? { code: raw } : {}), retryable: false });
    default:
      // A reason newer than this bridge: not a failure it can name, so the answer stands.
      return toolCalls > 0 ? "toolUse" : "stop";
  }
}
