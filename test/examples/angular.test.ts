/**
 * The Angular example's agent and helpers on rxagent/angular, in a real injection context
 * (`createEnvironmentInjector`), without the Angular compiler: the app's `localAgent` provided with
 * `provideAgent`, read with `injectAgent` as the component does; its signals follow a run, Send
 * steers while one goes, Stop aborts, the clock's call waits for approval, destroying the
 * injector aborts the run and ends the subscriptions, and `provideAgent`'s factory may `inject()`
 * while a per-request callback may not. The model streams through the app's proxy handler, in
 * process. Also: docs/angular.md's snippets are taken from the app's sources.
 * (test/e2e/angular.test.ts builds and drives the app.)
 */
import { createEnvironmentInjector, inject, Injector, InjectionToken, provideZonelessChangeDetection, type EnvironmentInjector } from "@angular/core";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { filter, firstValueFrom } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { demoModel } from "../../demo/demo-model.js";
import { APP_MODEL, appTools, localAgent, type LocalAgentOptions } from "../../examples/angular/src/app/local-agent.js";
import { statusOf, type AgentStatus } from "../../examples/angular/src/app/status.js";
import { toolRow } from "../../examples/angular/src/app/tool-row.js";
import { Agent, type AssistantMessage } from "../../src/index.js";
import { AGENT, injectAgent, provideAgent, type AgentSignals } from "../../src/angular/index.js";
import { createProxyHandler } from "../../src/providers/proxy/index.js";
import { ROOT } from "./support.js";

const injectors: EnvironmentInjector[] = [];

/** Stands in for the app's Session service. */
const SESSION = new InjectionToken<{ token: string }>("session");
const session = { token: "dev-token" };

/** The app's server in process: streamProxy's fetch goes straight to its handler. */
const handler = createProxyHandler({ streamFn: demoModel({ delayMs: 1 }), models: [APP_MODEL], authorize: (token) => token === session.token });
const fetchThroughHandler: typeof fetch = async (input, init) => handler(new Request(input as string, init));
const route: Pick<LocalAgentOptions, "url" | "fetch" | "tools"> = { url: "http://app.test/api/stream", fetch: fetchThroughHandler, tools: appTools({ speed: 0.05 }) };

/** An environment injector as the app's root: zoneless, with the agent `factory` makes. */
function createInjector(factory: () => Agent = () => localAgent({ ...route, authToken: () => session.token })): EnvironmentInjector {
  const injector = createEnvironmentInjector([provideZonelessChangeDetection(), { provide: SESSION, useValue: session }, provideAgent(factory)], Injector.NULL as EnvironmentInjector);
  injectors.push(injector);
  return injector;
}

/** The component's view of the agent. */
function chatOf(injector = createInjector()): AgentSignals {
  return injectAgent({ injector });
}

const nextEvent = (chat: AgentSignals, type: string) => firstValueFrom(chat.events$.pipe(filter((event) => event.type === type)));

afterEach(() => {
  session.token = "dev-token";
  for (const injector of injectors.splice(0)) if (!injector.destroyed) injector.destroy();
});

