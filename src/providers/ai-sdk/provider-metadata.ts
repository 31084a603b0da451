/**
 * Provider metadata kept for replay.
 *
 * AI SDK providers attach `providerMetadata` to the parts they stream (Anthropic's thinking
 * `signature`, OpenAI Responses' `itemId` and encrypted reasoning, Gemini's thought signature)
 * and expect it back as `providerOptions` on the same parts of the next prompt. rxagent's blocks
 * have one opaque signature field each (`textSignature`, `thinkingSignature`,
 * `thoughtSignature`), which is where the metadata travels: as JSON, so it survives sessions
 * and the proxy unchanged.
 *
 * @internal
 * @module
 */
import type { AiSdkProviderMetadata } from "./ai-sdk-types.js";

type Namespaced = Record<string, Record<string, unknown>>;

function isNamespaced(value: unknown): value is Namespaced {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  return Object.values(value).every((inner) => inner !== null && typeof inner === "object" && !Array.isArray(inner));
}

/**
 * `next` merged into `previous`, one provider namespace at a time (a later part's key wins).
 * Providers spread one block's metadata over its start, delta and end parts.
 *
 * @example
 * ```ts
 * mergeProviderMetadata({ openai: { itemId: "rs_1" } }, { openai: { reasoningEncryptedContent: "…" } });
 * // { openai: { itemId: "rs_1", reasoningEncryptedContent: "…" } }
 * ```
 */
export function mergeProviderMetadata(previous: AiSdkProviderMetadata | undefined, next: AiSdkProviderMetadata | undefined): AiSdkProviderMetadata | undefined {
  if (!isNamespaced(next) || Object.keys(next).length === 0) return previous;
  if (!previous) return { ...next } as AiSdkProviderMetadata;
  const merged: Namespaced = { ...previous };
  for (const [name, fields] of Object.entries(next)) merged[name] = { ...(merged[name] ?? {}), ...fields };
  return merged as AiSdkProviderMetadata;
}

/**
 * The metadata as a signature string, or `undefined` when there is none.
 *
 * @example
 * ```ts
 * encodeProviderMetadata({ anthropic: { signature: "EqQB…" } }); // '{"anthropic":{"signature":"EqQB…"}}'
 * ```
 */
export function encodeProviderMetadata(metadata: AiSdkProviderMetadata | undefined): string | undefined {
  if (!metadata || Object.keys(metadata).length === 0) return undefined;
  return JSON.stringify(metadata);
}

/**
 * A signature written by {@link encodeProviderMetadata}, as the `providerOptions` to send back.
 * Signatures written by other providers (a bare Anthropic signature, a field name) are not
 * JSON objects of namespaces and give `undefined`.
 *
 * @example
 * ```ts
 * decodeProviderMetadata('{"anthropic":{"signature":"EqQB…"}}'); // { anthropic: { signature: "EqQB…" } }
 * decodeProviderMetadata("EqQB…"); // undefined
 * ```
 */
export function decodeProviderMetadata(signature: string | undefined): AiSdkProviderMetadata | undefined {
  if (!signature || signature[0] !== "{") return undefined;
  try {
    const value: unknown = JSON.parse(signature);
    return isNamespaced(value) && Object.keys(value).length > 0 ? (value as AiSdkProviderMetadata) : undefined;
  } catch {
    return undefined;
  }
}
