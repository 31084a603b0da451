/**
 * `provideAgent`: puts an agent into an Angular injector, and ends it with the injector.
 *
 * @module
 */
import { DestroyRef, inject, type Provider } from "@angular/core";
import type { AgentLike } from "../agent/agent-like.js";
import { AGENT } from "./agent-token.js";

/**
 * Provides the agent {@link injectAgent} and {@link AGENT} give. The factory runs once, when the
 * agent is first injected, in an injection context: `inject()` works in its body (not in the
 * callbacks it hands the agent, which run later, outside it). When the injector is destroyed,
 * the agent the factory made ends: one with a `close()` (a remote agent) is closed, which ends
 * the link and leaves its run to the server, where it can be followed again; one without (a
 * local `Agent`) is aborted, as its run would have no one to report to. An agent passed as it is
 * belongs to the caller and is left alone.
 *
 * The providers fit an application's, a route's or a component's `providers`: one agent per app,
 * or one per chat view.
 *
 * @example
 * ```ts
 * bootstrapApplication(ChatComponent, {
 *   providers: [
 *     provideZonelessChangeDetection(),
 *     provideAgent(() => new Agent({ streamFn: streamProxy({ url: "/api/stream" }), initialState: { model } })),
 *   ],
 * });
 * ```
 */
export function provideAgent(agent: AgentLike | (() => AgentLike)): Provider[] {
  if (typeof agent !== "function") return [{ provide: AGENT, useValue: agent }];
  return [
    {
      provide: AGENT,
      useFactory: (): AgentLike => {
        const made = agent();
        inject(DestroyRef).onDestroy(() => dispose(made));
        return made;
      },
    },
  ];
}

/** Closes an agent's link to its server; aborts an agent in this process. */
function dispose(agent: AgentLike): void {
  // `close` is not part of AgentLike: a remote agent has one, a local Agent does not.
  const closable = agent as AgentLike & { close?: () => void };
  if (typeof closable.close === "function") closable.close();
  else agent.abort();
}
