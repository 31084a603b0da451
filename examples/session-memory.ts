/**
 * A durable session, in memory: an Agent journals its transcript and queues into a session
 * store; another Agent on the same session gets everything back; a fork retries from an
 * earlier message.
 *
 *   npx tsx examples/session-memory.ts
 *
 * `InMemorySessionStore` answers synchronously, so it also keeps runs in virtual time in
 * marble tests. The other stores have the same port: `rxagent/session/file` (Node),
 * `rxagent/session/indexeddb` (browsers), `rxagent/session/postgres` (services).
 */
import { lastValueFrom } from "rxjs";
import { Agent, type AgentMessage } from "../src/index.js"; // in your app: from "rxagent"
import { agentSession, forkSession, InMemorySessionStore } from "../src/session/index.js"; // from "rxagent/session"
import { fauxProvider, fauxToolCall } from "../src/testing/index.js"; // from "rxagent/testing"

const store = new InMemorySessionStore();
const model = { id: "scripted", api: "faux", provider: "faux" };
const lookup = {
  name: "lookup",
  label: "Lookup",
  description: "Looks up a word.",
  parameters: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
  replay: "safe" as const, // reads only: a resumed session may run it again
  execute: (_id: string, { word }: { word: string }) => ({ content: [{ type: "text" as const, text: `${word}: a small stream` }] }),
};

const text = (message: AgentMessage): string => {
  if (!("content" in message)) return "";
  return typeof message.content === "string" ? message.content : message.content.map((b) => (b.type === "text" ? b.text : b.type === "toolCall" ? `[${b.name}]` : "")).join("");
};
const show = (label: string, messages: readonly AgentMessage[]): void => {
  console.log(label);
  for (const m of messages) console.log(`  ${m.role.padEnd(10)} ${text(m)}`);
};

// 1. An Agent with a session: resume() opens it (a new session is created), then it works as usual.
const first = new Agent({
  initialState: { systemPrompt: "Define words.", model, tools: [lookup] },
  streamFn: fauxProvider([{ content: [fauxToolCall("lookup", { word: "rill" })] }, { content: "A rill is a small stream." }]),
  session: agentSession({ store, id: "glossary", owner: "tab-1" }),
});
await first.resume();
await first.prompt("What is a rill?");
first.followUp("And a brook?"); // queued while idle: journaled too
show("first agent:", first.state.messages);

// 2. Another Agent on the same session — after a reload, a restart, on another machine with a shared store.
const second = new Agent({
  initialState: { systemPrompt: "Define words.", model, tools: [lookup] },
  streamFn: fauxProvider([{ content: "A brook is a small stream too." }]),
  session: agentSession({ store, id: "glossary", owner: "tab-2", takeover: true }), // the first tab's lease is still running
});
await second.resume();
console.log(`second agent: ${second.state.messages.length} messages back, queued: ${second.peekQueuedMessages().map(text).join(", ")}`);
await second.continue(); // delivers the queued follow-up
show("after continue():", second.state.messages.slice(-2));

// 3. A fork: the same conversation up to the first question, asked again another way.
await lastValueFrom(forkSession(store, "glossary", "glossary-retry", { messages: 2 }));
const retry = new Agent({
  initialState: { systemPrompt: "Define words.", model, tools: [lookup] },
  streamFn: fauxProvider([{ content: "Rill: a very small brook." }]),
  session: agentSession({ store, id: "glossary-retry" }),
});
await retry.resume();
retry.clearFollowUpQueue(); // the fork carried the queue; this branch does not want it
await retry.continue();
show("fork:", retry.state.messages);
console.log(`sessions: ${store.list().map((s) => `${s.id} (${s.seq} entries)`).join(", ")}`);
