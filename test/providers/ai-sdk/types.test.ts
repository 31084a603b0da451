/**
 * The bridge's own statement of the SDK's model interface (`ai-sdk-types.ts`) fits the SDK's
 * types (`@ai-sdk/provider` 4), in the direction each is used (rule V1 proposed): an SDK model
 * is an `AiSdkLanguageModel`, what the bridge sends is valid SDK call options, and every SDK
 * stream part, usage, finish reason and warning is something the bridge reads. The assignments
 * below fail the type check (`npx tsc`) when the two drift apart; the runtime half checks that
 * the real providers' models pass the bridge's own check.
 */
import { describe, expect, it } from "vitest";
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4FinishReason,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
  SharedV4ProviderOptions,
  SharedV4Warning,
} from "@ai-sdk/provider";
import { buildAiSdkCall } from "../../../src/providers/ai-sdk/ai-sdk-call.js";
import { toAiSdkPrompt } from "../../../src/providers/ai-sdk/ai-sdk-prompt.js";
import {
  fromAiSdk,
  type AiSdkCallOptions,
  type AiSdkFinishReason,
  type AiSdkLanguageModel,
  type AiSdkPrompt,
  type AiSdkProviderMetadata,
  type AiSdkStreamPart,
  type AiSdkUsage,
  type AiSdkWarning,
} from "../../../src/providers/ai-sdk/index.js";
import { anthropicAt, openaiChatAt, openaiResponsesAt } from "./support.js";

/** Compiles only when `Source` is assignable to `Target`. */
function assignable<Target>() {
  return <Source extends Target>(check?: Source): Source | undefined => check;
}

describe("the bridge's types against @ai-sdk/provider's (V1)", () => {
  it("V1 · an SDK model is an AiSdkLanguageModel; what the bridge reads is what the SDK streams", () => {
    assignable<AiSdkLanguageModel>()<LanguageModelV4>();
    assignable<AiSdkStreamPart>()<LanguageModelV4StreamPart>();
    assignable<AiSdkUsage>()<LanguageModelV4Usage>();
    assignable<AiSdkFinishReason>()<LanguageModelV4FinishReason>();
    assignable<AiSdkWarning>()<SharedV4Warning>();
    assignable<AiSdkProviderMetadata>()<SharedV4ProviderMetadata>();
    // The real providers' models, with their own declared types, go straight in.
    for (const model of [anthropicAt("http://127.0.0.1:9"), openaiChatAt("http://127.0.0.1:9"), openaiResponsesAt("http://127.0.0.1:9")]) {
      expect(typeof fromAiSdk(model)).toBe("function");
    }
  });

  it("V1 · what the bridge sends is valid SDK call options: the prompt, the tools, provider options", () => {
    assignable<LanguageModelV4CallOptions>()<AiSdkCallOptions>();
    assignable<LanguageModelV4Prompt>()<AiSdkPrompt>();
    assignable<SharedV4ProviderOptions>()<AiSdkProviderMetadata>();
    const call: LanguageModelV4CallOptions = buildAiSdkCall({ id: "m", api: "ai-sdk", provider: "p" }, [{ role: "user", content: "hi", timestamp: 1 }], { maxTokens: 10 });
    const prompt: LanguageModelV4Prompt = toAiSdkPrompt({ id: "m", api: "ai-sdk", provider: "p" }, [{ role: "user", content: "hi", timestamp: 1 }]);
    expect(call).toMatchObject({ prompt, maxOutputTokens: 10 });
  });
});
