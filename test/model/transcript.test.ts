/**
 * The transcript owns the system prompt and the tool declarations (SPEC M5): replaying system
 * messages, and the loop announcing tool changes before a request.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { agentLoop, agentLoopContinue } from "../../src/loop/agent-loop.js";
import {
  createInitialSystemMessage,
  getCurrentSystemMessage,
  getCurrentTools,
  getSystemPrompt,
  getToolChanges,
  toToolDeclaration,
  type AgentEvent,
  type AgentMessage,
  type AgentTool,
  type SystemMessage,
} from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { agentEnd, collectSync, committed, contextWith, model, roles, textResult, tool, user } from "../helpers/fixtures.js";
import { newScheduler } from "../helpers/marbles.js";

const read = tool("read", () => textResult("file"), { type: "object", properties: { path: { type: "string" } } });
const write = tool("write", () => textResult("ok"), { type: "object", properties: { path: { type: "string" }, text: { type: "string" } } });
const ls = tool("ls", () => textResult("a b"));

function system(content: string, extra: Partial<SystemMessage> = {}): SystemMessage {
  return { role: "system", content, timestamp: 0, ...extra };
}

function systemMessages(messages: readonly AgentMessage[]): SystemMessage[] {
  return messages.filter((m): m is SystemMessage => (m as { role: string }).role === "system");
}

describe("M5: replaying the transcript", () => {
  it("M5: the leading system message is the prompt; later ones append content and replace or delete sections", () => {
    const messages: AgentMessage[] = [
      system("You are terse.", { sections: { env: "cwd: /a", rules: "no rm" } }),
      user("hi"),
      system("Also be kind.", { sections: { env: "cwd: /b" } }),
      system("", { sections: { rules: null } }),
    ];
    expect(getSystemPrompt(messages)).toBe("You are terse.\n\nAlso be kind.\n\ncwd: /b");
    expect(getCurrentSystemMessage(messages)).toEqual({ role: "system", content: "You are terse.\n\nAlso be kind.", sections: { env: "cwd: /b" }, timestamp: 0 });
    expect(getCurrentSystemMessage([user("x")])).toBeUndefined();
    expect(getSystemPrompt([])).toBe("");
  });

  it("M5: tools are added and removed by system messages, in declaration order", () => {
    const messages: AgentMessage[] = [createInitialSystemMessage("p", [read, write])!, user("x"), system("", { toolsRemoved: [{ name: "read" }], toolsAdded: [toToolDeclaration(ls)] })];
    expect(getCurrentTools(messages).map((t) => t.name)).toEqual(["write", "ls"]);
    expect(getCurrentTools(messages)[0]).toEqual({ name: "write", description: "write tool", parameters: write.parameters });
    expect(getCurrentSystemMessage(messages)?.toolsAdded?.map((t) => t.name)).toEqual(["write", "ls"]);
  });

  it("M5: createInitialSystemMessage declares plain-JSON copies of the tools, and nothing for an empty setup", () => {
    const message = createInitialSystemMessage("prompt", [read])!;
    expect(message.toolsAdded).toEqual([{ name: "read", description: "read tool", parameters: read.parameters }]);
    expect(message.toolsAdded![0]).not.toHaveProperty("execute");
    expect(message.toolsAdded![0]!.parameters).not.toBe(read.parameters);
    expect(createInitialSystemMessage(undefined, [])).toBeUndefined();
  });

  it("M5: getToolChanges — a changed definition is a removal plus an addition", () => {
    const changed = { ...read, description: "read a file" };
    const changes = getToolChanges([read, write], [changed, ls]);
    expect(changes.toolsRemoved).toEqual([{ name: "read" }, { name: "write" }]);
    expect(changes.toolsAdded.map((t) => [t.name, t.description])).toEqual([
      ["read", "read a file"],
      ["ls", "ls tool"],
    ]);
    expect(getToolChanges([read], [read])).toEqual({ toolsAdded: [], toolsRemoved: [] });
  });

  it("M5 S1: a declaration whose schema keys come back in another order (a store such as jsonb reorders them) is the same tool", () => {
    const declared = { name: "t", description: "d", parameters: { type: "object", properties: { b: { type: "string" }, a: { type: "number" } }, required: ["a"] } };
    const reordered = { description: "d", parameters: { required: ["a"], properties: { a: { type: "number" }, b: { type: "string" } }, type: "object" }, name: "t" };
    expect(getToolChanges([reordered], [declared])).toEqual({ toolsAdded: [], toolsRemoved: [] });
    // A real change is still one.
    const other = { ...declared, parameters: { ...declared.parameters, properties: { a: { type: "string" }, b: { type: "string" } } } };
    expect(getToolChanges([declared], [other]).toolsAdded.map((t) => t.name)).toEqual(["t"]);
  });
});

describe("M5: the loop announces tool changes before the request", () => {
  it("M5: executable tools that the transcript does not declare are announced in a system message before the prompt", () => {
    const provider = fauxProvider([{ content: "ok" }]);
    const history = [createInitialSystemMessage("prompt", [read])!];
    const events = collectSync(agentLoop([user("go")], { messages: history, tools: [write, ls] }, { model }, undefined, provider));
    const added = agentEnd(events).messages;
    expect(roles(added)).toEqual(["system", "user", "assistant"]);
    const announcement = added[0] as SystemMessage;
    expect(announcement).toEqual({ role: "system", content: "", timestamp: expect.any(Number), toolsAdded: [toToolDeclaration(write), toToolDeclaration(ls)], toolsRemoved: [{ name: "read" }] });
    expect(roles(provider.requests[0]!.messages)).toEqual(["system", "system", "user"]);
    expect(getCurrentTools([...history, ...added]).map((t) => t.name)).toEqual(["write", "ls"]);
  });

  it("M5: the announcement is merged into a pending system message (its own tool fields are intent and get replaced)", () => {
    const provider = fauxProvider([{ content: "ok" }]);
    const pending = system("Switch to review mode.", { sections: { mode: "review" }, toolsAdded: [toToolDeclaration(ls)] });
    const events = collectSync(agentLoop([pending, user("go")], contextWith([read], []), { model }, undefined, provider));
    // context declares read; executable tools are still [read]: the pending intent (add ls) is replaced by the real delta (none)
    const added = agentEnd(events).messages;
    expect(roles(added)).toEqual(["system", "user", "assistant"]);
    expect(added[0]).toEqual({ role: "system", content: "Switch to review mode.", sections: { mode: "review" }, timestamp: 0 });

    const changed = collectSync(agentLoop([system("Now you can write."), user("go")], { messages: contextWith([read]).messages, tools: [read, write] }, { model }, undefined, fauxProvider([{ content: "ok" }])));
    const merged = agentEnd(changed).messages;
    expect(roles(merged)).toEqual(["system", "user", "assistant"]);
    expect(merged[0]).toEqual({ role: "system", content: "Now you can write.", timestamp: 0, toolsAdded: [toToolDeclaration(write)] });
  });

  it("M5: with nothing to announce the pending messages are committed untouched (same objects)", () => {
    const pending = system("note");
    const prompt = user("go");
    const events = collectSync(agentLoop([pending, prompt], contextWith([read]), { model }, undefined, fauxProvider([{ content: "ok" }])));
    const messages = agentEnd(events).messages;
    expect(messages[0]).toBe(pending);
    expect(messages[1]).toBe(prompt);
  });

  it("M5: a pending system message is announced after earlier pending system messages, before the first other message", () => {
    const events = collectSync(agentLoop([system("a"), user("go"), system("b")], { messages: [], tools: [read] }, { model }, undefined, fauxProvider([{ content: "ok" }])));
    const messages = agentEnd(events).messages;
    // the last pending system message carries the change
    expect(messages.map((m) => (m as SystemMessage).toolsAdded?.map((t) => t.name) ?? null)).toEqual([null, null, ["read"], null]);
  });

  it("M5: a tool change between turns (prepareNextTurn replaces the context) is announced before the next request", () => {
    const provider = fauxProvider([{ content: [fauxToolCall("read", {}, "1")] }, { content: "done" }]);
    const events = collectSync(
      agentLoop([user("go")], contextWith([read]), { model, prepareNextTurn: ({ context }) => ({ context: { ...context, tools: [read, write] } }) }, undefined, provider),
    );
    const messages = agentEnd(events).messages;
    expect(roles(messages)).toEqual(["user", "assistant", "toolResult", "system", "assistant"]);
    expect((messages[3] as SystemMessage).toolsAdded?.map((t) => t.name)).toEqual(["write"]);
    expect(roles(provider.requests[1]!.messages).slice(-2)).toEqual(["toolResult", "system"]);
  });

  it("M5: a tool list changed in place (a tool that loads a tool) is announced before the next request", () => {
    const context = contextWith([read]);
    const loader = tool("load", () => {
      context.tools!.push(write);
      return textResult("loaded write");
    });
    context.tools!.push(loader);
    context.messages = contextWith([read, loader]).messages;
    const provider = fauxProvider([{ content: [fauxToolCall("load", {}, "1")] }, { content: [fauxToolCall("write", {}, "2")] }, { content: "done" }]);
    const events = collectSync(agentLoop([user("go")], context, { model }, undefined, provider));
    const messages = agentEnd(events).messages;
    expect(roles(messages)).toEqual(["user", "assistant", "toolResult", "system", "assistant", "toolResult", "assistant"]);
    expect(messages[3]).toMatchObject({ role: "system", toolsAdded: [toToolDeclaration(write)] });
    expect(roles(provider.requests[1]!.messages).slice(-1)).toEqual(["system"]);
  });

  it("M5: a transcript compacted in place (the declaring system message spliced out) gets the tools announced again", () => {
    const provider = fauxProvider([{ content: [fauxToolCall("read", {}, "1"), fauxToolCall("read", {}, "2")] }, { content: "done" }]);
    collectSync(
      agentLoop([user("go")], { messages: [createInitialSystemMessage("prompt", [read])!, user("old")], tools: [read] }, {
        model,
        // compaction in place: the old head (system prompt and an old question) becomes one summary
        prepareNextTurn: ({ context }) => {
          context.messages.splice(0, 2, user("summary"));
          return undefined;
        },
      }, undefined, provider),
    );
    expect(provider.requests.map((r) => getCurrentTools(r.messages).map((t) => t.name))).toEqual([["read"], ["read"]]);
  });

  it("M5: the announcement is made once — the next turn sees the tools declared", () => {
    const provider = fauxProvider([{ content: [fauxToolCall("read", {}, "1")] }, { content: [fauxToolCall("read", {}, "2")] }, { content: "done" }]);
    const events = collectSync(agentLoop([user("go")], { messages: [], tools: [read] }, { model }, undefined, provider));
    expect(systemMessages(committed(events))).toHaveLength(1);
  });

  it("M5: agentLoopContinue announces a changed tool set in the first turn too", () => {
    const provider = fauxProvider([{ content: "ok" }]);
    const events = collectSync(agentLoopContinue({ messages: [...contextWith([read]).messages, user("go")], tools: [] }, { model }, undefined, provider));
    const messages = agentEnd(events).messages;
    expect(roles(messages)).toEqual(["system", "assistant"]);
    expect(messages[0]).toMatchObject({ toolsRemoved: [{ name: "read" }] });
    expect(messages[0]).not.toHaveProperty("toolsAdded");
  });

  it("M5: the announcement's timestamp comes from the loop's clock", () => {
    const scheduler = newScheduler();
    let events: AgentEvent[] = [];
    scheduler.run(({ cold }) => {
      cold("7ms x").subscribe(() => {
        events = collectSync(agentLoop([user("go")], { messages: [], tools: [ls] }, { model, scheduler }, undefined, fauxProvider([{ content: "ok" }])));
      });
    });
    expect(agentEnd(events).messages[0]).toMatchObject({ role: "system", timestamp: 7 });
  });

  it("M5: a replaced transcript (prepareRequest) is read from scratch for declarations", () => {
    const fresh: AgentMessage[] = [createInitialSystemMessage("fresh", [])!, user("summary")];
    const provider = fauxProvider([{ content: [fauxToolCall("read", {}, "1")] }, { content: "done" }]);
    let request = 0;
    const events = collectSync(
      agentLoop([user("go")], contextWith([read]), {
        model,
        prepareNextTurn: ({ context }) => (++request === 1 ? { context: { ...context, messages: fresh.slice() } } : undefined),
      }, undefined, provider),
    );
    // the fresh transcript declares no tools: read is announced again
    const messages = agentEnd(events).messages;
    expect(systemMessages(messages).map((m) => m.toolsAdded?.map((t) => t.name))).toEqual([["read"]]);
  });
});

describe("M5: property — replaying the transcript always yields exactly the executable tools", () => {
  const pool: AgentTool[] = [read, write, ls, tool("grep", () => textResult("hits"))];
  const readV2 = { ...read, description: "read a file, v2" };
  const subset = (tools: readonly AgentTool[]) => fc.subarray(tools.slice());
  const pendingMessage = fc.oneof(
    fc.constant<"user">("user"),
    fc.record({ added: subset([...pool, readV2]), removed: subset(pool), content: fc.constantFrom("", "note") }),
  );

  it("M5: for random declared tools, pending system messages and executable tools, the request's transcript declares exactly the executable tools", () => {
    fc.assert(
      fc.property(subset(pool), fc.array(pendingMessage, { maxLength: 4 }), subset([...pool, readV2]), (declared, pendingSpec, executableSpec) => {
        // a tool name appears once in the executable set
        const executable = executableSpec.filter((t, i) => executableSpec.findIndex((u) => u.name === t.name) === i);
        const pending: AgentMessage[] = pendingSpec.map((p) =>
          p === "user"
            ? user("hello")
            : system(p.content, {
                ...(p.added.length ? { toolsAdded: p.added.filter((t, i) => p.added.findIndex((u) => u.name === t.name) === i).map(toToolDeclaration) } : {}),
                ...(p.removed.length ? { toolsRemoved: p.removed.map((t) => ({ name: t.name })) } : {}),
              }),
        );
        const provider = fauxProvider([{ content: "ok" }]);
        const history: AgentMessage[] = [createInitialSystemMessage("prompt", declared) ?? user("start")];
        const events = collectSync(agentLoop(pending, { messages: history, tools: executable }, { model }, undefined, provider));
        const sent = provider.requests[0]!.messages;
        const byName = (tools: readonly { name: string }[]) => [...tools].sort((a, b) => a.name.localeCompare(b.name));
        expect(byName(getCurrentTools(sent))).toEqual(byName(executable.map(toToolDeclaration)));
        // the non-system pending messages are committed as they are, in order
        const added = agentEnd(events).messages.slice(0, -1);
        expect(added.filter((m) => (m as { role: string }).role !== "system")).toEqual(pending.filter((m) => (m as { role: string }).role !== "system"));
        // a pending system message absorbs the change; otherwise at most one announcement is added
        const systemsBefore = pending.filter((m) => (m as { role: string }).role === "system").length;
        const systemsAfter = added.filter((m) => (m as { role: string }).role === "system").length;
        expect(systemsAfter - systemsBefore).toBe(systemsBefore > 0 ? 0 : systemsAfter > 0 ? 1 : 0);
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it("M5: when the tools change between turns, every request's transcript declares exactly that turn's tools", () => {
    fc.assert(
      fc.property(subset(pool), fc.array(subset([...pool, readV2]), { minLength: 1, maxLength: 4 }), fc.boolean(), (declared, turns, inPlace) => {
        const sets = turns.map((set) => set.filter((t, i) => set.findIndex((u) => u.name === t.name) === i));
        // every turn but the last calls a tool, so the run goes on; the call fails (unknown), which is fine here
        const script = sets.map((_, i) => (i < sets.length - 1 ? { content: [fauxToolCall("unknown", {}, `c${i}`)] } : { content: "done" }));
        const provider = fauxProvider(script);
        let turn = 0;
        const history: AgentMessage[] = [createInitialSystemMessage("prompt", declared) ?? user("start")];
        // a new tool list per turn, or the same array changed in place
        const prepareNextTurn = ({ context }: { context: { tools?: AgentTool[] } }) => {
          const next = sets[++turn]!;
          if (!inPlace) return { context: { ...context, tools: next } } as never;
          context.tools!.splice(0, context.tools!.length, ...next);
          return undefined;
        };
        collectSync(agentLoop([user("go")], { messages: history, tools: sets[0]!.slice() }, { model, prepareNextTurn }, undefined, provider));
        expect(provider.requests).toHaveLength(sets.length);
        const byName = (tools: readonly { name: string }[]) => [...tools].sort((a, b) => a.name.localeCompare(b.name));
        provider.requests.forEach((request, i) => expect(byName(getCurrentTools(request.messages))).toEqual(byName(sets[i]!.map(toToolDeclaration))));
        return true;
      }),
      { numRuns: 200 },
    );
  });
});
