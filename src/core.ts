/**
 * rxagent/core: the same API as `rxagent`, re-exported (nothing here shadows or adds a name).
 * It once was a second API without a default validator; `rxagent`'s one Agent is now as small
 * without ajv, so this entry stays only so that existing imports keep working.
 *
 * @example
 * ```ts
 * import { Agent } from "rxagent"; // the same class as rxagent/core's
 * ```
 *
 * @module rxagent/core
 */
export * from "./index.js";