describe("examples/angular: localAgent through provideAgent and injectAgent", () => {
  it("is created in an injection context and starts with the Agent's state", () => {
    const injector = createInjector();
    const chat = chatOf(injector);
    expect(chat.agent).toBeInstanceOf(Agent);
    expect(chatOf(injector).agent).toBe(chat.agent); // one per injector
    expect(injector.get(AGENT).state.model).toBe(APP_MODEL);
    expect(chat.running()).toBe(false);
    expect(statusOf(chat.state())).toBe("idle");
    expect(chat.messages().map((m) => m.role)).toEqual(["system"]);
    expect(chat.toolCalls()).toEqual([]);
    expect(chat.connection()).toEqual({ status: "connected" });
  });

  it("fails outside an injection context (it needs inject())", () => {
    expect(() => injectAgent()).toThrow(/injection context/);
  });

  it("signals follow a run: running, streamed text, tool progress, final transcript", async () => {
    const chat = chatOf();
    const seenText = new Set<string>();
    const seenProgress = new Set<number>();
    const running = new Set<boolean>();
    const statuses = new Set<AgentStatus>();
    // Read the signals as the run goes (an effect() would need Angular's scheduler; events are enough).
    chat.events$.subscribe(() => {
      seenText.add(chat.streamingText());
      running.add(chat.running());
      statuses.add(statusOf(chat.state()));
      for (const row of chat.toolCalls().map(toolRow)) seenProgress.add(row.progress);
    });

    const run = chat.prompt("What's the weather in Paris and Oslo?");
    expect(chat.running()).toBe(true);
    await expect(chat.prompt("again")).rejects.toThrow(/steer\(\) or followUp\(\)/);
    await run;

    expect(chat.running()).toBe(false);
    expect(statusOf(chat.state())).toBe("idle");
    expect(running).toEqual(new Set([true]));
    expect(statuses).toEqual(new Set(["running"]));
    const full = "I'll check the weather in Paris and Oslo — all at once.";
    expect([...seenText].some((text) => text.length > 0 && text.length < full.length)).toBe(true);
    expect(seenText.has(full)).toBe(true);
    expect(chat.toolCalls().map(toolRow).map((row) => [row.heading, row.status, row.progress])).toEqual([
      ["get_weather(Paris)", "done", 1],
      ["get_weather(Oslo)", "done", 1],
    ]);
    expect(seenProgress.has(0.25) && seenProgress.has(0.5) && seenProgress.has(0.75)).toBe(true);
    expect(chat.messages().map((m) => m.role)).toEqual(["system", "user", "assistant", "toolResult", "toolResult", "assistant"]);
    expect(JSON.stringify(chat.messages().at(-1))).toContain("Oslo: 6°C");
    expect(chat.error()).toBeUndefined();
  });

  it("send() steers while running, listed as queued; abort() stops the run and the signals show it", async () => {
    const chat = chatOf();
    const firstTool = nextEvent(chat, "tool_execution_start");
    const run = chat.send("weather in Tokyo");
    await firstTool;
    await chat.send("and 2 + 2?"); // steering: no new run
    expect(chat.queued()).toEqual([{ kind: "steering", text: "and 2 + 2?" }]);
    expect(chat.state().pendingToolCalls.size).toBe(1);
    expect(chat.streamingText()).toBe(""); // no empty bubble while the tool runs
    chat.abort();
    await run;
    const last = chat.messages().at(-1) as AssistantMessage;
    expect(last.role).toBe("assistant");
    expect(last.stopReason).toBe("aborted");
    expect(chat.running()).toBe(false);
    expect(statusOf(chat.state())).toBe("stopped");
    expect(chat.state().pendingToolCalls.size).toBe(0);
    expect(toolRow(chat.toolCalls()[0]!)).toMatchObject({ name: "get_weather", status: "failed", text: "Operation aborted" });

    await chat.prompt("what is 2 + 2");
    expect(JSON.stringify(chat.messages().at(-1))).toContain("2 + 2 = 4");
    expect(statusOf(chat.state())).toBe("idle");
  });

  it("the clock's call waits for approval: allowed, it runs; denied, the model reads why", async () => {
    const chat = chatOf();
    const asked = nextEvent(chat, "tool_approval_request");
    const allowed = chat.prompt("What time is it in Tokyo?");
    await asked;
    expect(chat.pendingApprovals()).toEqual([{ toolCallId: expect.any(String), toolName: "get_time", args: { city: "Tokyo" } }]);
    chat.approve(chat.pendingApprovals()[0]!.toolCallId);
    await allowed;
    expect(chat.pendingApprovals()).toEqual([]);
    expect(JSON.stringify(chat.messages().at(-1))).toContain("The time: Tokyo:");

    const askedAgain = nextEvent(chat, "tool_approval_request");
    const denied = chat.prompt("What time is it in Oslo?");
    await askedAgain;
    chat.deny(chat.pendingApprovals()[0]!.toolCallId, "The user said no.");
    await denied;
    expect(chat.pendingApprovals()).toEqual([]);
    expect(toolRow(chat.toolCalls()[0]!)).toMatchObject({ name: "get_time", status: "failed" });
    expect(JSON.stringify(chat.messages().at(-1))).toContain("The user said no.");
  });

  it("statusOf: an error ends in error", () => {
    const base = { isStreaming: false, messages: [], errorMessage: undefined, outcome: undefined } as Parameters<typeof statusOf>[0];
    expect(statusOf(base)).toBe("idle");
    expect(statusOf({ ...base, messages: [{ role: "assistant", stopReason: "error" }] } as unknown as typeof base)).toBe("error");
    expect(statusOf({ ...base, errorMessage: "boom" })).toBe("error");
    expect(statusOf({ ...base, isStreaming: true, errorMessage: "boom" })).toBe("running");
    expect(statusOf({ ...base, outcome: "failed" })).toBe("error");
    expect(statusOf({ ...base, outcome: "aborted", errorMessage: "Operation aborted" })).toBe("stopped");
  });

  it("destroying the injector aborts the run and ends the signals' subscriptions", async () => {
    const injector = createInjector();
    const chat = chatOf(injector);
    const firstTool = nextEvent(chat, "tool_execution_start");
    const run = chat.prompt("weather in Tokyo");
    await firstTool;
    injector.destroy();
    await run;
    expect((chat.agent.state.messages.at(-1) as AssistantMessage).stopReason).toBe("aborted");
    // The signal no longer follows the Agent.
    const frozen = chat.messages().length;
    await chat.agent.prompt("what is 1 + 1");
    expect(chat.agent.state.messages.length).toBeGreaterThan(frozen);
    expect(chat.messages().length).toBe(frozen);
  });
});

