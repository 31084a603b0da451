/**
 * An Agent given no model runs as pi-agent-core's does (SPEC A8): its `streamFn` gets pi's
 * placeholder model, `state.model` shows it, and a `streamFn` that ignores the model completes
 * the run. Runs in virtual time through `prompt$()`.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { isPlaceholderModel, NO_MODEL_ERROR, placeholderModel } from "../../src/model/placeholder-model.js";
import type { AssistantMessage } from "../../src/index.js";
import { openaiCompatible } from "../../src/providers/openai/index.js";
import { fauxProvider } from "../../src/testing/index.js";
import { model, newScheduler, roles, textOf } from "./support.js";

/** pi-agent-core 1.6's placeholder (`DEFAULT_MODEL` in its dist/agent.js), field by field. */
const PI_PLACEHOLDER = {
  id: "unknown",
  name: "unknown",
  api: "unknown",
  provider: "unknown",
  baseUrl: "",
  reasoning: false,
  input: [],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 0,
  maxTokens: 0,
};

describe("A8: an Agent without a model", () => {
  it("A8: a model-less Agent whose streamFn ignores the model completes a run; the streamFn saw pi's placeholder model", () => {
    const scheduler = newScheduler();
    const provider = fauxProvider([{ content: "hello" }], { scheduler, delay: 1 });
    const agent = new Agent({ streamFn: provider, scheduler });
    expect(agent.state.model).toStrictEqual(PI_PLACEHOLDER);
    let completed = false;
    scheduler.run(() => {
      agent.prompt$("hi").subscribe({ complete: () => (completed = true) });
    });
    expect(completed).toBe(true);
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]!.model).toStrictEqual(PI_PLACEHOLDER);
    expect(isPlaceholderModel(provider.requests[0]!.model)).toBe(true);
    const last = agent.state.messages.at(-1) as AssistantMessage;
    expect(roles(agent.state.messages)).toEqual(["user", "assistant"]);
    expect(last.stopReason).toBe("stop");
    expect(textOf(last)).toBe("hello");
    expect(agent.state.errorMessage).toBeUndefined();
    // The state keeps showing the placeholder, as pi's does.
    expect(agent.state.model).toStrictEqual(PI_PLACEHOLDER);
  });

  it("A8: each Agent has its own copy of the placeholder; a model assigned later is the one sent", async () => {
    const provider = fauxProvider([{ content: "one" }, { content: "two" }]);
    const first = new Agent({ streamFn: provider });
    const second = new Agent({ streamFn: provider });
    expect(first.state.model).not.toBe(second.state.model);
    expect(placeholderModel()).toStrictEqual(PI_PLACEHOLDER);
    await first.prompt("hi");
    first.state.model = model;
    await first.prompt("again");
    expect(provider.requests.map((r) => r.model.id)).toEqual(["unknown", "faux-1"]);
    expect(isPlaceholderModel(second.state.model)).toBe(true);
  });

  it("A8: with a provider that needs a real id, the request fails with the clear error and nothing is sent; the run ends as any failed request does", async () => {
    const fetched: string[] = [];
    const fetch = async (url: string | URL | Request): Promise<Response> => {
      fetched.push(String(url));
      throw new Error("no network in this test");
    };
    const agent = new Agent({ streamFn: openaiCompatible({ baseUrl: "http://127.0.0.1:9/v1", fetch }) });
    await agent.prompt("hi");
    const last = agent.state.messages.at(-1) as AssistantMessage;
    expect(last).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: NO_MODEL_ERROR, model: "unknown" });
    expect(agent.state.errorMessage).toBe(NO_MODEL_ERROR);
    expect(fetched).toEqual([]);
    expect(agent.state.isStreaming).toBe(false);
  });

  it("A8: getApiKey is not asked for the placeholder's provider: a key hook that fails for unknown providers does not hide the No model error", async () => {
    const asked: string[] = [];
    const fetched: string[] = [];
    const fetch = async (url: string | URL | Request): Promise<Response> => {
      fetched.push(String(url));
      throw new Error("no network in this test");
    };
    const getApiKey = async (provider: string): Promise<string> => {
      asked.push(provider);
      throw new Error(`No API key configured for provider ${provider}`);
    };
    const agent = new Agent({ streamFn: openaiCompatible({ baseUrl: "http://127.0.0.1:9/v1", fetch }), getApiKey });
    await agent.prompt("hi");
    expect(asked).toEqual([]);
    expect(agent.state.errorMessage).toBe(NO_MODEL_ERROR);
    expect(agent.state.outcome).toBe("failed");
    expect(fetched).toEqual([]);
    // Given a model, the hook is asked for its provider as before.
    agent.state.model = model;
    await agent.prompt("again");
    expect(asked).toEqual(["faux"]);
    expect(agent.state.errorMessage).toBe("No API key configured for provider faux");
  });
});
