/**
 * Which agent the app makes, chosen when the page loads, not when it is built: the server says
 * so in `/config.json`, read before Angular starts (main.ts) and provided as `AGENT_CHOICE`. The
 * same build then runs its agent in the page, or follows one that runs on a session server.
 */
import { InjectionToken } from "@angular/core";

/** The agent in the page (`local-agent.ts`), or session `session` of the server's (`RemoteAgent`). */
export type AgentChoice = { agent: "local" } | { agent: "remote"; session: string };

/** The choice `provideAgent`'s factory reads (app.config.ts); the local agent unless main.ts provides another. */
export const AGENT_CHOICE = new InjectionToken<AgentChoice>("AGENT_CHOICE", { factory: () => ({ agent: "local" }) });

/** What a session id may be (the session server's rule). */
const SESSION_ID = /^[A-Za-z0-9._~-]{1,128}$/;

/**
 * Reads `/config.json`; the local agent when there is none (`ng serve`) or it says nothing else.
 * A remote session may be picked in the page's address, `?session=<id>`: two tabs on one
 * address follow the same session.
 *
 * @example
 * ```ts
 * const choice = await loadAgentChoice();
 * bootstrapApplication(ChatComponent, mergeApplicationConfig(appConfig, { providers: [{ provide: AGENT_CHOICE, useValue: choice }] }));
 * ```
 */
export async function loadAgentChoice(): Promise<AgentChoice> {
  const response = await fetch("/config.json", { cache: "no-store" });
  const config = response.ok ? ((await response.json()) as Partial<{ agent: string; session: string }>) : {};
  if (config.agent !== "remote") return { agent: "local" };
  const session = new URLSearchParams(location.search).get("session") ?? config.session ?? "chat";
  if (!SESSION_ID.test(session)) throw new Error(`Not a session id: ${JSON.stringify(session)}`);
  return { agent: "remote", session };
}
