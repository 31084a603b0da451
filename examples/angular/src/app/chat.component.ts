/**
 * The chat: a header with the status and the link to the agent, the transcript with the answer
 * as it streams, what is queued to be sent, the tool panel, an approval dialog, and the composer
 * pinned at the bottom. Everything it shows comes from `injectAgent()`'s signals.
 */
import { afterRenderEffect, ChangeDetectionStrategy, Component, computed, type ElementRef, viewChild } from "@angular/core";
import { toSignal } from "@angular/core/rxjs-interop";
import { scan, startWith, switchMap } from "rxjs";
import type { AssistantMessage } from "rxagent";
import { injectAgent, messageText } from "rxagent/angular";
import { ofType } from "rxagent/operators";
import { statusOf } from "./status.js";
import { toolRow } from "./tool-row.js";

/** One line of the transcript as the template draws it. */
interface Bubble {
  role: string;
  text: string;
  /** An assistant message cut short by Stop. */
  stopped: boolean;
}

/** The app's only component. */
@Component({
  selector: "app-chat",
  changeDetection: ChangeDetectionStrategy.OnPush,
  styleUrl: "./chat.component.css",
  templateUrl: "./chat.component.html",
})
export class ChatComponent {
  readonly chat = injectAgent();

  /** Running, stopped (the last run was aborted), error, or idle. */
  readonly status = computed(() => statusOf(this.chat.state()));

  /** What the link indicator says: always "connected" for an agent in the page. */
  readonly link = computed(() => {
    const connection = this.chat.connection();
    if (connection.status !== "reconnecting") return connection.status;
    // Attempt 0 is a remote agent's first connection.
    return connection.attempt === 0 ? "connecting…" : `reconnecting (attempt ${connection.attempt})…`;
  });

  /**
   * Turns of the current run, counted from events$: each agent_start switches to a new count of
   * turn_start events. toSignal unsubscribes when the component goes.
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
      return [{ role, text: messageText(message), stopped: role === "assistant" && (message as AssistantMessage).stopReason === "aborted" }];
    }),
  );

  /** The tool panel: the calls of the current (or last) run. */
  readonly tools = computed(() => this.chat.toolCalls().map(toolRow));

  /** The call the dialog asks about: the first that waits. */
  readonly approval = computed(() => this.chat.pendingApprovals()[0]);

  private readonly transcript = viewChild.required<ElementRef<HTMLElement>>("transcript");

  constructor() {
    // Keep the end of the transcript in view as it grows: after each render where what it shows changed.
    afterRenderEffect(() => {
      this.bubbles();
      this.chat.streamingText();
      this.chat.queued();
      this.tools();
      const element = this.transcript().nativeElement;
      element.scrollTop = element.scrollHeight;
    });
  }

  /** Sends the box's text: a prompt when idle, steering while a run is going. */
  send(box: HTMLInputElement): void {
    const text = box.value.trim();
    box.value = "";
    if (text) void this.chat.send(text);
  }

  /** The arguments of a call, for the dialog. */
  args(args: unknown): string {
    return JSON.stringify(args);
  }
}
