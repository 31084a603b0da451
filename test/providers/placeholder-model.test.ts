/**
 * The providers that send a model id to a server refuse the Agent's placeholder model (SPEC A8):
 * a model-less Agent's request fails with the clear `No model: …` error, as an `error` assistant
 * message, and nothing reaches the server on 127.0.0.1 that records every request.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AssistantMessage, StreamFn } from "../../src/index.js";
import { isPlaceholderModel, NO_MODEL_ERROR, placeholderModel } from "../../src/model/placeholder-model.js";
import { fromAiSdk } from "../../src/providers/ai-sdk/index.js";
import { openaiCompatible } from "../../src/providers/openai/index.js";
import { fromPiAi } from "../../src/providers/pi-ai.js";
import { streamProxy } from "../../src/providers/proxy/index.js";
import { collect, finalMessage, shape, weatherContext } from "./support/collect.js";
import { scriptedServers, sseResponse } from "./support/http-server.js";
import { openaiChatAt, sse } from "./ai-sdk/support.js";

const serve = scriptedServers();

/** A model-less Agent's one prompt through `streamFn`: its last message. */
async function modelLessPrompt(streamFn: StreamFn): Promise<AssistantMessage> {
  const agent = new Agent({ streamFn });
  await agent.prompt("Weather in Paris?");
  expect(agent.state.errorMessage).toBe(NO_MODEL_ERROR);
  expect(agent.state.isStreaming).toBe(false);
  return agent.state.messages.at(-1) as AssistantMessage;
}

function expectNoModelMessage(message: AssistantMessage): void {
  expect(message).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: NO_MODEL_ERROR, model: "unknown", api: "unknown", provider: "unknown" });
}

describe("A8: providers that send a model id refuse the placeholder model, and send nothing", () => {
  it("A8: openaiCompatible fails the request with the clear error; the server gets no request", async () => {
    const server = await serve(sseResponse("text.sse"));
    expectNoModelMessage(await modelLessPrompt(openaiCompatible({ baseUrl: `${server.url}/v1`, apiKey: "sk-test" })));
    expect(server.requests).toHaveLength(0);
    // The StreamFn alone: one `error` event, no `start`.
    const events = await collect(openaiCompatible({ baseUrl: `${server.url}/v1` }), weatherContext(), {}, placeholderModel());
    expect(shape(events)).toEqual(["error"]);
    expect(finalMessage(events).errorMessage).toBe(NO_MODEL_ERROR);
    expect(server.requests).toHaveLength(0);
  });

  it("A8: streamProxy fails the request with the clear error; the proxy gets no request", async () => {
    const server = await serve(sseResponse("text.sse"));
    let tokens = 0;
    const streamFn = streamProxy({ url: `${server.url}/api/stream`, authToken: () => `token-${++tokens}` });
    expectNoModelMessage(await modelLessPrompt(streamFn));
    expect(server.requests).toHaveLength(0);
    expect(tokens).toBe(0);
  });

  it("A8: fromPiAi(pi-ai's streamSimple) fails the request with the clear error; pi-ai is not called", async () => {
    const server = await serve(sseResponse("text.sse"));
    const { streamSimple } = await import("@earendil-works/pi-ai/api/openai-completions");
    let called = 0;
    const streamFn = fromPiAi(((model: never, context: never, options: never) => {
      called++;
      return streamSimple(model, context, options);
    }) as typeof streamSimple);
    expectNoModelMessage(await modelLessPrompt(streamFn));
    expect(called).toBe(0);
    expect(server.requests).toHaveLength(0);
  });

  it("A8: fromAiSdk with a resolver fails the request with the clear error; the resolver is not asked and the server gets no request", async () => {
    const server = await serve(sse("openai-chat-text.sse"));
    const asked: string[] = [];
    const streamFn = fromAiSdk((model) => {
      asked.push(model.id);
      return openaiChatAt(server.url, model.id);
    });
    expectNoModelMessage(await modelLessPrompt(streamFn));
    expect(asked).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it("A8: fromAiSdk with a model given directly sends that model's own id, so a model-less Agent's run goes ahead", async () => {
    const server = await serve(sse("openai-chat-text.sse"));
    const agent = new Agent({ streamFn: fromAiSdk(openaiChatAt(server.url)) });
    await agent.prompt("Say hello.");
    const last = agent.state.messages.at(-1) as AssistantMessage;
    expect(last.stopReason).toBe("stop");
    expect(agent.state.errorMessage).toBeUndefined();
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.json().model).toBe("gpt-4o-mini");
    expect(isPlaceholderModel(agent.state.model)).toBe(true);
  });
});
