/**
 * The injection token under which an Angular app finds its agent.
 *
 * @module
 */
import { InjectionToken } from "@angular/core";
import type { AgentLike } from "../agent/agent-like.js";

/**
 * The agent of the surrounding injector, local (`Agent`) or remote: what {@link provideAgent}
 * provides and {@link injectAgent} reads. Inject it directly for anything the signals leave out.
 *
 * @example
 * ```ts
 * const agent = inject(AGENT);
 * agent.events$.pipe(ofType("agent_end"), takeUntilDestroyed()).subscribe((end) => log(end.outcome));
 * ```
 */
export const AGENT = new InjectionToken<AgentLike>("rxagent AGENT");
