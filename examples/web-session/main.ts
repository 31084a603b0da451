/**
 * A chat page whose Agent keeps its session in IndexedDB: reload the tab, even while an answer
 * streams or a tool runs, and the chat is back where it was, with the run finished (SPEC S5).
 *
 * ```sh
 * npx vite examples/web-session           # dev server on http://127.0.0.1:5173, the demo model, no key
 * npx vite build examples/web-session     # static build in examples/web-session/dist
 * ```
 *
 * The pattern, in your app (the imports below are from `src` so the example runs from a clone):
 *
 * ```ts
 * import { Agent } from "rxagent";
 * import { IndexedDbSessionStore } from "rxagent/session/indexeddb";
 *
 * const agent = new Agent({
 *   streamFn,
 *   // A tool that only reads may run again after a reload; one with an effect keeps the
 *   // default, replay: "never", and a call it was in the middle of is answered as interrupted.
 *   initialState: { model, tools: [{ ...weatherTool, replay: "safe" }, sendEmailTool] },
 *   session: agentSession({ store: new IndexedDbSessionStore(), id: "chat-1", owner: tabName }),
 * });
 * agent.state$.subscribe(render);  // the restored transcript is drawn as soon as it is loaded
 * await agent.resume();            // loads the chat and finishes a run the last load left open
 * // now prompt as usual; only prompt on load if the chat has no user message yet
 * ```
 *
 * Try it: ask for the weather in a few cities and reload while the tools run or the answer
 * streams. Open the page in a second tab: it finds the session leased by the first and offers
 * to take it over (the first tab's next write is then refused, SPEC S3). "New chat" clears the
 * transcript, which is journaled too. The test of this pattern: test/e2e/session-reload.test.ts.
 */
import { animationFrameScheduler, auditTime } from "rxjs";
import { Agent, type AgentMessage, type AgentStateSnapshot } from "../../src/index.js"; // in your app: from "rxagent"
import { agentSession, SessionLeaseHeldError } from "../../src/session/index.js"; // in your app: from "rxagent/session"
import { IndexedDbSessionStore } from "../../src/session/stores/indexeddb-store.js"; // in your app: from "rxagent/session/indexeddb"
import { DEMO_MODEL, demoModel } from "../../demo/demo-model.js";
import { browserTools } from "../../demo/tools.js";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $("status");
const list = $("messages");
const input = $<HTMLInputElement>("input");
const send = $<HTMLButtonElement>("send");
const newChat = $<HTMLButtonElement>("new");

/**
 * This tab's name as the lease's owner. sessionStorage lives as long as the tab, reloads
 * included: a reload is the same owner and gets the session back at once, while a second tab is
 * another owner and is told the session is in use.
 */
function tabName(): string {
  let name = sessionStorage.getItem("rxagent-tab");
  if (!name) sessionStorage.setItem("rxagent-tab", (name = `tab-${Math.random().toString(36).slice(2, 10)}`));
  return name;
}

const agent = new Agent({
  streamFn: demoModel({ delayMs: 15 }),
  initialState: {
    systemPrompt: "You are a helpful assistant. Use the tools for the weather, arithmetic and the time.",
    model: DEMO_MODEL,
    // The demo's tools only read, so a call a reload cut short may simply run again.
    tools: browserTools().map((tool) => ({ ...tool, replay: "safe" as const })),
  },
  session: agentSession({
    store: new IndexedDbSessionStore({ name: "rxagent-web-session" }),
    id: "web-session",
    owner: tabName(),
    takeover: new URLSearchParams(location.search).has("takeover"),
  }),
});

// ── The chat, drawn from state$ ─────────────────────────────────────────────────────────────
const textOf = (message: AgentMessage): string => {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((block: { type: string; text?: string }) => (block.type === "text" ? block.text : "")).join("") : "";
};

function item(message: AgentMessage, streaming: boolean): HTMLLIElement {
  const li = document.createElement("li");
  const role = (message as { role: string }).role;
  li.dataset.role = role;
  if (streaming) li.dataset.streaming = "";
  if ((message as { isError?: boolean }).isError) li.dataset.error = "true";
  const calls = role === "assistant" ? (message as { content: { type: string; name?: string }[] }).content.flatMap((block) => (block.type === "toolCall" ? [block.name] : [])) : [];
  li.textContent = textOf(message) + (calls.length > 0 ? `\n→ ${calls.join(", ")}` : "");
  return li;
}

let opened = false;

function render(state: AgentStateSnapshot): void {
  const messages = state.messages.filter((message) => (message as { role: string }).role !== "system");
  const items = messages.map((message) => item(message, false));
  // The partial answer is only on screen: it is not in the journal, and a reload asks for it again.
  if (state.streamingMessage) items.push(item(state.streamingMessage, true));
  list.replaceChildren(...items);
  const busy = !opened || state.isStreaming;
  input.disabled = send.disabled = newChat.disabled = busy;
  if (opened) status.textContent = state.isStreaming ? "running…" : (state.errorMessage ?? "ready");
}

agent.state$.pipe(auditTime(0, animationFrameScheduler)).subscribe(render);

// ── Open the session, then chat ─────────────────────────────────────────────────────────────
agent.resume().then(
  () => {
    opened = true;
    // Taken over once is enough: a later reload of this tab is the owner again anyway.
    if (location.search) history.replaceState(null, "", location.pathname);
    render(snapshot());
    input.focus();
  },
  (error: unknown) => {
    if (error instanceof SessionLeaseHeldError) {
      const link = Object.assign(document.createElement("a"), { href: "?takeover", textContent: "Take it over here" });
      status.replaceChildren("This chat is open in another tab. ", link, ".");
    } else {
      status.textContent = `The session could not be opened: ${error instanceof Error ? error.message : String(error)}`;
    }
  },
);

$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = input.value.trim();
  if (!text || agent.state.isStreaming) return;
  input.value = "";
  // A refused prompt (a write the store refused, say) is the state's error too: render shows it.
  agent.prompt(text).catch((error: unknown) => (status.textContent = error instanceof Error ? error.message : String(error)));
});

newChat.addEventListener("click", () => {
  if (!agent.state.isStreaming) agent.reset();
});

function snapshot(): AgentStateSnapshot {
  let state!: AgentStateSnapshot;
  agent.state$.subscribe((value) => (state = value)).unsubscribe();
  return state;
}
