/**
 * provideAgent and the lifetime of what injectAgent subscribes: the factory runs once, lazily,
 * in an injection context; destroying the injector unsubscribes every signal and ends the agent
 * the factory made (a remote one closed, its run left to the server; a local one aborted), but
 * not an agent passed as it is; a component-like child
 * injector ends its own subscriptions and leaves the agent running.
 */
import { inject, InjectionToken } from "@angular/core";
import { describe, expect, it } from "vitest";
import { AGENT, injectAgent, provideAgent } from "../../src/angular/index.js";
import { Agent } from "../../src/agent/agent.js";
import type { AssistantMessage } from "../../src/model/messages.js";
import { fauxProvider } from "../../src/testing/index.js";
import { FakeRemoteAgent, zonelessInjector } from "./support.js";

describe("provideAgent", () => {
  it("runs the factory once, when the agent is first injected, where inject() works", () => {
    const NAME = new InjectionToken<string>("name");
    const made: string[] = [];
    const injector = zonelessInjector([
      { provide: NAME, useValue: "from the injector" },
      provideAgent(() => {
        made.push(inject(NAME));
        return new FakeRemoteAgent();
      }),
    ]);
    expect(made).toEqual([]);
    const first = injectAgent({ injector });
    const second = injectAgent({ injector });
    expect(made).toEqual(["from the injector"]);
    expect(first.agent).toBe(second.agent);
    expect(injector.get(AGENT)).toBe(first.agent);
    injector.destroy();
  });

  it("destroying the injector unsubscribes every signal, then closes the remote agent it made (no abort: the run is the server's)", () => {
    const remote = new FakeRemoteAgent();
    const injector = zonelessInjector([provideAgent(() => remote)]);
    const chat = injectAgent({ injector });
    injectAgent({ injector }); // a second view of the same agent
    expect(remote.counts.state$.subscribers()).toBeGreaterThan(0);
    expect(remote.counts.events$.subscribers()).toBeGreaterThan(0);
    expect(remote.counts.connection$.subscribers()).toBe(2);

    injector.destroy();
    expect(remote.subscribers()).toBe(0);
    expect(remote.calls).toEqual(["close"]);
    remote.connections.next({ status: "offline" });
    expect(chat.connection()).toEqual({ status: "connected" }); // no longer followed
  });

  it("an agent passed as it is belongs to the caller: destroying the injector ends the subscriptions only", () => {
    const remote = new FakeRemoteAgent();
    const injector = zonelessInjector([provideAgent(remote)]);
    injectAgent({ injector });
    expect(remote.subscribers()).toBeGreaterThan(0);
    injector.destroy();
    expect(remote.subscribers()).toBe(0);
    expect(remote.calls).toEqual([]);
  });

  it("signals made in a child injector (a component's) end with it, and the agent goes on", () => {
    const remote = new FakeRemoteAgent();
    const root = zonelessInjector([provideAgent(() => remote)]);
    injectAgent({ injector: root });
    const rootSubscribers = remote.subscribers();
    const child = zonelessInjector([], root);
    const view = injectAgent({ injector: child });
    expect(remote.subscribers()).toBe(2 * rootSubscribers);
    expect(view.agent).toBe(remote);

    child.destroy();
    expect(remote.subscribers()).toBe(rootSubscribers);
    expect(remote.calls).toEqual([]);
    root.destroy();
    expect(remote.subscribers()).toBe(0);
    expect(remote.calls).toEqual(["close"]);
  });

  it("a local Agent (no close()) mid-run is aborted when its injector is destroyed", async () => {
    const agent = new Agent({ streamFn: fauxProvider([{ content: "never finished", fault: "hang" }]) });
    const injector = zonelessInjector([provideAgent(() => agent)]);
    const chat = injectAgent({ injector });
    const run = chat.prompt("Hello");
    expect(chat.running()).toBe(true);
    injector.destroy();
    await run;
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.outcome).toBe("aborted");
    expect((agent.state.messages.at(-1) as AssistantMessage).stopReason).toBe("aborted");
    // The signals stopped following with the injector: a later run is not seen.
    const shown = chat.messages();
    await agent.prompt("Still there?");
    expect(agent.state.messages.length).toBeGreaterThan(shown.length);
    expect(chat.messages()).toBe(shown);
  });
});

describe("injectAgent outside an injection context", () => {
  it("fails with Angular's NG0203, naming injectAgent", () => {
    expect(() => injectAgent()).toThrow(/NG0203.*injectAgent/s);
  });

  it("fails when no agent is provided", () => {
    const injector = zonelessInjector([]);
    expect(() => injectAgent({ injector })).toThrow(/rxagent AGENT/);
    injector.destroy();
  });
});
