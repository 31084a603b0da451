/**
 * Renders an Agent's events in a terminal.
 *
 * On a TTY: colours, streamed text as it arrives, and a live block of progress rows (spinner
 * and bar) for the running tools, redrawn from `tool_execution_update`. Piped: one plain,
 * tagged line per thing that happened (`[user]`, `[assistant]`, `[tool ▶]`, ...), stable enough
 * for tests to assert.
 *
 * @module
 */
import type { AgentEvent, AgentMessage, AssistantMessage, Message, ToolResultMessage } from "../src/index.js";

/** Where and how to write. */
export interface TerminalOptions {
  write: (text: string) => void;
  /** Live rows, cursor movement and streamed text. */
  tty: boolean;
  /** ANSI colours (only ever on a TTY). */
  color: boolean;
  /** Columns, for truncating live rows. */
  columns?: number;
  /** Also print every event's type (`· tool_execution_start`), `message_update`s counted. */
  events?: boolean;
}

type Paint = (text: string) => string;

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

interface LiveRow {
  name: string;
  subject: string;
  progress: number | undefined;
  step: string;
  started: number;
}

/** How a user message got into the transcript, for its tag. */
export type UserMessageKind = "prompt" | "steer" | "follow-up";

function textOf(content: Message["content"]): string {
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** `get_weather(Paris)`: the tool and its most telling argument. */
export function describeToolCall(name: string, args: unknown): string {
  const values = args && typeof args === "object" ? Object.values(args as Record<string, unknown>) : [];
  const first = values.find((value) => typeof value === "string" || typeof value === "number");
  return first === undefined ? `${name}()` : `${name}(${String(first)})`;
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Writes agent events to a terminal or a pipe. */
export class TerminalView {
  private readonly paint: Record<"dim" | "bold" | "cyan" | "green" | "yellow" | "red" | "magenta" | "blue", Paint>;
  private readonly live = new Map<string, LiveRow>();
  private drawn = 0;
  private midLine = false;
  private frame = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private streamedText = 0;
  private streamedThinking = 0;
  private readonly kinds = new WeakMap<object, UserMessageKind>();
  private readonly ended = new Set<string>();
  private turns = 0;
  private updates = 0;

  constructor(private readonly options: TerminalOptions) {
    const code = (open: number, close: number): Paint => (options.color ? (text) => `\x1b[${open}m${text}\x1b[${close}m` : (text) => text);
    this.paint = {
      dim: code(2, 22),
      bold: code(1, 22),
      cyan: code(36, 39),
      green: code(32, 39),
      yellow: code(33, 39),
      red: code(31, 39),
      magenta: code(35, 39),
      blue: code(34, 39),
    };
  }

  /** Tags a user message before it is sent, so it is shown as steering or follow-up. */
  mark(message: AgentMessage, kind: UserMessageKind): void {
    this.kinds.set(message as object, kind);
  }

  /** A permanent line (above the live rows). */
  line(text: string): void {
    this.clearLive();
    if (this.midLine) {
      this.options.write("\n");
      this.midLine = false;
    }
    this.options.write(`${text}\n`);
    this.drawLive();
  }

  /** An informational line: `[tag] text`. */
  note(tag: string, text: string, paint: keyof TerminalView["paint"] = "dim"): void {
    this.line(`${this.paint[paint](`[${tag}]`)} ${text}`);
  }

  /** Renders one event. */
  render(event: AgentEvent): void {
    if (this.options.events) this.traceEvent(event);
    switch (event.type) {
      case "turn_start":
        this.turns++;
        this.line(this.paint.dim(`[turn ${this.turns}]`));
        break;
      case "message_start":
        this.messageStart(event.message);
        break;
      case "message_update":
        if (this.options.tty) this.streamUpdate(event.message as AssistantMessage, event.assistantMessageEvent);
        break;
      case "message_end":
        this.messageEnd(event.message);
        break;
      case "tool_execution_start": {
        const subject = describeToolCall(event.toolName, event.args);
        this.live.set(event.toolCallId, { name: event.toolName, subject, progress: 0, step: "starting", started: Date.now() });
        if (this.options.tty) this.redraw();
        else this.line(`[tool ▶] ${subject}`);
        this.ensureTimer();
        break;
      }
      case "tool_execution_update": {
        const row = this.live.get(event.toolCallId);
        const details = event.partialResult.details as { progress?: number; step?: string } | undefined;
        const step = details?.step ?? oneLine(textOf(event.partialResult.content), 60);
        const progress = typeof details?.progress === "number" ? details.progress : undefined;
        if (row) {
          row.progress = progress;
          row.step = step;
        }
        if (this.options.tty) this.redraw();
        else this.line(`[tool …] ${row?.subject ?? event.toolName} ${progress === undefined ? "" : `${Math.round(progress * 100)}% `}${step}`.trimEnd());
        break;
      }
      case "tool_execution_end": {
        const row = this.live.get(event.toolCallId);
        this.live.delete(event.toolCallId);
        this.ended.add(event.toolCallId);
        const subject = row?.subject ?? event.toolName;
        const ms = event.durationMs ?? (row ? Date.now() - row.started : undefined);
        const time = ms === undefined ? "" : this.paint.dim(` (${ms} ms)`);
        const summary = oneLine(textOf(event.result.content), 100);
        const mark = event.isError ? this.paint.red("[tool ✖]") : this.paint.green("[tool ✔]");
        this.line(`${mark} ${subject} → ${summary}${time}`);
        if (this.live.size === 0) this.stopTimer();
        break;
      }
      case "turn_end":
      case "agent_start":
      case "agent_end":
        break;
    }
  }

  private traceEvent(event: AgentEvent): void {
    if (event.type === "message_update") {
      this.updates++;
      return;
    }
    if (this.updates > 0) {
      this.line(this.paint.dim(`  · message_update ×${this.updates}`));
      this.updates = 0;
    }
    this.line(this.paint.dim(`  · ${event.type}`));
  }

  /** Stops the spinner and clears the live rows. */
  close(): void {
    this.stopTimer();
    this.live.clear();
    this.clearLive();
    if (this.midLine) {
      this.options.write("\n");
      this.midLine = false;
    }
  }

  private messageStart(message: AgentMessage): void {
    const m = message as Message;
    if (m.role === "user") {
      const kind = this.kinds.get(message as object) ?? "prompt";
      const tag = kind === "prompt" ? "[user]" : kind === "steer" ? "[user · steering]" : "[user · follow-up]";
      this.line(`${this.paint.bold(this.paint.blue(tag))} ${textOf(m.content)}`);
    } else if (m.role === "assistant") {
      this.streamedText = 0;
      this.streamedThinking = 0;
    }
  }

  private streamUpdate(message: AssistantMessage, update: { type: string }): void {
    const block = message.content[(update as { contentIndex?: number }).contentIndex ?? -1];
    if (!block) return;
    if (update.type === "thinking_start") this.stream(this.paint.magenta("[thinking] "));
    else if (update.type === "text_start") this.stream(this.paint.cyan("[assistant] "));
    else if (update.type === "thinking_delta" && block.type === "thinking") {
      this.stream(this.paint.dim(block.thinking.slice(this.streamedThinking)));
      this.streamedThinking = block.thinking.length;
    } else if (update.type === "text_delta" && block.type === "text") {
      this.stream(block.text.slice(this.streamedText));
      this.streamedText = block.text.length;
    } else if (update.type === "thinking_end" || update.type === "text_end") {
      this.streamedText = 0;
      this.streamedThinking = 0;
      this.endLine();
    }
  }

  private endLine(): void {
    if (!this.midLine) return;
    this.options.write("\n");
    this.midLine = false;
    this.drawLive();
  }

  private stream(text: string): void {
    this.clearLive();
    this.options.write(text);
    this.midLine = !text.endsWith("\n");
  }

  private messageEnd(message: AgentMessage): void {
    const m = message as Message;
    if (m.role === "assistant") {
      if (!this.options.tty) {
        for (const block of m.content) {
          if (block.type === "thinking") this.line(`[thinking] ${oneLine(block.thinking, 400)}`);
          else if (block.type === "text" && block.text) this.line(`[assistant] ${block.text}`);
        }
      }
      for (const block of m.content) if (block.type === "toolCall") this.line(`${this.paint.dim("[tool call]")} ${block.name} ${JSON.stringify(block.arguments)}`);
      if (m.stopReason === "aborted") this.note("aborted", m.errorMessage ?? "The run was aborted.", "yellow");
      if (m.stopReason === "error") this.note("error", m.errorMessage ?? "The model failed.", "red");
    } else if (m.role === "toolResult") {
      // Shown by tool_execution_end; a result without an execution (aborted before it started) is shown here.
      const result = m as ToolResultMessage;
      if (!this.ended.has(result.toolCallId)) this.line(`${this.paint.yellow("[tool ✖]")} ${result.toolName} → ${oneLine(textOf(result.content), 100)}`);
    }
  }

  private rowText(row: LiveRow): string {
    const spinner = this.paint.cyan(SPINNER[this.frame % SPINNER.length]!);
    const width = 16;
    const filled = Math.round((row.progress ?? 0) * width);
    const bar = row.progress === undefined ? "" : `${this.paint.green("█".repeat(filled))}${this.paint.dim("░".repeat(width - filled))} ${String(Math.round((row.progress ?? 0) * 100)).padStart(3)}% `;
    const elapsed = this.paint.dim(`${((Date.now() - row.started) / 1000).toFixed(1)}s`);
    const text = `  ${spinner} ${row.subject.padEnd(24)} ${bar}${row.step} ${elapsed}`;
    const columns = this.options.columns ?? 120;
    return this.options.color ? text : text.slice(0, columns - 1);
  }

  private clearLive(): void {
    if (!this.options.tty || this.drawn === 0) return;
    this.options.write(`\x1b[${this.drawn}A\x1b[0J`);
    this.drawn = 0;
  }

  private drawLive(): void {
    if (!this.options.tty || this.live.size === 0 || this.midLine) return;
    const rows = [...this.live.values()].map((row) => this.rowText(row));
    this.options.write(`${rows.join("\n")}\n`);
    this.drawn = rows.length;
  }

  private redraw(): void {
    this.clearLive();
    this.drawLive();
  }

  private ensureTimer(): void {
    if (!this.options.tty || this.timer) return;
    this.timer = setInterval(() => {
      this.frame++;
      this.redraw();
    }, 80);
    (this.timer as { unref?: () => void }).unref?.();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** Counts a run: turns, tool calls, events, tokens. */
export interface RunStats {
  turns: number;
  toolCalls: number;
  events: number;
  tokens: number;
}

/** The reducer for `scan`: one event in, updated counts out. */
export function countEvent(stats: RunStats, event: AgentEvent): RunStats {
  return {
    turns: stats.turns + (event.type === "turn_start" ? 1 : 0),
    toolCalls: stats.toolCalls + (event.type === "tool_execution_start" ? 1 : 0),
    events: stats.events + 1,
    tokens: stats.tokens + (event.type === "message_end" && (event.message as Message).role === "assistant" ? (event.message as AssistantMessage).usage.totalTokens : 0),
  };
}

/** The empty counts, `scan`'s seed. */
export const NO_STATS: RunStats = { turns: 0, toolCalls: 0, events: 0, tokens: 0 };

/** `[summary] 5 turns · 7 tool calls · 212 events · 3.4 s · 1234 tokens` */
export function summaryLine(stats: RunStats, elapsedMs: number): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  return `${plural(stats.turns, "turn")} · ${plural(stats.toolCalls, "tool call")} · ${plural(stats.events, "event")} · ${(elapsedMs / 1000).toFixed(1)} s · ${plural(stats.tokens, "token")}`;
}
