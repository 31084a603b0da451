/**
 * One MCP tool as an rxagent `AgentTool` (SPEC T1, MCP2, MCP3): its name (prefixed, in the
 * characters model APIs accept), description and input schema (in the validators' dialect), and
 * an `execute` that is an Observable of the call — progress notifications as they arrive, then
 * the result — whose teardown cancels the request on the server.
 *
 * @module
 */
import { Observable } from "rxjs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import type { TextContent } from "../model/messages.js";
import { describeError } from "../model/describe-error.js";
import { ABORTED_TOOL_TEXT, errorToolResult } from "../tools/tool-result.js";
import type { AgentTool, AgentToolResult } from "../model/tool-types.js";
import { interpretingValidator } from "../tools/validators/interpreting-validator.js";
import type { ArgumentValidator } from "../model/argument-validator.js";
import { callFailureText } from "./call-failure.js";
import { resultOverLimit, type McpLimits } from "./limits.js";
import { mcpToolName } from "./tool-name.js";
import { mcpToolResult, type McpCallResultLike, type McpResultDetails, type StructuredContentMode } from "./tool-result.js";
import { mcpToolParameters } from "./tool-schema.js";

export type { McpToolDefinition };

/** The SDK's default request timeout, which rxagent keeps. */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;

/** The reason sent with the cancellation of a call the run no longer waits for. */
export const CANCEL_REASON = "The agent stopped waiting for this tool call (the run was aborted or unsubscribed).";

/**
 * How a server's tools become rxagent tools, and how their calls behave. `maxResultBytes`,
 * `maxResultDepth` and `maxContentBlocks` bound a call's result (see {@link McpLimits}).
 */
export interface McpToolOptions extends Pick<McpLimits, "maxResultBytes" | "maxResultDepth" | "maxContentBlocks"> {
  /**
   * Put before every tool name, e.g. `"fs_"`: keeps two servers' `search` apart, and the
   * server's tools apart from the app's own. Default none.
   */
  prefix?: string | undefined;
  /**
   * How long a call may go without an answer before it fails with an error result (the request
   * is cancelled on the server). Default 60 000 ms, the SDK's.
   */
  timeoutMs?: number | undefined;
  /** A progress notification restarts the timeout: a call that reports progress is alive. Default `true`. */
  resetTimeoutOnProgress?: boolean | undefined;
  /** The longest a call may take, progress or not. Default none. */
  maxTotalTimeoutMs?: number | undefined;
  /** How `structuredContent` reaches the model (see `mcpToolResult`). Default `"auto"`. */
  structuredContent?: StructuredContentMode | undefined;
  /**
   * The validator the Agent checks arguments with (default `interpretingValidator`, as the Agent's). Each
   * tool's schema is compiled with it when the tools are listed; a schema it still cannot check
   * leaves the check to the server (the tool gets a validator that passes the arguments on), so
   * one odd schema does not make `prompt()` reject for every tool. Pass `ajvValidator` when the
   * Agent uses it. A validator that cannot run here at all (ajv where
   * code generation is refused) decides nothing: the tool gets no validator of its own, the
   * Agent's checks it, and `mcp.checkedBy` is `"agent"`.
   */
  validator?: ArgumentValidator | undefined;
  /** Which of the server's tools to offer. Default all (except those that require MCP tasks). */
  filter?: ((tool: McpToolDefinition) => boolean) | undefined;
}

/** Where the tool came from. */
export interface McpToolSource {
  /** The server's name (as the connection knows it). */
  server: string;
  /** The tool's name on the server. */
  name: string;
  /** The tool as the server listed it. */
  definition: McpToolDefinition;
  /**
   * Who checks the arguments: `"rxagent"`, the `validator` option's (it compiled the schema);
   * `"server"`, only the server (the schema did not compile); `"agent"`, the Agent's validator,
   * because the `validator` option's cannot run here (it generates code, which a strict Content
   * Security Policy refuses).
   */
  checkedBy: "rxagent" | "server" | "agent";
  /** Why the schema did not compile, when `checkedBy` is not `"rxagent"`. */
  schemaError?: string;
}

/** The details of a progress update: `progress` is the fraction done when the server gave a total. */
export interface McpProgressDetails {
  server: string;
  tool: string;
  /** `progress / total`, from 0 to 1, when the server sent a total. */
  progress?: number;
  /** The notification as the server sent it. */
  mcpProgress: { progress: number; total?: number; message?: string };
}

/** An MCP tool as an rxagent tool. */
export interface McpAgentTool extends AgentTool<Record<string, unknown>, McpResultDetails | McpProgressDetails> {
  readonly mcp: McpToolSource;
}

/** What a tool needs of the SDK client: the call. */
export type McpToolCaller = Pick<Client, "callTool">;

/** Lets every argument object through: the server validates (see `McpToolOptions.validator`). */
export const SERVER_VALIDATED: ArgumentValidator = { name: "mcp-server", compile: () => () => undefined };

/**
 * Whether a validator failed for want of code generation (`new Function` refused by a CSP, or a
 * runtime that disallows it), not because of the schema: then the schema says nothing about
 * whether another validator can check it.
 */
function refusedCodeGeneration(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === "EvalError" || /unsafe-eval|code generation from strings/i.test(error.message);
}

