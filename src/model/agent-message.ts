/**
 * App messages beside the model's (SPEC M2).
 *
 * @module
 */
import type { Message } from "./messages.js";

/**
 * App message types, added by declaration merging (SPEC M2).
 *
 * @example
 * ```ts
 * declare module "rxagent" {
 *   interface CustomAgentMessages {
 *     notice: { role: "notice"; text: string; timestamp: number };
 *   }
 * }
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface CustomAgentMessages {}

/** A transcript entry: a model message or an app message from {@link CustomAgentMessages}. */
export type AgentMessage = Message | CustomAgentMessages[keyof CustomAgentMessages];
