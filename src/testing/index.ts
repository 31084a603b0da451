/**
 * Test helpers for apps built on rxagent: the scripted provider, and virtual time for code that
 * awaits.
 *
 * @module rxagent/testing
 */
export {
  fauxProvider,
  fauxText,
  fauxThinking,
  fauxToolCall,
  type FauxProvider,
  type FauxProviderOptions,
  type FauxReply,
  type FauxRequest,
  type FauxScriptEntry,
} from "./faux-provider.js";
export { settleVirtualTime, type SettleVirtualTimeOptions } from "./virtual-time.js";
