/**
 * What the demo and the chat share: the model choice (the embedded demo model, or an
 * OpenAI-compatible server from the environment), the tools, and the terminal settings.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type { AgentTool, Model, StreamFn } from "../src/index.js";
import { openaiCompatible } from "../src/providers/openai/index.js";
import { DEMO_MODEL, demoModel } from "./demo-model.js";
import { readFileTool } from "./node-tools.js";
import { browserTools } from "./tools.js";

/** The repository root: `read_file` may read below it, nothing else. */
export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The provider and model to use, and how to describe them. */
export interface ModelChoice {
  streamFn: StreamFn;
  model: Model;
  /** For the banner: "the embedded demo model" or "gpt-4o-mini at https://…". */
  label: string;
  /** Whether this is a real server (errors then get configuration hints). */
  remote: boolean;
}

/**
 * `OPENAI_BASE_URL` set: an OpenAI-compatible server (`OPENAI_API_KEY`, `OPENAI_MODEL`).
 * Otherwise the embedded demo model, which needs no key.
 */
export function chooseModel(env: NodeJS.ProcessEnv = process.env): ModelChoice {
  const baseUrl = env.OPENAI_BASE_URL?.trim();
  if (!baseUrl) return { streamFn: demoModel(), model: DEMO_MODEL, label: "the embedded demo model (offline, no API key)", remote: false };
  const id = env.OPENAI_MODEL?.trim() || "gpt-4o-mini";
  const apiKey = env.OPENAI_API_KEY?.trim() || undefined;
  const options: Parameters<typeof openaiCompatible>[0] = { baseUrl };
  if (apiKey) options.apiKey = apiKey;
  return {
    streamFn: openaiCompatible(options),
    model: { id, name: id, api: "openai-completions", provider: "openai", baseUrl },
    label: `${id} at ${baseUrl}${apiKey ? "" : " (no OPENAI_API_KEY)"}`,
    remote: true,
  };
}

/** The demo's tools: weather, calculator, clock, and `read_file` confined to the repository. */
export function demoTools(speed = 1): AgentTool[] {
  return [...browserTools({ speed }), readFileTool(REPO_ROOT)];
}

export const SYSTEM_PROMPT =
  "You are the rxagent demo assistant. Use the tools to answer: get_weather for the weather, calculate for arithmetic, " +
  "get_time for the time, read_file to read a file of this project. Call independent tools in parallel. Be brief.";

/** Colours only on a TTY, and never with NO_COLOR (FORCE_COLOR forces them). */
export function terminalSettings(stream: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv): { tty: boolean; color: boolean; columns: number } {
  const tty = stream.isTTY === true;
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0";
  const color = !argv.includes("--no-color") && env.NO_COLOR === undefined && (tty || forced);
  return { tty, color: tty && color, columns: stream.columns ?? 100 };
}

/**
 * A hint for a failed request to a real server: which setting to check. The provider's
 * message says what happened; this says what to do.
 */
export function configurationHint(errorMessage: string): string | undefined {
  if (/\bHTTP 40[13]\b/.test(errorMessage)) return "Check OPENAI_API_KEY: the server refused the key.";
  if (/\bHTTP 404\b/.test(errorMessage)) return "Check OPENAI_BASE_URL (it usually ends in /v1) and OPENAI_MODEL.";
  if (/\bHTTP 400\b/.test(errorMessage)) return "Check OPENAI_MODEL: the server rejected the request.";
  if (/could not reach|ECONNREFUSED|ENOTFOUND|fetch failed|network|Failed to parse URL|Invalid URL/i.test(errorMessage)) {
    return "Check OPENAI_BASE_URL: the server could not be reached.";
  }
  return undefined;
}
