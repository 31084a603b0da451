/**
 * The app's providers: zoneless change detection and the agent, which every component reaches
 * with `injectAgent()`. Which agent is the page's choice at load time (`AGENT_CHOICE`, read from
 * the server's `/config.json` in main.ts): one in the page, or a session on the server.
 */
import { inject, provideZonelessChangeDetection, type ApplicationConfig } from "@angular/core";
import { provideAgent } from "rxagent/angular";
import { RemoteAgent } from "rxagent/remote";
import { AGENT_CHOICE } from "./agent-choice.js";
import { localAgent } from "./local-agent.js";
import { Session } from "./session.service.js";

/** Bootstrap configuration of the app. */
export const appConfig: ApplicationConfig = {
  providers: [
    provideZonelessChangeDetection(),
    provideAgent(() => {
      // The factory runs in an injection context: inject() here, once...
      const session = inject(Session);
      const choice = inject(AGENT_CHOICE);
      // ...and only read the service in the callbacks, which run per request, outside it.
      if (choice.agent === "remote") {
        // The agent runs on the session server; the page follows session `choice.session`.
        return new RemoteAgent({ url: `/sessions/${choice.session}`, headers: () => ({ authorization: `Bearer ${session.token()}` }) });
      }
      return localAgent({ authToken: () => session.token() });
    }),
  ],
};