describe("provideAgent's factory and inject()", () => {
  it("inject() in the factory, the service read in the per-request callback: every request sends the current token", async () => {
    const tokens: (string | undefined)[] = [];
    const chat = chatOf(
      createInjector(() => {
        const current = inject(SESSION); // the factory runs in an injection context
        return localAgent({ ...route, authToken: () => (tokens.push(current.token), current.token) });
      }),
    );
    await chat.prompt("what is 2 + 2");
    expect(JSON.stringify(chat.messages().at(-1))).toContain("2 + 2 = 4");
    session.token = "token-2"; // e.g. refreshed after sign-in
    await chat.prompt("what is 3 + 3");
    expect(JSON.stringify(chat.messages().at(-1))).toContain("3 + 3 = 6");
    expect(tokens).toEqual(["dev-token", "dev-token", "token-2", "token-2"]); // two requests per prompt: the tool call, the answer
  });

  it("inject() inside the per-request callback (the old README snippet) fails with NG0203 on the first request", async () => {
    const chat = chatOf(createInjector(() => localAgent({ ...route, authToken: () => inject(SESSION).token })));
    await chat.prompt("what is 2 + 2"); // constructing was fine; the request is not: it runs outside the injection context
    expect(statusOf(chat.state())).toBe("error");
    expect((chat.messages().at(-1) as AssistantMessage).errorMessage).toMatch(/NG0203/);
  });
});

describe("docs/angular.md, the Angular page the README points to", () => {
  /** The app's source files, as trimmed lines. */
  function sourceLines(): Set<string> {
    const dir = join(ROOT, "examples/angular/src");
    const files = readdirSync(dir, { recursive: true }).map(String).filter((file) => /\.(ts|html|css)$/.test(file));
    return new Set(files.flatMap((file) => readFileSync(join(dir, file), "utf8").split("\n").map((line) => line.trim())));
  }

  it("every code line of its ts and html blocks is a line of the app's sources (the snippets are taken from the app)", () => {
    const section = readFileSync(join(ROOT, "docs/angular.md"), "utf8");
    const blocks = [...section.matchAll(/^```(?:ts|html)\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
    expect(blocks.length).toBeGreaterThan(0);
    const lines = blocks.flatMap((block) => block.split("\n").map((line) => line.trim())).filter((line) => line !== "" && !/^(\/\/|\/\*|\*|<!--)/.test(line)); // code, not comments
    expect(lines.length).toBeGreaterThan(10);
    const source = sourceLines();
    expect(lines.filter((line) => !source.has(line))).toEqual([]);
    // It shows the point of the section: inject() in the factory, injectAgent's signals, toSignal, zoneless.
    for (const needle of ["const session = inject(Session);", "authToken: () => session.token()", "injectAgent()", "chat.streamingText()", "toSignal(", "provideZonelessChangeDetection()"]) {
      expect(lines.some((line) => line.includes(needle)), needle).toBe(true);
    }
  });
});
