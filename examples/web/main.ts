/**
 * The web example: an Agent in the browser.
 *
 * - The chat is drawn from `agent.state$` (the transcript plus the message being streamed),
 *   at most once per animation frame.
 * - The tool panel is drawn from `agent.events$`: `toolCalls()` from `rxagent/operators` gives
 *   each call's state after each of its events; `agent_start` clears it.
 * - Send → `agent.prompt()`, Steer → `agent.steer()`, Follow-up → `agent.followUp()`,
 *   Stop → `agent.abort()`.
 *
 * Model: the embedded demo model by default (no key, nothing leaves the page). With
 * `?proxy=/api/stream` it streams through a proxy server that holds the provider key
 * (`examples/web/proxy-server.ts`), authenticating with `?token=` (default `dev-token`).
 *
 * Validator: `interpretingValidator` by default, so the page runs under
 * `Content-Security-Policy: script-src 'self'` (no eval). `?validator=precompiled` uses ajv
 * standalone code generated at build time (the Vite plugin in `vite.config.ts`);
 * `?validator=ajv` uses ajv itself, which compiles with `new Function` and so fails under that
 * policy.
 */
import { animationFrameScheduler, auditTime, fromEvent, map, merge } from "rxjs";
import {
  Agent,
  ajvValidator,
  interpretingValidator,
  precompiledValidator,
  type AgentMessage,
  type AgentStateSnapshot,
  type ArgumentValidator,
  type AssistantMessage,
  type Model,
  type StreamFn,
} from "../../src/index.js"; // in your app: from "rxagent"
import { ofType, toolCalls, type ToolCallState } from "../../src/operators/index.js"; // in your app: from "rxagent/operators"
import { streamProxy } from "../../src/providers/proxy/index.js"; // in your app: from "rxagent/proxy"
import { DEMO_MODEL, demoModel } from "../../demo/demo-model.js";
import { browserTools } from "../../demo/tools.js";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

// ── The model: demo (default) or through the proxy ─────────────────────────────────────────
const params = new URLSearchParams(location.search);
const proxyUrl = params.get("proxy");
let streamFn: StreamFn;
let model: Model;
if (proxyUrl) {
  streamFn = streamProxy({ url: proxyUrl, authToken: params.get("token") ?? "dev-token" });
  model = { id: params.get("model") ?? DEMO_MODEL.id, api: params.get("api") ?? DEMO_MODEL.api, provider: params.get("provider") ?? DEMO_MODEL.provider };
  $("mode").textContent = `model ${model.id} through the proxy at ${proxyUrl}`;
} else {
  streamFn = demoModel({ delayMs: Number(params.get("delay") ?? 15) });
  model = DEMO_MODEL;
  $("mode").textContent = "the embedded demo model: offline, no API key";
}

// ── The validator of tool arguments: CSP-safe unless asked for ajv ───────────────────────
const VALIDATOR_NAMES = ["interpreting", "precompiled", "ajv"] as const;
type ValidatorName = (typeof VALIDATOR_NAMES)[number];
const requested = params.get("validator") ?? "interpreting";
const validatorName: ValidatorName = (VALIDATOR_NAMES as readonly string[]).includes(requested) ? (requested as ValidatorName) : "interpreting";

async function chooseValidator(name: ValidatorName): Promise<ArgumentValidator> {
  if (name === "ajv") return ajvValidator;
  if (name === "interpreting") return interpretingValidator;
  // Loaded on demand: the generated code is a chunk of its own, fetched only for this choice.
  const { validators } = await import("virtual:rxagent-tool-validators");
  // Tools added at run time have no generated code: the interpreter checks those.
  return precompiledValidator(validators, { fallback: interpretingValidator });
}

const agent = new Agent({
  streamFn,
  validator: await chooseValidator(validatorName),
  initialState: {
    systemPrompt: "You are a helpful assistant. Use the tools for the weather, arithmetic and the time. Call independent tools in parallel.",
    model,
    tools: browserTools({ speed: Number(params.get("speed") ?? 1) }),
  },
});
// For the end-to-end test and for poking around in the console.
(window as unknown as { agent: Agent }).agent = agent;
$("validator").textContent = validatorName === requested ? validatorName : `${validatorName} (unknown validator "${requested}")`;
$("validator").dataset.validator = validatorName;

