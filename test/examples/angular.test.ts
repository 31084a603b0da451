/**
 * The Angular service example, exercised in a real injection context
 * (`createEnvironmentInjector` + `runInInjectionContext`), no Angular app build: its signals
 * follow `state$` and `events$`, its methods drive the Agent, and destroying the injector
 * ends the subscriptions and aborts the run.
 */
import { createEnvironmentInjector, inject, Injector, runInInjectionContext, type EnvironmentInjector } from "@angular/core";
import { filter, firstValueFrom } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { DEMO_MODEL, demoModel } from "../../demo/demo-model.js";
import { browserTools } from "../../demo/tools.js";
import { AGENT_OPTIONS, AgentService, provideAgent } from "../../examples/angular/agent.service.js";
import type { AssistantMessage } from "../../src/index.js";

const injectors: EnvironmentInjector[] = [];

/** An environment injector with the service's providers (an app would use its root injector as parent). */
function createInjector(): EnvironmentInjector {
  const injector = createEnvironmentInjector(
    provideAgent(() => ({ streamFn: demoModel({ delayMs: 1 }), initialState: { systemPrompt: "Test.", model: DEMO_MODEL, tools: browserTools({ speed: 0.05 }) } })),
    Injector.NULL as EnvironmentInjector,
  );
  injectors.push(injector);
  return injector;
}

afterEach(() => {
  for (const injector of injectors.splice(0)) if (!injector.destroyed) injector.destroy();
});

describe("examples/angular AgentService", () => {
  it("is created in an injection context and starts with the Agent's state", () => {
    const injector = createInjector();
    const service = runInInjectionContext(injector, () => inject(AgentService));
    expect(service).toBeInstanceOf(AgentService);
    expect(runInInjectionContext(injector, () => inject(AgentService))).toBe(service); // one per injector
    expect(injector.get(AGENT_OPTIONS).initialState?.model).toBe(DEMO_MODEL);
    expect(service.isStreaming()).toBe(false);
    expect(service.messages().map((m) => m.role)).toEqual(["system"]);
    expect(service.tools()).toEqual([]);
  });

  it("fails outside an injection context (it needs inject())", () => {
    expect(() => new AgentService()).toThrow(/injection context/);
  });

  it("signals follow a run: streaming flag, streamed text, tool progress, final transcript", async () => {
    const service = runInInjectionContext(createInjector(), () => inject(AgentService));
    const seenText = new Set<string>();
    const seenProgress = new Set<number>();
    const streamingFlags = new Set<boolean>();
    // Read the signals as the run goes (an effect() would need Angular's scheduler; events are enough).
    service.agent.events$.subscribe(() => {
      seenText.add(service.streamingText());
      streamingFlags.add(service.isStreaming());
      for (const tool of service.tools()) seenProgress.add(tool.progress);
    });

    const run = service.prompt("What's the weather in Paris and Oslo?");
    expect(service.isStreaming()).toBe(true);
    await expect(service.prompt("again")).rejects.toThrow(/steer\(\) or followUp\(\)/);
    await run;

    expect(service.isStreaming()).toBe(false);
    expect(streamingFlags).toEqual(new Set([true]));
    expect([...seenText].some((text) => text.length > 0 && text.length < "I'll check the weather in Paris and Oslo — all at once.".length)).toBe(true);
    expect(service.tools().map((tool) => [tool.args, tool.status, tool.progress])).toEqual([
      [{ city: "Paris" }, "done", 1],
      [{ city: "Oslo" }, "done", 1],
    ]);
    expect(seenProgress.has(0.25) && seenProgress.has(0.5) && seenProgress.has(0.75)).toBe(true);
    expect(service.messages().map((m) => m.role)).toEqual(["system", "user", "assistant", "toolResult", "toolResult", "assistant"]);
    expect(JSON.stringify(service.messages().at(-1))).toContain("Oslo: 6°C");
    expect(service.errorMessage()).toBeUndefined();
  });

  it("send() steers while running; abort() stops the run and the signals show it", async () => {
    const service = runInInjectionContext(createInjector(), () => inject(AgentService));
    const firstTool = firstValueFrom(service.agent.events$.pipe(filter((e) => e.type === "tool_execution_start")));
    const run = service.send("weather in Tokyo") as Promise<void>;
    await firstTool;
    service.send("and 2 + 2?"); // steering: no new run
    expect(service.pendingToolCalls()).toBe(1);
    service.abort();
    await run;
    const last = service.messages().at(-1) as AssistantMessage;
    expect(last.role).toBe("assistant");
    expect(last.stopReason).toBe("aborted");
    expect(service.isStreaming()).toBe(false);
    expect(service.pendingToolCalls()).toBe(0);
    expect(service.tools()[0]).toMatchObject({ name: "get_weather", status: "error", text: "Operation aborted" });

    await service.prompt("what is 2 + 2");
    expect(JSON.stringify(service.messages().at(-1))).toContain("2 + 2 = 4");
  });

  it("destroying the injector aborts the run and ends the signals' subscriptions", async () => {
    const injector = createInjector();
    const service = runInInjectionContext(injector, () => inject(AgentService));
    const firstTool = firstValueFrom(service.agent.events$.pipe(filter((e) => e.type === "tool_execution_start")));
    const run = service.prompt("weather in Tokyo");
    await firstTool;
    injector.destroy();
    await run;
    expect((service.agent.state.messages.at(-1) as AssistantMessage).stopReason).toBe("aborted");
    // The signal no longer follows the Agent.
    const frozen = service.messages().length;
    await service.agent.prompt("what is 1 + 1");
    expect(service.agent.state.messages.length).toBeGreaterThan(frozen);
    expect(service.messages().length).toBe(frozen);
  });
});
