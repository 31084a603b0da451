/**
 * Custom message types: app messages in the transcript, translated for the model by `convertToLlm`.
 *
 *   npx tsx examples/custom-messages.ts
 *
 * Declaration merging on `CustomAgentMessages` adds message types to `AgentMessage`, so they
 * type-check everywhere the Agent takes or gives messages. The transcript keeps them as they
 * are; before each request `convertToLlm` decides what the model sees: here a `notice` becomes
 * a user message and a `bookmark` (UI-only) is left out.
 */
import { Agent, defaultConvertToLlm, type AgentMessage, type Message } from "../src/index.js"; // in your app: from "rxagent"
import { fauxProvider } from "../src/testing/index.js"; // in your app: from "rxagent/testing"

// In your app: `declare module "rxagent" { ... }`.
declare module "../src/index.js" {
  interface CustomAgentMessages {
    /** Something the app tells the model (a file changed, the user switched project, ...). */
    notice: { role: "notice"; text: string; level: "info" | "warning"; timestamp: number };
    /** A marker for the UI only; the model never sees it. */
    bookmark: { role: "bookmark"; label: string; timestamp: number };
  }
}

function convertToLlm(messages: AgentMessage[]): Message[] {
  return messages.flatMap((message): Message[] => {
    switch (message.role) {
      case "notice":
        return [{ role: "user", content: `[${message.level} from the app] ${message.text}`, timestamp: message.timestamp }];
      case "bookmark":
        return [];
      default:
        return defaultConvertToLlm([message]);
    }
  });
}

const model = fauxProvider([{ content: "Understood: I'll use the staging database from now on." }, { content: "Staging it is." }]);
const agent = new Agent({ streamFn: model, initialState: { systemPrompt: "You are an ops assistant.", model: model.model }, convertToLlm });

const now = Date.now();
await agent.prompt([
  { role: "bookmark", label: "Session start", timestamp: now },
  { role: "notice", level: "warning", text: "Production is read-only until 18:00.", timestamp: now },
  { role: "user", content: "Switch to the staging database.", timestamp: now },
]);
// Custom messages can be steered or queued like any other.
agent.followUp({ role: "notice", level: "info", text: "Staging was refreshed a minute ago.", timestamp: Date.now() });
await agent.continue();

console.log("transcript (what the app keeps):");
for (const message of agent.state.messages) console.log(`  ${message.role}`);
console.log("sent to the model on the last request:");
for (const message of model.requests.at(-1)!.messages) {
  const content = typeof message.content === "string" ? message.content : message.content.map((block) => ("text" in block ? block.text : "")).join("");
  console.log(`  ${message.role}: ${content}`);
}
