/**
 * The chat: the transcript and the tool panel from signals, the streaming text through the
 * `async` pipe, a turn counter made with `toSignal`, Send (Steer while a run is going) and Stop.
 */
import { AsyncPipe } from "@angular/common";
import { ChangeDetectionStrategy, Component, computed, inject } from "@angular/core";
import { toSignal } from "@angular/core/rxjs-interop";
import { scan, startWith, switchMap } from "rxjs";
import type { AssistantMessage } from "rxagent";
import { ofType } from "rxagent/operators";
import { AgentService, textOf, type ToolActivity } from "./agent.service.js";

/** One line of the transcript as the template draws it. */
interface Bubble {
  role: string;
  text: string;
  /** An assistant message cut short by Stop. */
  stopped: boolean;
}

/** The app's only component: a chat with a live tool panel. */
@Component({
  selector: "app-chat",
  imports: [AsyncPipe],
  changeDetection: ChangeDetectionStrategy.OnPush,
  styleUrl: "./chat.component.css",
  template: `
    <main>
      <ol class="messages">
        @for (bubble of bubbles(); track $index) {
          <li [attr.data-role]="bubble.role" [class.stopped]="bubble.stopped">{{ bubble.text }} @if (bubble.stopped) { <small>⏹ stopped</small> }</li>
        }
        @if (chat.isStreaming()) {
          <li data-role="assistant" class="streaming">{{ chat.streamingText$ | async }}</li>
        }
      </ol>
      <form (submit)="$event.preventDefault(); send(box)">
        <input #box data-testid="input" placeholder="The weather in Tokyo? 6 * 7?" autocomplete="off" />
        <button data-testid="send">{{ chat.isStreaming() ? "Steer" : "Send" }}</button>
        <button type="button" data-testid="stop" (click)="chat.abort()" [disabled]="!chat.isStreaming()">Stop</button>
      </form>
    </main>
    <aside>
      <p><span class="status" [attr.data-status]="chat.status()">{{ chat.status() }}</span> · turn <span class="turns">{{ turns() }}</span></p>
      <ul class="tools">
        @for (tool of chat.tools(); track tool.id) {
          <li [attr.data-tool]="tool.name" [attr.data-status]="tool.status">{{ call(tool) }} <progress max="1" [value]="tool.progress"></progress> {{ tool.text }}</li>
        }
      </ul>
    </aside>
  `,
})
export class ChatComponent {
  readonly chat = inject(AgentService);

  /**
   * Turns of the current run, counted from the service's events$: each agent_start switches to a
   * new count of turn_start events. toSignal unsubscribes when the component goes.
   */
  readonly turns = toSignal(
    this.chat.events$.pipe(
      ofType("agent_start"),
      switchMap(() => this.chat.events$.pipe(ofType("turn_start"), scan((turns) => turns + 1, 0), startWith(0))),
    ),
    { initialValue: 0 },
  );

  /** The transcript without system messages. */
  readonly bubbles = computed(() =>
    this.chat.messages().flatMap((message): Bubble[] => {
      const role = (message as { role?: string }).role ?? "custom";
      if (role === "system") return [];
      return [{ role, text: textOf(message), stopped: role === "assistant" && (message as AssistantMessage).stopReason === "aborted" }];
    }),
  );

  /** Sends the box's text: a prompt when idle, steering while a run is going. */
  send(box: HTMLInputElement): void {
    const text = box.value.trim();
    box.value = "";
    if (text) void this.chat.send(text);
  }

  /** A tool row's heading, e.g. `get_weather(Tokyo)`. */
  call(tool: ToolActivity): string {
    return `${tool.name}(${Object.values((tool.args ?? {}) as Record<string, unknown>).join(", ")})`;
  }
}