// ── Chat, drawn from state$ ──────────────────────────────────────────────────────────────────
type Role = "user" | "assistant" | "toolResult" | "system";

function roleOf(message: AgentMessage): Role {
  return (message as { role: Role }).role;
}

function textOf(message: AgentMessage): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block: { type: string; text?: string }) => (block.type === "text" ? block.text : "")).join("");
}

function messageItem(message: AgentMessage, streaming: boolean): HTMLLIElement {
  const item = document.createElement("li");
  const role = roleOf(message);
  item.className = role + (streaming ? " streaming" : "");
  item.dataset.role = role;
  if (role === "assistant") {
    const assistant = message as AssistantMessage;
    for (const block of assistant.content) {
      if (block.type === "thinking") item.append(span("thinking", block.thinking));
    }
    item.append(span("text", textOf(message)));
    const calls = assistant.content.flatMap((block) => (block.type === "toolCall" ? [`${block.name}(${JSON.stringify(block.arguments)})`] : []));
    if (calls.length > 0) item.append(span("calls", `→ ${calls.join(", ")}`));
    if (!streaming && (assistant.stopReason === "aborted" || assistant.stopReason === "error")) {
      item.classList.add(assistant.stopReason);
      item.append(span("note", assistant.stopReason === "aborted" ? "⏹ aborted" : `⚠ ${assistant.errorMessage ?? "error"}`));
    }
  } else {
    item.textContent = textOf(message);
  }
  return item;
}

function span(className: string, text: string): HTMLSpanElement {
  const element = document.createElement("span");
  element.className = className;
  element.textContent = text;
  return element;
}

const list = $("messages");
let drawn: readonly AgentMessage[] = [];
let live: HTMLLIElement | undefined;
/** Follow new messages unless the user scrolled up to read; scrolling back to the bottom resumes. */
let stickToBottom = true;
const NEAR_BOTTOM_PX = 24;
fromEvent(list, "scroll").subscribe(() => {
  stickToBottom = list.scrollHeight - list.scrollTop - list.clientHeight <= NEAR_BOTTOM_PX;
});
function scrollToEnd(): void {
  list.scrollTop = list.scrollHeight;
  stickToBottom = true;
}

function renderMessages(state: AgentStateSnapshot): void {
  // The transcript only grows during a run: append what is new; redraw after a reset.
  const visible = state.messages.filter((message) => roleOf(message) !== "system");
  if (visible.length < drawn.length || visible[drawn.length - 1] !== drawn[drawn.length - 1]) {
    list.replaceChildren();
    drawn = [];
  }
  live?.remove();
  live = undefined;
  for (const message of visible.slice(drawn.length)) list.append(messageItem(message, false));
  drawn = visible;
  if (state.streamingMessage) {
    live = messageItem(state.streamingMessage, true);
    list.append(live);
  }
  for (const failure of promptFailures.splice(0)) list.append(failure);
  if (stickToBottom) scrollToEnd();
}

// A prompt the Agent refused (e.g. a tool schema its validator cannot compile) never reaches
// the transcript: show it as a bubble of its own, and as the error in the state panel.
const promptFailures: HTMLLIElement[] = [];
let promptError: string | undefined;

function failPrompt(error: unknown): void {
  promptError = error instanceof Error ? error.message : String(error);
  const item = document.createElement("li");
  item.className = "failure";
  item.dataset.role = "failure";
  item.textContent = `⚠ ${promptError}`;
  promptFailures.push(item);
  renderState(snapshotNow());
}

// The run's outcome first: a Stop sets `errorMessage` too ("Request was aborted"). An error with
// no run to account for it (a stream given to steerFrom() or answerApprovals() failed while a
// run went, which then completed) is still an error.
function statusOf(state: AgentStateSnapshot): "running" | "aborted" | "error" | "idle" {
  if (state.isStreaming) return "running";
  if (state.outcome === "aborted") return "aborted";
  if (state.outcome === "failed" || promptError) return "error";
  if (state.errorMessage !== undefined && state.outcome !== "limit") return "error";
  return "idle";
}

