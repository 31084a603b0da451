/**
 * `rxagent/ai-sdk` under `rxagent/otel` (rules V3, O2): the model a provider reports in
 * `response-metadata` reaches the chat span as `gen_ai.response.model`, while
 * `gen_ai.request.model` stays the id that was asked for.
 */
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../../src/index.js";
import { traceAgent } from "../../../src/otel/index.js";
import { aiSdkModel, fromAiSdk } from "../../../src/providers/ai-sdk/index.js";
import { only, recorder, user } from "../../otel/support.js";
import { scriptedModel, v4Usage } from "./support.js";

describe("fromAiSdk traced with traceAgent (V3, O2)", () => {
  it("V3, O2 · the served model is gen_ai.response.model; the requested one is gen_ai.request.model", async () => {
    const { provider, spans, open } = recorder();
    const languageModel = scriptedModel([
      { type: "response-metadata", id: "resp_7", modelId: "scripted-1-2026-01-15" },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "hi" },
      { type: "text-end", id: "t" },
      { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: v4Usage(4, 1) },
    ]);
    const model = aiSdkModel(languageModel);
    await lastValueFrom(agentLoop([user("go")], { messages: [] }, { model }, undefined, fromAiSdk(languageModel)).pipe(traceAgent({ tracerProvider: provider, model })));
    expect(open()).toEqual([]);
    const chat = only(spans(), "chat scripted-1");
    expect(chat.attributes).toMatchObject({
      "gen_ai.request.model": "scripted-1",
      "gen_ai.response.model": "scripted-1-2026-01-15",
      "gen_ai.response.id": "resp_7",
      "gen_ai.usage.input_tokens": 4,
    });
  });
});
