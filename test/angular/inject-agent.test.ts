/**
 * injectAgent on a local Agent in virtual time: the signals follow a run (the streaming text
 * grows, is empty while a tool runs, messages commit, running flips), approvals appear and go,
 * queued steering and follow-up are listed until they land; on a fake remote agent, connection$
 * reaches the connection signal and the commands reach the agent.
 */
import { type EnvironmentInjector } from "@angular/core";
import { afterEach, describe, expect, it } from "vitest";
import { firstValueFrom, toArray } from "rxjs";
import { type AgentSignals, injectAgent, provideAgent } from "../../src/angular/index.js";
import { Agent } from "../../src/agent/agent.js";
import type { Message } from "../../src/model/messages.js";
import { fauxText, fauxToolCall, settleVirtualTime } from "../../src/testing/index.js";
import { FakeRemoteAgent, newScheduler, virtualAgent, waitTool, zonelessInjector } from "./support.js";

const injectors: EnvironmentInjector[] = [];
afterEach(() => {
  for (const injector of injectors.splice(0)) if (!injector.destroyed) injector.destroy();
});

/** injectAgent in a fresh zoneless injector that provides `agent`. */
function signalsOf(agent: Agent | FakeRemoteAgent): AgentSignals {
  const injector = zonelessInjector([provideAgent(() => agent)]);
  injectors.push(injector);
  return injectAgent({ injector });
}

/** What a view would show after each change of the state, read from the signals. */
interface Frame {
  frame: number;
  messages: readonly unknown[];
  text: string;
  running: boolean;
  roles: string;
  toolsRunning: number;
  approvals: string[];
  queued: string[];
}

/** Reads the signals into `frames` after every change of the state, and when `sample` is called. */
function record(chat: AgentSignals, now: () => number): { frames: Frame[]; sample: () => void } {
  const frames: Frame[] = [];
  const sample = () =>
    frames.push({
      frame: now(),
      messages: chat.messages(),
      text: chat.streamingText(),
      running: chat.running(),
      // The system message that declares the tools is left out.
      roles: chat.messages().map((message) => (message as Message).role).filter((role) => role !== "system").join(" "),
      toolsRunning: chat.state().pendingToolCalls.size,
      approvals: chat.pendingApprovals().map((approval) => approval.toolCallId),
      queued: chat.queued().map((queued) => `${queued.kind}: ${queued.text}`),
    });
  // Subscribed after the signals' own subscription, so they already hold each state when it is read.
  chat.state$.subscribe(sample);
  return { frames, sample };
}

/** The values in order, each repeat in a row dropped. */
const changes = <T>(values: T[]): T[] => values.filter((value, i) => i === 0 || value !== values[i - 1]);

