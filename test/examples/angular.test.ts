/**
 * The Angular example's service, exercised in a real injection context
 * (`createEnvironmentInjector` + `runInInjectionContext`), without the Angular compiler: its
 * signals and Observables follow `state$` and `events$`, its methods drive the Agent,
 * destroying the injector ends the subscriptions and aborts the run, and `provideAgent`'s
 * factory may `inject()` while a per-request callback may not. Also: docs/angular.md's
 * snippet is taken from the app's sources. (test/e2e/angular.test.ts builds and drives the app.)
 */
import { createEnvironmentInjector, inject, Injector, InjectionToken, runInInjectionContext, type EnvironmentInjector } from "@angular/core";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { filter, firstValueFrom, toArray, takeWhile } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { DEMO_MODEL, demoModel } from "../../demo/demo-model.js";
import { browserTools } from "../../demo/tools.js";
import { AGENT_OPTIONS, AgentService, provideAgent, statusOf, type AgentStatus } from "../../examples/angular/src/app/agent.service.js";
import type { AgentOptions, AssistantMessage } from "../../src/index.js";
import { createProxyHandler, streamProxy } from "../../src/providers/proxy/index.js";
import { ROOT } from "./support.js";

const injectors: EnvironmentInjector[] = [];

/** An environment injector with the service's providers (an app would use its root injector as parent). */
function createInjector(options: Parameters<typeof provideAgent>[0] = demoOptions, extra: Parameters<typeof createEnvironmentInjector>[0] = []): EnvironmentInjector {
  const injector = createEnvironmentInjector([...extra, provideAgent(options)], Injector.NULL as EnvironmentInjector);
  injectors.push(injector);
  return injector;
}

