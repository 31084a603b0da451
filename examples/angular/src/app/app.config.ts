/**
 * The app's providers: zoneless change detection and the agent, which every component reaches
 * with `injectAgent()`.
 */
import { inject, provideZonelessChangeDetection, type ApplicationConfig } from "@angular/core";
import { provideAgent } from "rxagent/angular";
import { localAgent } from "./local-agent.js";
import { Session } from "./session.service.js";

/** Bootstrap configuration of the app. */
export const appConfig: ApplicationConfig = {
  providers: [
    provideZonelessChangeDetection(),
    provideAgent(() => {
      // The factory runs in an injection context: inject() here, once...
      const session = inject(Session);
      // ...and only read the service in the callback, which runs per request, outside it.
      // An agent on a session server instead is this one line (with `import { RemoteAgent } from "rxagent/remote"`):
      // return new RemoteAgent({ url: "/sessions/chat", headers: () => ({ authorization: `Bearer ${session.token()}` }) });
      return localAgent({ authToken: () => session.token() });
    }),
  ],
};
