import { describe, expect, it } from "vitest";
import * as core from "../src/core.js";
import * as full from "../src/index.js";
import { agentSession } from "../src/session/agent-session.js";
import { InMemorySessionStore } from "../src/session/stores/memory-store.js";
import { fauxProvider, fauxToolCall } from "../src/testing/index.js";
import { collectSync, contextWith, model, textResult, tool, user } from "./helpers/fixtures.js";

const validator = core.interpretingValidator;

describe("scratch", () => {
  it("A: core loop, prepareRequest adds a needsApproval tool: runs unasked?", () => {
    const ran: string[] = [];
    const guarded = tool("rm", () => (ran.push("rm"), textResult("removed")), { type: "object" }, { needsApproval: true });
    const events = collectSync(core.agentLoop([user("go")], contextWith([]), {
      model, validator,
      prepareRequest: ({ context }) => ({ context: { ...context, tools: [guarded] } }),
    }, undefined, fauxProvider([{ content: [fauxToolCall("rm", {}, "r1")] }, { content: "done" }])));
    console.log("A ran:", ran, events.filter(e => e.type === "tool_execution_end").map((e: any) => [e.isError, JSON.stringify(e.result.content)]));
  });

  it("B: core Agent, prepareNextTurn adds needsApproval tool", async () => {
    const ran: string[] = [];
    const plain = tool("ls", () => (ran.push("ls"), textResult("files")));
    const guarded = tool("rm", () => (ran.push("rm"), textResult("removed")), { type: "object" }, { needsApproval: true });
    const agent = new core.Agent({ initialState: { model, tools: [plain] }, validator,
      streamFn: fauxProvider([{ content: [fauxToolCall("ls", {}, "l1")] }, { content: [fauxToolCall("rm", {}, "r1")] }, { content: "done" }]),
      prepareNextTurn: (turn) => ({ context: { ...turn.context, tools: [plain, guarded] } }),
    });
    const seen: string[] = [];
    agent.subscribe((e) => { if (e.type.startsWith("tool_approval")) seen.push(e.type); });
    await agent.prompt("go");
    console.log("B ran:", ran, "approval events:", seen, agent.state.errorMessage);
  });

  it("B2: same with full Agent (rxagent) for comparison", async () => {
    const ran: string[] = [];
    const plain = tool("ls", () => (ran.push("ls"), textResult("files")));
    const guarded = tool("rm", () => (ran.push("rm"), textResult("removed")), { type: "object" }, { needsApproval: true });
    const agent = new full.Agent({ initialState: { model, tools: [plain] },
      streamFn: fauxProvider([{ content: [fauxToolCall("ls", {}, "l1")] }, { content: [fauxToolCall("rm", {}, "r1")] }, { content: "done" }]),
      prepareNextTurn: (turn) => ({ context: { ...turn.context, tools: [plain, guarded] } }),
    });
    const seen: string[] = [];
    agent.subscribe((e) => { if (e.type === "tool_approval_request") { seen.push(e.type); agent.deny(e.toolCallId, "no"); } });
    await agent.prompt("go");
    console.log("B2 ran:", ran, "approval events:", seen);
  });

  it("C: two Agents sharing a session: second prompts without resume, unjournaled", async () => {
    const store = new InMemorySessionStore();
    const session = agentSession({ store, id: "s" });
    const first = new full.Agent({ initialState: { model }, streamFn: fauxProvider([{ content: "one" }]), session });
    const second = new full.Agent({ initialState: { model }, streamFn: fauxProvider([{ content: "two" }]), session });
    await first.resume();
    let err: unknown;
    try { await second.prompt("from second"); } catch (e) { err = e; }
    const entries = store.load("s")!.entries;
    console.log("C second.prompt error:", err && String(err), "second messages:", second.state.messages.length, "journal types:", entries.map((e: any) => e.type));
  });

  it("D: agent.runControl = undefined on rxagent Agent", async () => {
    const agent = new full.Agent({ initialState: { model }, streamFn: fauxProvider([{ content: "x" }]), limits: { maxTurns: 1 } });
    agent.runControl = undefined;
    await agent.prompt("go");
    console.log("D ok limit", agent.state.limit);
  });

  it("E: core loop, concurrencyKey tool via prepareRequest: lanes ignored?", () => {
    const order: string[] = [];
    const keyed = tool("k", (id) => new Promise((r) => { order.push("start " + id); setTimeout(() => { order.push("end " + id); r(textResult("ok")); }, 5); }) as any, { type: "object" }, { concurrencyKey: () => "same" });
    void keyed;
  });

  it("F: resume() while run active and session open: message", async () => {
    const store = new InMemorySessionStore();
    let release!: () => void;
    const hang = tool("hang", () => new Promise((r) => { release = () => r(textResult("x")); }));
    const agent = new full.Agent({ initialState: { model, tools: [hang] }, streamFn: fauxProvider([{ content: [fauxToolCall("hang", {}, "h")] }, { content: "d" }]), session: agentSession({ store, id: "s" }) });
    await agent.resume();
    const p = agent.prompt("go");
    await new Promise((r) => setTimeout(r, 10));
    let msg = "";
    try { await agent.resume(); } catch (e) { msg = String(e); }
    release(); await p;
    console.log("F:", msg);
  });
});