function renderState(state: AgentStateSnapshot): void {
  renderMessages(state);
  const status = statusOf(state);
  $("status").textContent = status;
  $("status").dataset.status = status;
  $("isStreaming").textContent = String(state.isStreaming);
  $("messageCount").textContent = String(state.messages.length);
  $("pending").textContent = String(state.pendingToolCalls.size);
  $("queued").textContent = String(agent.peekQueuedMessages().length);
  $("error").textContent = state.errorMessage ?? promptError ?? "–";
  $<HTMLButtonElement>("send").disabled = state.isStreaming;
  $<HTMLButtonElement>("steer").disabled = !state.isStreaming;
  $<HTMLButtonElement>("followup").disabled = !state.isStreaming;
  $<HTMLButtonElement>("stop").disabled = !state.isStreaming;
}

// At most one redraw per animation frame, however fast the deltas arrive.
agent.state$.pipe(auditTime(0, animationFrameScheduler)).subscribe(renderState);

// ── Tools, drawn from events$ ────────────────────────────────────────────────────────────────
const toolList = $("tools");
const rows = new Map<string, HTMLLIElement>();

/** The row of a call, made the first time the call shows up. */
function toolRow(call: ToolCallState): HTMLLIElement {
  const existing = rows.get(call.toolCallId);
  if (existing) return existing;
  const row = document.createElement("li");
  row.dataset.tool = call.toolName;
  const bar = document.createElement("progress");
  bar.max = 1;
  row.append(span("name", `${call.toolName}(${Object.values(call.args ?? {}).join(", ")})`), document.createElement("br"), bar, span("step", "starting…"));
  rows.set(call.toolCallId, row);
  toolList.append(row);
  return row;
}

function renderToolCall(call: ToolCallState): void {
  const row = toolRow(call);
  const bar = row.querySelector("progress")!;
  const step = row.querySelector(".step")!;
  if (call.status === "running" || call.status === "awaiting-approval") {
    row.dataset.status = call.status;
    if (!call.partialResult) return;
    const details = call.partialResult.details as { progress?: number; step?: string } | undefined;
    if (typeof details?.progress === "number") bar.value = details.progress;
    row.dataset.progress = String(Math.round((details?.progress ?? 0) * 100));
    step.textContent = ` ${details?.step ?? textOf({ role: "toolResult", content: call.partialResult.content } as AgentMessage)}`;
    return;
  }
  // Ended: done, or failed (an error result, an abort, a denied approval).
  const text = call.result ? call.result.content.map((block) => (block.type === "text" ? block.text : "")).join(" ") : (call.deniedBecause ?? "denied");
  row.dataset.status = call.status === "done" ? "done" : /aborted/i.test(text) ? "aborted" : "error";
  if (call.status === "done") bar.value = 1;
  step.textContent = ` ${text}`;
}

// A new run starts with an empty panel.
agent.events$.pipe(ofType("agent_start")).subscribe(() => {
  toolList.replaceChildren();
  rows.clear();
});
agent.events$.pipe(toolCalls()).subscribe(renderToolCall);

// ── Buttons ──────────────────────────────────────────────────────────────────────────────────
const input = $<HTMLTextAreaElement>("input");
const take = (): string => {
  const text = input.value.trim();
  input.value = "";
  return text;
};

const send$ = merge(
  fromEvent<SubmitEvent>($("composer"), "submit"),
  fromEvent<KeyboardEvent>(input, "keydown").pipe(map((event) => (event.key === "Enter" && !event.shiftKey ? event : undefined))),
);
send$.subscribe((event) => {
  if (!event) return;
  event.preventDefault();
  const text = take();
  if (!text) return;
  // The user just sent something: show its answer even if they had scrolled up.
  scrollToEnd();
  // While a run is active, Enter steers instead of failing.
  if (agent.state.isStreaming) agent.steer(text);
  else {
    promptError = undefined;
    agent.prompt(text).catch(failPrompt);
  }
});
fromEvent($("steer"), "click").subscribe(() => {
  const text = take();
  if (text) agent.steer(text);
  renderState(snapshotNow());
});
fromEvent($("followup"), "click").subscribe(() => {
  const text = take();
  if (text) agent.followUp(text);
  renderState(snapshotNow());
});
fromEvent($("stop"), "click").subscribe(() => agent.abort());

function snapshotNow(): AgentStateSnapshot {
  let snapshot!: AgentStateSnapshot;
  agent.state$.subscribe((state) => (snapshot = state)).unsubscribe();
  return snapshot;
}

input.focus();
