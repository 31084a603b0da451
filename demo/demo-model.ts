/**
 * The embedded demo model: a deterministic `StreamFn` that needs no API key.
 *
 * It reads the transcript like a (very small) model would: new user text is matched against a
 * handful of requests — the weather in known cities, arithmetic, the time, reading a file — and
 * answered with tool calls (several at once when they are independent); tool results are then
 * summarised. It streams real protocol events (`start`, `thinking_*`, `text_*`, `toolcall_*`,
 * `done`) with a small delay between them, so streaming is visible, and it answers an aborted
 * signal with an `aborted` message like a real provider.
 *
 * Browser-safe: no Node API. The web example uses it as is.
 *
 * @module
 */
import { asyncScheduler, type SchedulerLike } from "rxjs";
import { getCurrentTools, type Message, type Model, type StreamFn, type ToolCall, type ToolResultMessage } from "../src/index.js";
import { fauxProvider, type FauxReply } from "../src/testing/index.js";
import { CITIES } from "./tools.js";

/** The model object to put in the Agent's state. */
export const DEMO_MODEL: Model = { id: "rxagent-demo", api: "demo", provider: "rxagent", name: "rxagent demo model (offline)" };

/** Pacing of the demo model's stream. */
export interface DemoModelOptions {
  /** Milliseconds between two protocol events. 0 streams synchronously. Default 12. */
  delayMs?: number;
  /** Characters per text / thinking / argument delta. Default 6. */
  chunkSize?: number;
  /** Where the delays run. Default `asyncScheduler`; pass a `TestScheduler` for virtual time. */
  scheduler?: SchedulerLike;
}

/**
 * Creates the demo `StreamFn`. Each request computes one reply from the transcript and plays
 * it through the scripted provider from `rxagent/testing`.
 *
 * @example
 * ```ts
 * const agent = new Agent({ streamFn: demoModel(), initialState: { model: DEMO_MODEL, tools: browserTools() } });
 * await agent.prompt("What's the weather in Paris and Tokyo?");
 * ```
 */
export function demoModel(options: DemoModelOptions = {}): StreamFn {
  const delay = options.delayMs ?? 12;
  const pacing = delay > 0 ? { scheduler: options.scheduler ?? asyncScheduler, delay } : {};
  let calls = 0;
  const nextId = (): string => `demo_${++calls}`;
  return (model, context, streamOptions) => {
    const reply = planReply(context.messages, nextId);
    return fauxProvider([reply], { chunkSize: options.chunkSize ?? 6, ...pacing })(model, context, streamOptions);
  };
}

type Role = "system" | "user" | "assistant" | "toolResult";

function roleOf(message: Message): Role {
  return message.role;
}

