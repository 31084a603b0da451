/**
 * The app's agent when it runs in the page: an rxagent `Agent` whose model streams through the
 * app's own server (`/api/stream`), so the browser holds no provider key; the tools run here.
 *
 * This file imports rxagent by relative path, not through the tsconfig's `paths` as the other
 * files do: test/examples/angular.test.ts runs it outside the Angular build, where those paths
 * do not apply.
 */
import { Agent, type AgentTool, type Model } from "../../../../src/index.js"; // in your app: from "rxagent"
import { streamProxy } from "../../../../src/providers/proxy/index.js"; // in your app: from "rxagent/proxy"
import { browserTools, type DemoToolOptions } from "../../../../demo/tools.js"; // the demo's browser-safe tools; in your app, your own

/** The model to ask for; the server may pin another (`resolveModel`). */
export const APP_MODEL: Model = { id: "gpt-4o-mini", api: "openai-completions", provider: "openai" };

/**
 * The demo's tools, the clock asking the user first: its answer tells the model the user's time
 * zone, and it shows the approval dialog. In your app, mark tools with side effects this way.
 */
export function appTools(options: DemoToolOptions = {}): AgentTool[] {
  return browserTools(options).map((tool) => (tool.name === "get_time" ? { ...tool, needsApproval: true } : tool));
}

/** Options of {@link localAgent}. */
export interface LocalAgentOptions {
  /** The bearer token, read afresh for every request (it may be refreshed meanwhile). */
  authToken: () => string;
  /** The model endpoint. Default `/api/stream`, on the page's origin. */
  url?: string;
  /** Another `fetch` (tests send the requests to an in-process server). */
  fetch?: typeof fetch;
  /** Default {@link appTools}. */
  tools?: AgentTool[];
}

/**
 * The agent, made in the page.
 *
 * @example
 * ```ts
 * provideAgent(() => localAgent({ authToken: () => session.token() }))
 * ```
 */
export function localAgent(options: LocalAgentOptions): Agent {
  return new Agent({
    streamFn: streamProxy({ url: options.url ?? "/api/stream", authToken: options.authToken, ...(options.fetch ? { fetch: options.fetch } : {}) }),
    initialState: { systemPrompt: "Be brief. Use the tools.", model: APP_MODEL, tools: options.tools ?? appTools() },
  });
}