/** The progress notification as an update: a line for the UI, the fraction in `details.progress`. */
function progressUpdate(progress: { progress: number; total?: number; message?: string }, server: string, tool: string): AgentToolResult<McpProgressDetails> {
  const { total, message } = progress;
  const fraction = typeof total === "number" && total > 0 ? Math.min(1, Math.max(0, progress.progress / total)) : undefined;
  const mcpProgress: McpProgressDetails["mcpProgress"] = { progress: progress.progress };
  if (total !== undefined) mcpProgress.total = total;
  if (message !== undefined) mcpProgress.message = message;
  const line: TextContent = { type: "text", text: message ?? (total !== undefined ? `${progress.progress}/${total}` : `${progress.progress}`) };
  const details: McpProgressDetails = { server, tool, mcpProgress };
  if (fraction !== undefined) details.progress = fraction;
  return { content: [line], details };
}

/**
 * The tool result of a server's answer: an error result when it breaks a limit (nothing of it
 * is kept: it would ride along in every later request), or when reading it throws — a value
 * JSON cannot hold (a BigInt), a getter that throws — so the call still ends with a result
 * rather than a rejection nobody handles.
 */
function readResult(result: McpCallResultLike, options: McpToolOptions, server: string, tool: string): AgentToolResult<McpResultDetails> {
  try {
    const over = resultOverLimit(result, options, { server, tool });
    if (over) return { content: [{ type: "text", text: over.text }], details: { server, tool, limitExceeded: { limit: over.limit, actual: over.actual, max: over.max } }, isError: true };
    return mcpToolResult(result, { structuredContent: options.structuredContent, server, tool });
  } catch (error) {
    const text = `MCP server "${server}" answered "${tool}" with a result that could not be read (${describeError(error)}); it was not passed on.`;
    return { content: [{ type: "text", text }], details: { server, tool }, isError: true };
  }
}

/**
 * `definition` of `server`, called through `client`, as an rxagent tool named `name` (default:
 * {@link mcpToolName} with the prefix). `execute` returns a cold Observable: subscribing sends
 * `tools/call`; each progress notification is emitted as an update as it arrives; the result
 * (see `mcpToolResult`), or an error result saying why there is none, is the last value.
 * Unsubscribing before the answer cancels the request: the SDK sends `notifications/cancelled`,
 * and the server stops (or at least does not answer). The loop unsubscribes when the run's
 * signal aborts; a signal already aborted when the call starts sends nothing.
 *
 * ```text
 * server sends    ───p────p────────r        p: notifications/progress, r: the result
 * execute()       ───u────u────────(R|)     u: an update (tool_execution_update), R: the tool result
 *
 * server sends    ───p────p───
 * execute()       ───u────u──!              !: unsubscribed: notifications/cancelled is sent, nothing more is emitted
 * ```
 *
 * @example
 * ```ts
 * const { tools } = await client.listTools();
 * const sum = mcpAgentTool(client, tools.find((tool) => tool.name === "get-sum")!, { server: "everything" });
 * ```
 */
export function mcpAgentTool(
  client: McpToolCaller,
  definition: McpToolDefinition,
  options: McpToolOptions & {
    server?: string | undefined;
    name?: string | undefined;
    /** Whether the app closed the connection (for the text of a call it cut short). @internal */
    closedByApp?: (() => boolean) | undefined;
    /** Credentials the connection holds, kept out of a failed call's text. @internal */
    secrets?: readonly string[] | undefined;
  } = {},
): McpAgentTool {
  const server = options.server ?? "mcp";
  const name = options.name ?? mcpToolName(definition.name, options.prefix);
  const parameters = mcpToolParameters(definition.inputSchema);
  const source: McpToolSource = { server, name: definition.name, definition, checkedBy: "rxagent" };
  try {
    (options.validator ?? interpretingValidator).compile(parameters, name);
  } catch (error) {
    source.checkedBy = refusedCodeGeneration(error) ? "agent" : "server";
    source.schemaError = describeError(error);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
  const label = definition.title ?? definition.annotations?.title ?? definition.name;
  const tool: McpAgentTool = {
    name,
    label,
    description: definition.description ?? `${label} (a tool of MCP server "${server}")`,
    parameters,
    mcp: source,
    execute: (_toolCallId, params, signal) =>
      new Observable<AgentToolResult<McpResultDetails | McpProgressDetails>>((subscriber) => {
        if (signal?.aborted) {
          subscriber.next({ ...errorToolResult(ABORTED_TOOL_TEXT), isError: true });
          subscriber.complete();
          return undefined;
        }
        // No listener on `signal`: the loop unsubscribes an Observable tool when its signal
        // aborts, and one listener per call on the run's shared signal would add up.
        const controller = new AbortController();
        let settled = false;
        const finish = (result: AgentToolResult): void => {
          settled = true;
          subscriber.next(result);
          subscriber.complete();
        };
        client
          .callTool({ name: definition.name, arguments: params }, undefined, {
            signal: controller.signal,
            onprogress: (progress) => {
              if (!settled) subscriber.next(progressUpdate(progress, server, definition.name));
            },
            timeout: timeoutMs,
            resetTimeoutOnProgress: options.resetTimeoutOnProgress ?? true,
            ...(options.maxTotalTimeoutMs !== undefined ? { maxTotalTimeout: options.maxTotalTimeoutMs } : {}),
          })
          .then(
            (result) => {
              if (settled) return;
              finish(readResult(result, options, server, definition.name));
            },
            (error: unknown) => {
              if (settled) return;
              const text = callFailureText(error, { server, tool: definition.name, timeoutMs, closedByApp: options.closedByApp?.() ?? false, secrets: options.secrets });
              finish({ content: [{ type: "text", text }], details: { server, tool: definition.name }, isError: true });
            },
          );
        // Aborting after the answer would send a cancellation for a request that is over: the
        // SDK keeps its abort listener on the signal after the request settles.
        return () => {
          if (!settled) controller.abort(CANCEL_REASON);
          settled = true;
        };
      }),
  };
  if (source.checkedBy === "server") tool.validator = SERVER_VALIDATED;
  return tool;
}