function textOf(content: Message["content"]): string {
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/**
 * The reply to a transcript: tool results since the last assistant message are summarised,
 * then new user text (a prompt, steering or follow-up) is answered.
 */
export function planReply(messages: readonly Message[], nextId: () => string): FauxReply {
  const available = new Set(getCurrentTools(messages).map((tool) => tool.name));
  let i = messages.length - 1;
  const userTexts: string[] = [];
  while (i >= 0 && (roleOf(messages[i]!) === "user" || roleOf(messages[i]!) === "system")) {
    const message = messages[i]!;
    if (message.role === "user") userTexts.unshift(textOf(message.content));
    i--;
  }
  const results: ToolResultMessage[] = [];
  while (i >= 0 && (roleOf(messages[i]!) === "toolResult" || roleOf(messages[i]!) === "system")) {
    const message = messages[i]!;
    if (message.role === "toolResult") results.unshift(message);
    i--;
  }

  const paragraphs: string[] = [];
  if (results.length > 0) paragraphs.push(summarise(results));
  const plan = userTexts.length > 0 ? planTools(userTexts.join("\n"), available, nextId) : { calls: [], intro: "", notes: [] as string[] };
  const content: FauxReply["content"] = [];

  if (plan.calls.length > 0) {
    const steps = plan.calls.map(describeCall);
    const how = plan.calls.length > 1 ? "These are independent, so I'll run them in parallel." : "One tool call will do.";
    content.push({ type: "thinking", thinking: `The user wants: ${steps.join("; ")}. ${how}` });
    paragraphs.push(plan.intro);
  } else if (userTexts.length > 0) {
    paragraphs.push(results.length > 0 ? `Noted: “${userTexts.join(" ").trim()}”.` : help(userTexts.join(" "), available));
  } else if (results.length === 0) {
    paragraphs.push("Anything else? Ask me about the weather, arithmetic, the time, or a file in this project.");
  }
  paragraphs.push(...plan.notes);
  content.push({ type: "text", text: paragraphs.filter(Boolean).join("\n\n") }, ...plan.calls);

  const inputChars = messages.reduce((sum, message) => sum + JSON.stringify(message.content).length, 0);
  const outputChars = JSON.stringify(content).length;
  const input = Math.ceil(inputChars / 4);
  const output = Math.ceil(outputChars / 4);
  return { content, usage: { input, output, totalTokens: input + output } };
}

function describeCall(call: ToolCall): string {
  const args = call.arguments as Record<string, string>;
  switch (call.name) {
    case "get_weather":
      return `the weather in ${args.city}`;
    case "calculate":
      return `${args.expression}`;
    case "get_time":
      return args.city ? `the time in ${args.city}` : "the current time";
    case "read_file":
      return `the file ${args.path}`;
    default:
      return call.name;
  }
}

function list(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

const WORDS: [RegExp, string][] = [
  [/\bplus\b/gi, "+"],
  [/\bminus\b/gi, "-"],
  [/\b(?:times|multiplied by)\b/gi, "*"],
  [/\bdivided by\b/gi, "/"],
  [/\bsquared\b/gi, "^2"],
];
const NUMBER = String.raw`\(*\s*-?\d+(?:\.\d+)?\s*\)*`;
const OPERATOR = String.raw`(?:[-+*/^%×÷]|x(?=\s*[\d(]))`;
const EXPRESSION = new RegExp(`${NUMBER}(?:\\s*${OPERATOR}\\s*${NUMBER})+`, "g");
const FILE = /(?:^|[\s`'"(])((?:[\w.-]+\/)*[\w-][\w.-]*\.(?:json|md|ts|js|mjs|cjs|txt|html|css|ya?ml|toml))\b/i;

/** Balances the parentheses a greedy match may have cut. */
function tidyExpression(raw: string): string {
  let expression = raw.trim();
  const count = (c: string) => expression.split(c).length - 1;
  while (count(")") > count("(") && expression.endsWith(")")) expression = expression.slice(0, -1).trim();
  while (count("(") > count(")") && expression.startsWith("(")) expression = expression.slice(1).trim();
  return expression;
}

function planTools(text: string, available: Set<string>, nextId: () => string): { calls: ToolCall[]; intro: string; notes: string[] } {
  const calls: ToolCall[] = [];
  const intro: string[] = [];
  const notes: string[] = [];
  const call = (name: string, args: Record<string, unknown>): void => {
    calls.push({ type: "toolCall", id: nextId(), name, arguments: args });
  };
  const missing = (tool: string, what: string): void => {
    notes.push(`(I can't ${what} here: there is no ${tool} tool.)`);
  };
  let rest = text;

  // The time, optionally "in <city>".
  if (/\b(?:time|clock|what day|date)\b/i.test(rest)) {
    const inCity = /\btime\s+(?:is it\s+)?in\s+([A-Z][a-zA-Z]+(?:\s[A-Z][a-zA-Z]+)?)/.exec(rest);
    const city = inCity ? CITIES.find((c) => inCity[1]!.startsWith(c.name))?.name : undefined;
    if (inCity) rest = rest.replace(inCity[0], " ");
    if (available.has("get_time")) {
      call("get_time", city ? { city } : {});
      intro.push(city ? `look up the time in ${city}` : "check the clock");
    } else missing("get_time", "tell the time");
  }

  // A file to read.
  const file = FILE.exec(rest);
  if (file && /\b(?:read|show|open|cat|print|contents?|file|in)\b/i.test(rest)) {
    rest = rest.replace(file[1]!, " ");
    if (available.has("read_file")) {
      call("read_file", { path: file[1] });
      intro.push(`read ${file[1]}`);
    } else missing("read_file", `read ${file[1]}`);
  }

  // The weather in every known city mentioned (an unknown "weather in X" is tried too).
  if (/\b(?:weather|temperature|forecast|raining|sunny|warm|cold)\b/i.test(rest)) {
    const lower = rest.toLowerCase();
    const cities = CITIES.filter((c) => lower.includes(c.name.toLowerCase()))
      .sort((a, b) => lower.indexOf(a.name.toLowerCase()) - lower.indexOf(b.name.toLowerCase()))
      .map((c) => c.name);
    const unknown = /\bweather\s+(?:in|for|at)\s+([A-Z][a-zA-Z]+)/.exec(rest);
    if (cities.length === 0 && unknown) cities.push(unknown[1]!);
    if (cities.length === 0) notes.push(`Which city? I know ${list(CITIES.map((c) => c.name))}.`);
    else if (!available.has("get_weather")) missing("get_weather", "check the weather");
    else {
      for (const city of cities) call("get_weather", { city });
      intro.push(`check the weather in ${list(cities)}`);
    }
  }

  // Arithmetic, in symbols or words.
  let maths = rest;
  for (const [pattern, symbol] of WORDS) maths = maths.replace(pattern, symbol);
  const expressions = [...maths.matchAll(EXPRESSION)].map((m) => tidyExpression(m[0])).filter((e) => /\d\s*[-+*/^%×÷x]\s*[\d(-]/.test(e) || /\)\s*[-+*/^%]/.test(e));
  if (expressions.length > 0) {
    if (available.has("calculate")) {
      for (const expression of expressions) call("calculate", { expression });
      intro.push(`work out ${list(expressions)}`);
    } else missing("calculate", "do arithmetic");
  }

  // Order: as the requests were made, roughly: the weather first reads best in a demo.
  const order = ["get_weather", "calculate", "get_time", "read_file"];
  calls.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  const sentence = intro.length > 0 ? `I'll ${list(intro)}${calls.length > 1 ? " — all at once" : ""}.` : "";
  return { calls, intro: sentence, notes };
}

function summarise(results: ToolResultMessage[]): string {
  const lines = results.map((result) => {
    const text = textOf(result.content);
    if (result.isError) {
      return /aborted/i.test(text) ? `- ${result.toolName} was cancelled.` : `- ${result.toolName} failed: ${text}`;
    }
    if (result.toolName === "read_file") return `Here is ${text.replace(/:\n/, ":\n```\n")}\n\`\`\``;
    if (result.toolName === "get_time") return `- The time: ${text}.`;
    return `- ${text}`;
  });
  if (results.length === 1) return lines[0]!.replace(/^- /, "");
  return `Here's what I found:\n${lines.join("\n")}`;
}

function help(text: string, available: Set<string>): string {
  const greeting = /\b(?:hi|hello|hey)\b/i.test(text) ? "Hello! " : "";
  const can: string[] = [];
  if (available.has("get_weather")) can.push(`the weather in ${list(CITIES.slice(0, 4).map((c) => c.name))} and more`);
  if (available.has("calculate")) can.push("arithmetic like (17 + 4) * 23");
  if (available.has("get_time")) can.push("the time anywhere I know");
  if (available.has("read_file")) can.push("a file in this project, e.g. package.json");
  const skills = can.length > 0 ? ` I can help with ${list(can)}.` : " I have no tools in this session, so I can only chat.";
  return `${greeting}I'm the rxagent demo model: offline and deterministic, no API key needed.${skills}`;
}