describe("injectAgent on a local Agent", () => {
  it("the signals follow a run: the text grows, is empty while the tool runs, messages commit, running flips", async () => {
    const scheduler = newScheduler();
    const agent = virtualAgent(scheduler, [{ content: [fauxText("Let me check."), fauxToolCall("wait", {}, "w1")] }, { content: "All done now, thank you." }], [waitTool(scheduler, 3)]);
    const chat = signalsOf(agent);
    expect([chat.running(), chat.streamingText(), chat.messages(), chat.outcome()]).toEqual([false, "", agent.state.messages, undefined]);
    const { frames } = record(chat, () => scheduler.now());

    const done = chat.prompt("Check, please.");
    expect(chat.running()).toBe(true);
    await settleVirtualTime(scheduler, { until: done });
    await done;

    expect(changes(frames.map((f) => f.text))).toEqual([
      "",
      "Let ",
      "Let me c",
      "Let me check",
      "Let me check.",
      "",
      "All ",
      "All done",
      "All done now",
      "All done now, th",
      "All done now, thank ",
      "All done now, thank you.",
      "",
    ]);
    const toolFrames = frames.filter((f) => f.toolsRunning > 0);
    expect(new Set(toolFrames.map((f) => f.frame)).size).toBeGreaterThan(0);
    expect(toolFrames.every((f) => f.text === "" && f.running)).toBe(true);
    // The first answer committed before the tool ran, the result and the second answer after.
    expect(changes(frames.map((f) => f.roles))).toEqual(["", "user", "user assistant", "user assistant toolResult", "user assistant toolResult assistant"]);
    expect(changes(frames.map((f) => f.running))).toEqual([false, true, false]);
    // A new transcript array only when a message joined, not with every delta.
    expect(changes(frames.map((f) => f.messages))).toHaveLength(5);
    expect(chat.running()).toBe(false);
    expect(chat.outcome()).toBe("completed");
    expect(chat.error()).toBeUndefined();
    expect(chat.toolCalls().map((call) => [call.toolCallId, call.status])).toEqual([["w1", "done"]]);
    expect(chat.messages()).toEqual(agent.state.messages);
  });

  it("a call waiting for approval is listed, and leaves the list on approve(); deny() tells the model why", async () => {
    const scheduler = newScheduler();
    const guarded = waitTool(scheduler, 2, { needsApproval: true });
    const agent = virtualAgent(
      scheduler,
      [{ content: [fauxToolCall("wait", {}, "a1")] }, { content: "Waited." }, { content: [fauxToolCall("wait", {}, "a2")] }, { content: "Not waiting then." }],
      [guarded],
    );
    const chat = signalsOf(agent);
    const { frames } = record(chat, () => scheduler.now());

    const first = chat.prompt("Wait.");
    await settleVirtualTime(scheduler); // nothing left to do but wait for the human
    expect(chat.running()).toBe(true);
    expect(chat.pendingApprovals()).toEqual([{ toolCallId: "a1", toolName: "wait", args: {} }]);
    expect(chat.toolCalls().map((call) => call.status)).toEqual(["awaiting-approval"]);
    chat.approve("a1");
    await settleVirtualTime(scheduler, { until: first });
    await first;
    expect(chat.pendingApprovals()).toEqual([]);
    expect(chat.toolCalls().map((call) => call.status)).toEqual(["done"]);
    expect(changes(frames.map((f) => f.approvals.join()))).toEqual(["", "a1", ""]);

    const second = chat.prompt("Wait again.");
    await settleVirtualTime(scheduler);
    expect(chat.pendingApprovals().map((approval) => approval.toolCallId)).toEqual(["a2"]);
    chat.deny("a2", "Not now.");
    await settleVirtualTime(scheduler, { until: second });
    await second;
    expect(chat.pendingApprovals()).toEqual([]);
    expect(chat.toolCalls()).toMatchObject([{ toolCallId: "a2", status: "failed", deniedBecause: "Not now." }]);
    expect(JSON.stringify(chat.messages().at(-2))).toContain("Not now.");
  });

  it("steering and follow-up are listed from when they are sent until they land in the transcript", async () => {
    const scheduler = newScheduler();
    const agent = virtualAgent(scheduler, [{ content: [fauxToolCall("wait", {}, "w1")] }, { content: "Steered." }, { content: "Followed." }], [waitTool(scheduler, 4)]);
    const chat = signalsOf(agent);
    const { frames, sample } = record(chat, () => scheduler.now());
    chat.events$.subscribe((event) => {
      if (event.type !== "tool_execution_start") return;
      void chat.send("Also this."); // a run is going: send() steers
      chat.followUp("And later, that.");
      sample(); // the state has not changed, the queue has
    });

    const done = chat.send("Go.");
    await settleVirtualTime(scheduler, { until: done });
    await done;

    const listed = (text: string) => frames.filter((f) => f.queued.includes(text));
    const steering = listed("steering: Also this.");
    const followUp = listed("followUp: And later, that.");
    // Listed while the tool ran, before the message was in the transcript; gone once it was.
    expect(steering.some((f) => f.toolsRunning > 0)).toBe(true);
    expect(steering.at(-1)!.roles).toBe("user assistant toolResult");
    expect(frames.filter((f) => f.roles.split(" ").length >= 4).every((f) => !steering.includes(f))).toBe(true);
    expect(followUp.at(-1)!.roles).toBe("user assistant toolResult user assistant");
    expect(frames.filter((f) => f.roles.split(" ").length >= 6).every((f) => !followUp.includes(f))).toBe(true);
    expect(chat.queued()).toEqual([]);
    expect(chat.messages().map((message) => (message as Message).role)).toEqual(["system", "user", "assistant", "toolResult", "user", "assistant", "user", "assistant"]);
  });

  it("the connection of an agent in the page is connected, as a signal and as connection$", async () => {
    const chat = signalsOf(new Agent());
    expect(chat.connection()).toEqual({ status: "connected" });
    expect(await firstValueFrom(chat.connection$.pipe(toArray()))).toEqual([{ status: "connected" }]);
  });
});

describe("injectAgent on a remote agent (a fake AgentLike)", () => {
  it("connection$ reaches the connection signal", () => {
    const remote = new FakeRemoteAgent();
    const chat = signalsOf(remote);
    expect(chat.connection()).toEqual({ status: "connected" }); // nothing said yet
    remote.connections.next({ status: "reconnecting", attempt: 1, delayMs: 500 });
    expect(chat.connection()).toEqual({ status: "reconnecting", attempt: 1, delayMs: 500 });
    remote.connections.next({ status: "offline" });
    expect(chat.connection()).toEqual({ status: "offline" });
    remote.connections.next({ status: "connected" });
    expect(chat.connection().status).toBe("connected");
  });

  it("the state follows state$, and the commands reach the agent", async () => {
    const remote = new FakeRemoteAgent();
    const chat = signalsOf(remote);
    remote.states.next({ ...remote.state, isStreaming: true, errorMessage: "slow", outcome: undefined });
    expect([chat.running(), chat.error()]).toEqual([true, "slow"]);
    await chat.send("steered, as a run is going");
    remote.states.next({ ...remote.state, isStreaming: false, outcome: "failed" });
    await chat.send("prompted, as none is");
    chat.followUp("later");
    chat.approve("c1");
    chat.deny("c2", "no");
    chat.abort();
    expect(remote.calls).toEqual(["steer", "prompt", "followUp", "approve c1", "deny c2 no", "abort"]);
    expect(chat.outcome()).toBe("failed");
    expect(chat.queued().map((queued) => queued.kind)).toEqual(["steering", "followUp"]);
  });

  it("a message the remote agent refuses leaves the queued list; send() rejects with the refusal, steer() and followUp() do not throw", async () => {
    const remote = new FakeRemoteAgent();
    const chat = signalsOf(remote);
    remote.states.next({ ...remote.state, isStreaming: true });
    await chat.send("accepted");
    remote.refusing = new Error("409: no run to steer");
    const refused = chat.send("refused");
    expect(chat.queued().map((queued) => queued.text)).toEqual(["accepted", "refused"]); // listed while the request goes
    await expect(refused).rejects.toThrow("409: no run to steer");
    expect(chat.queued().map((queued) => queued.text)).toEqual(["accepted"]);
    chat.steer("refused too");
    chat.followUp("and this");
    expect(chat.queued()).toHaveLength(3);
    await Promise.resolve(); // the refusals' callbacks run
    await Promise.resolve();
    expect(chat.queued().map((queued) => queued.text)).toEqual(["accepted"]);
  });
});
