/** Boots the standalone chat component with the app's providers. */
import { bootstrapApplication } from "@angular/platform-browser";
import { appConfig } from "./app/app.config.js";
import { ChatComponent } from "./app/chat.component.js";

bootstrapApplication(ChatComponent, appConfig).catch((error: unknown) => console.error(error));
