/**
 * A context a hook rewrites is converted afresh (I2, SPEC L4b, M5). The loop memoizes what it
 * converted and declared over the append-only transcript; hooks are handed that transcript, and
 * one that replaces a message or splices the array in place must not leave the next request with
 * the old messages or the old tool declarations.
 */
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import { createInitialSystemMessage, type AgentMessage, type Message, type SystemMessage, type StreamFn } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxRequest } from "../../src/testing/index.js";
import { collectSync, contextWith, model, textOf, textResult, tool, user } from "../helpers/fixtures.js";

const echo = tool("echo", () => textResult("echoed"));

/** A provider that records the texts each request was sent, at the time of the request. */
function recording(replies: number) {
  const sent: string[][] = [];
  const requests: FauxRequest[] = [];
  const script = Array.from({ length: replies }, (_, i) => (request: FauxRequest) => {
    sent.push(request.messages.map((m: Message) => textOf(m) || m.role));
    requests.push(request);
    return i < replies - 1 ? { content: [fauxToolCall("echo", {}, `call_${i}`)] } : { content: "done" };
  });
  return { provider: fauxProvider(script), sent, requests };
}

describe("I2: a rewritten context is converted afresh", () => {
  it("I2 L4b: prepareRequest replacing an early message in place — the next request sends the new message", () => {
    const { provider, sent } = recording(3);
    let request = 0;
    const config = {
      model,
      prepareRequest: ({ context }: { context: { messages: AgentMessage[] } }) => {
        // Not the last message the memo read: only a check of every message finds it.
        if (++request === 3) context.messages[1] = user("rewritten prompt");
        return undefined;
      },
    };
    collectSync(agentLoop([user("original prompt")], contextWith([echo]), config, undefined, provider));
    expect(sent[1]).toContain("original prompt");
    expect(sent[2]).toContain("rewritten prompt");
    expect(sent[2]).not.toContain("original prompt");
  });

  it("I2 L4b: prepareRequest compacting context.messages with splice — the next request is the compacted transcript", () => {
    const { provider, sent } = recording(3);
    let request = 0;
    const config = {
      model,
      prepareRequest: ({ context }: { context: { messages: AgentMessage[] } }) => {
        // Before the third request: keep the system prompt and the last two messages.
        if (++request === 3) context.messages.splice(1, context.messages.length - 3, user("summary"));
        return undefined;
      },
    };
    collectSync(agentLoop([user("go")], contextWith([echo]), config, undefined, provider));
    expect(sent[2]).toEqual(["You are a test agent.", "summary", "assistant", "echoed"]);
  });

  it("I2: transformContext rewriting the transcript in place and returning it", () => {
    const { provider, sent } = recording(3);
    let calls = 0;
    const config = {
      model,
      transformContext: (messages: AgentMessage[]) => {
        if (++calls === 3) messages[1] = user("pruned");
        return messages;
      },
    };
    collectSync(agentLoop([user("long prompt")], contextWith([echo]), config, undefined, provider));
    expect(sent[2]).toContain("pruned");
    expect(sent[2]).not.toContain("long prompt");
  });

  it("I2 M5: a hook that rewrites the system message declaring the tools — the loop declares them again", () => {
    const { provider, requests } = recording(3);
    let request = 0;
    const config = {
      model,
      prepareRequest: ({ context }: { context: { messages: AgentMessage[] } }) => {
        // The leading system message loses its tool declarations, in place.
        if (++request === 2) context.messages[0] = createInitialSystemMessage("You are a test agent.", []) ?? ({ role: "system", content: "You are a test agent.", timestamp: 0 } as SystemMessage);
        return undefined;
      },
    };
    const events = collectSync(agentLoop([user("go")], contextWith([echo]), config, undefined, provider));
    const announcements = events.flatMap((e) =>
      e.type === "message_end" && (e.message as SystemMessage).role === "system" && (e.message as SystemMessage).toolsAdded ? [(e.message as SystemMessage).toolsAdded!.map((t) => t.name)] : [],
    );
    expect(announcements).toEqual([["echo"]]);
    // The third request's transcript declares echo again, after the rewrite.
    const third = requests[2]!.messages.filter((m) => m.role === "system" && (m as SystemMessage).toolsAdded?.some((t) => t.name === "echo"));
    expect(third).toHaveLength(1);
  });

  it("L4b I2: hooks that are handed the transcript but leave it alone cost nothing per old message", () => {
    const reads = (turns: number): number => {
      let count = 0;
      const counted = { content: "go", timestamp: 0 } as Record<string, unknown>;
      Object.defineProperty(counted, "role", { enumerable: true, get: () => (count++, "user") });
      const script = Array.from({ length: turns - 1 }, (_, i) => ({ content: [fauxToolCall("echo", {}, `c${i}`)] }));
      const config = { model, beforeToolCall: () => undefined, afterToolCall: () => undefined, finishTurn: () => undefined, prepareRequest: () => undefined, prepareNextTurn: () => undefined };
      collectSync(agentLoop([counted as unknown as AgentMessage], contextWith([echo]), config, undefined, fauxProvider([...script, { content: "done" }])));
      return count;
    };
    expect(reads(50)).toBe(reads(5));
  });

  it("L4b: without hooks that see the transcript, the memo stays incremental (the same array grows across requests)", () => {
    const arrays: Message[][] = [];
    const provider = fauxProvider([
      (r) => ((arrays.push(r.messages), { content: [fauxToolCall("echo", {}, "a")] })),
      (r) => ((arrays.push(r.messages), { content: "done" })),
    ]);
    const seen: Message[][] = [];
    const streamFn: StreamFn = (m, context, o) => {
      seen.push(context.messages);
      return provider(m, context, o);
    };
    collectSync(agentLoop([user("go")], contextWith([echo]), { model }, undefined, streamFn));
    expect(seen[0]).toBe(seen[1]);
  });
});
