/**
 * Reads which agent to run (the server's `/config.json`), then boots the standalone chat
 * component with the app's providers and that choice.
 */
import { mergeApplicationConfig } from "@angular/core";
import { bootstrapApplication } from "@angular/platform-browser";
import { AGENT_CHOICE, loadAgentChoice } from "./app/agent-choice.js";
import { appConfig } from "./app/app.config.js";
import { ChatComponent } from "./app/chat.component.js";

loadAgentChoice()
  .then((choice) => bootstrapApplication(ChatComponent, mergeApplicationConfig(appConfig, { providers: [{ provide: AGENT_CHOICE, useValue: choice }] })))
  .catch((error: unknown) => console.error(error));