function demoOptions(): AgentOptions {
  return { streamFn: demoModel({ delayMs: 1 }), initialState: { systemPrompt: "Test.", model: DEMO_MODEL, tools: browserTools({ speed: 0.05 }) } };
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
    expect(service.status()).toBe("idle");
    expect(service.messages().map((m) => m.role)).toEqual(["system"]);
    expect(service.tools()).toEqual([]);
  });

  it("fails outside an injection context (it needs inject())", () => {
    expect(() => new AgentService()).toThrow(/injection context/);
  });

  it("signals and Observables follow a run: streaming flag, streamed text, tool progress, final transcript", async () => {
    const service = runInInjectionContext(createInjector(), () => inject(AgentService));
    const seenText = new Set<string>();
    const seenProgress = new Set<number>();
    const streamingFlags = new Set<boolean>();
    const statuses = new Set<AgentStatus>();
    // Read the signals as the run goes (an effect() would need Angular's scheduler; events are enough).
    service.events$.subscribe(() => {
      seenText.add(service.streamingText());
      streamingFlags.add(service.isStreaming());
      statuses.add(service.status());
      for (const tool of service.tools()) seenProgress.add(tool.progress);
    });
    // What an async pipe would show: the Observables, subscribed before the run.
    const streamed = firstValueFrom(service.streamingText$.pipe(takeWhile(() => service.agent.state.messages.length < 6, true), toArray()));
    const panels = firstValueFrom(service.tools$.pipe(takeWhile((rows) => !rows.every((row) => row.status === "done") || rows.length < 2, true), toArray()));

    const run = service.prompt("What's the weather in Paris and Oslo?");
    expect(service.isStreaming()).toBe(true);
    await expect(service.prompt("again")).rejects.toThrow(/steer\(\) or followUp\(\)/);
    await run;

    expect(service.isStreaming()).toBe(false);
    expect(service.status()).toBe("idle");
    expect(streamingFlags).toEqual(new Set([true]));
    expect(statuses).toEqual(new Set(["running"]));
    const full = "I'll check the weather in Paris and Oslo — all at once.";
    expect([...seenText].some((text) => text.length > 0 && text.length < full.length)).toBe(true);
    const texts = await streamed;
    expect(texts[0]).toBe(""); // state$ emits at once: the pipe has a value before the run
    expect(texts).toContain(full.slice(0, 6));
    expect(texts.filter((text, i) => i > 0 && text === texts[i - 1])).toEqual([]); // distinctUntilChanged: no repeated frames
    expect(texts.filter((text) => text === full)).toHaveLength(1);
    const lastPanel = (await panels).at(-1)!;
    expect(lastPanel.map((row) => row.status)).toEqual(["done", "done"]);
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
    const firstTool = firstValueFrom(service.events$.pipe(filter((e) => e.type === "tool_execution_start")));
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
    expect(service.status()).toBe("stopped");
    expect(service.pendingToolCalls()).toBe(0);
    expect(service.tools()[0]).toMatchObject({ name: "get_weather", status: "error", text: "Operation aborted" });

    await service.prompt("what is 2 + 2");
    expect(JSON.stringify(service.messages().at(-1))).toContain("2 + 2 = 4");
    expect(service.status()).toBe("idle");
  });

  it("statusOf: an error ends in error", () => {
    const base = { isStreaming: false, messages: [], errorMessage: undefined } as unknown as Parameters<typeof statusOf>[0];
    expect(statusOf(base)).toBe("idle");
    expect(statusOf({ ...base, messages: [{ role: "assistant", stopReason: "error" }] } as unknown as typeof base)).toBe("error");
    expect(statusOf({ ...base, errorMessage: "boom" })).toBe("error");
    expect(statusOf({ ...base, isStreaming: true, errorMessage: "boom" })).toBe("running");
  });

  it("destroying the injector aborts the run and ends the signals' subscriptions", async () => {
    const injector = createInjector();
    const service = runInInjectionContext(injector, () => inject(AgentService));
    const firstTool = firstValueFrom(service.events$.pipe(filter((e) => e.type === "tool_execution_start")));
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

describe("provideAgent's factory and inject()", () => {
  /** Stands in for the app's Session service. */
  const SESSION = new InjectionToken<{ token: string }>("session");
  const session = { token: "token-1" };
  /** The proxy server in process: streamProxy's fetch goes straight to its handler. */
  const handler = createProxyHandler({ streamFn: demoModel({ delayMs: 0 }), models: [DEMO_MODEL], authorize: (token) => token === session.token });
  const fetchThroughHandler: typeof fetch = async (input, init) => handler(new Request(input as string, init));

  it("inject() in the factory, the service read in the per-request callback: every request sends the current token", async () => {
    const tokens: (string | undefined)[] = [];
    const injector = createInjector(
      () => {
        const current = inject(SESSION); // the factory runs in an injection context
        return {
          streamFn: streamProxy({ url: "http://app.test/api/stream", fetch: fetchThroughHandler, authToken: () => (tokens.push(current.token), current.token) }),
          initialState: { model: DEMO_MODEL, tools: browserTools({ speed: 0.05 }) },
        };
      },
      [{ provide: SESSION, useValue: session }],
    );
    const service = runInInjectionContext(injector, () => inject(AgentService));
    await service.prompt("what is 2 + 2");
    expect(JSON.stringify(service.messages().at(-1))).toContain("2 + 2 = 4");
    session.token = "token-2"; // e.g. refreshed after sign-in
    await service.prompt("what is 3 + 3");
    expect(JSON.stringify(service.messages().at(-1))).toContain("3 + 3 = 6");
    expect(tokens).toEqual(["token-1", "token-1", "token-2", "token-2"]); // two requests per prompt: the tool call, the answer
  });

  it("inject() inside the per-request callback (the old README snippet) fails with NG0203 on the first request", async () => {
    const injector = createInjector(
      () => ({
        streamFn: streamProxy({ url: "http://app.test/api/stream", fetch: fetchThroughHandler, authToken: () => inject(SESSION).token }),
        initialState: { model: DEMO_MODEL },
      }),
      [{ provide: SESSION, useValue: session }],
    );
    const service = runInInjectionContext(injector, () => inject(AgentService)); // constructing is fine...
    await service.prompt("what is 2 + 2"); // ...the request is not: it runs outside the injection context
    expect(service.status()).toBe("error");
    expect((service.messages().at(-1) as AssistantMessage).errorMessage).toMatch(/NG0203/);
  });
});

describe("docs/angular.md, the Angular page the README points to", () => {
  /** The app's source files, as trimmed lines. */
  function sourceLines(): Set<string> {
    const dir = join(ROOT, "examples/angular/src");
    const files = readdirSync(dir, { recursive: true }).map(String).filter((file) => /\.(ts|html|css)$/.test(file));
    return new Set(files.flatMap((file) => readFileSync(join(dir, file), "utf8").split("\n").map((line) => line.trim())));
  }

  it("every code line of its ts blocks is a line of the app's sources (the snippet is taken from the app)", () => {
    const section = readFileSync(join(ROOT, "docs/angular.md"), "utf8");
    const blocks = [...section.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
    expect(blocks.length).toBeGreaterThan(0);
    const lines = blocks.flatMap((block) => block.split("\n").map((line) => line.trim())).filter((line) => line !== "" && !/^(\/\/|\/\*|\*|<!--)/.test(line)); // code, not comments
    expect(lines.length).toBeGreaterThan(10);
    const source = sourceLines();
    expect(lines.filter((line) => !source.has(line))).toEqual([]);
    // It shows the point of the section: inject() in the factory, the async pipe, toSignal, zoneless.
    for (const needle of ["const session = inject(Session);", "authToken: () => session.token()", "| async", "toSignal(", "provideZonelessChangeDetection()"]) {
      expect(lines.some((line) => line.includes(needle)), needle).toBe(true);
    }
  });
});
