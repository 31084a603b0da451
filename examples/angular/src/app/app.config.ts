/**
 * The app's providers: zoneless change detection and one Agent that streams through the
 * app's own server (`/api/stream`), so the browser holds no provider key.
 */
import { inject, provideZonelessChangeDetection, type ApplicationConfig } from "@angular/core";
import type { Model } from "rxagent";
import { streamProxy } from "rxagent/proxy";
import { browserTools } from "../../../../demo/tools.js"; // the demo's browser-safe tools; in your app, your own AgentTools
import { provideAgent } from "./agent.service.js";
import { Session } from "./session.service.js";

/** The model to ask for; the server may pin another (`resolveModel`). */
const model: Model = { id: "gpt-4o-mini", api: "openai-completions", provider: "openai" };

/** Bootstrap configuration of the app. */
export const appConfig: ApplicationConfig = {
  providers: [
    provideZonelessChangeDetection(),
    provideAgent(() => {
      // The factory runs in an injection context: inject() here, once...
      const session = inject(Session);
      return {
        // ...and only read the service in the callback, which runs per request, outside it.
        streamFn: streamProxy({ url: "/api/stream", authToken: () => session.token() }),
        initialState: { systemPrompt: "Be brief. Use the tools.", model, tools: browserTools() },
      };
    }),
  ],
};
