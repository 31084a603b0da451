/**
 * The service moved into the app, `src/app/agent.service.ts`; this re-export keeps existing
 * links and imports working.
 *
 * @module
 */
export * from "./src/app/agent.service.js";
