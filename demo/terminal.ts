/**
 * Renders an Agent's events in a terminal.
 *
 * On a TTY: colours, streamed text as it arrives, and a live block at the bottom of the screen,
 * erased and redrawn as a whole: the streamed line not yet ended, lines that arrived while text
 * streamed, a progress row (spinner and bar) per running tool, and what the user is typing.
 * Everything above the block is permanent and never rewritten. Piped: one plain, tagged line per
 * thing that happened (`[user]`, `[assistant]`, `[tool ▶]`, ...), stable enough for tests to assert.
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

/** What the user is typing while a run owns the screen: readline's prompt, `rl.line` and `rl.cursor`. */
export interface InputLine {
  prompt: string;
  line: string;
  /** Index into `line` (UTF-16 units, as readline counts). */
  cursor: number;
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

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/g;

/**
 * Columns a character takes: 0 for combining marks and joiners, 2 for wide ones (CJK, most
 * emoji), else 1. A rough wcwidth: the block's row count depends on it.
 */
function charWidth(code: number): number {
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
  if ((code >= 0x300 && code <= 0x36f) || (code >= 0x200b && code <= 0x200f) || (code >= 0xfe00 && code <= 0xfe0f)) return 0;
  if (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

/** A model's text without the control characters that would move the cursor behind the view's back. */
function clean(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(CONTROL, "");
}

/** Columns `text` takes on one row (colours ignored). */
function textWidth(text: string): number {
  let width = 0;
  for (const ch of text.replace(ANSI, "")) width += ch === "\t" ? 1 : charWidth(ch.codePointAt(0)!);
  return width;
}

/**
 * Rows one line of `text` takes on a terminal `columns` wide. Like xterm, a full row wraps only
 * when the next character comes, so exactly `columns` characters take one row.
 */
function rowsOf(text: string, columns: number): number {
  let rows = 1;
  let column = 0;
  for (const ch of text.replace(ANSI, "")) {
    if (ch === "\t") {
      // A tab stops at the right margin; it never wraps.
      if (column < columns) column = Math.min(columns - 1, (Math.floor(column / 8) + 1) * 8);
      continue;
    }
    const width = charWidth(ch.codePointAt(0)!);
    if (width === 0) continue;
    if (column + width > columns) {
      rows++;
      column = 0;
    }
    column += width;
  }
  return rows;
}

/** A pseudo-terminal nobody sized reports 0 columns: then a common width is the best guess. */
function widthOr120(columns: number | undefined): number {
  return columns !== undefined && columns > 0 ? columns : 120;
}

/** The start of `text` that fits in `width` columns, colour codes kept (and reset if cut). */
function fit(text: string, width: number): string {
  let out = "";
  let used = 0;
  for (const token of text.match(/\x1b\[[0-9;?]*[A-Za-z]|[\s\S]/gu) ?? []) {
    if (token.startsWith("\x1b")) {
      out += token;
      continue;
    }
    const w = token === "\t" ? 1 : charWidth(token.codePointAt(0)!);
    if (used + w > width) return text.includes("\x1b") ? `${out}\x1b[0m` : out;
    out += token;
    used += w;
  }
  return out;
}

/** Writes agent events to a terminal or a pipe. */
export class TerminalView {
  private readonly paint: Record<"dim" | "bold" | "cyan" | "green" | "yellow" | "red" | "magenta" | "blue", Paint>;
  private readonly live = new Map<string, LiveRow>();
  /** Rows of the live block on screen. The cursor is on its last row; 0: at the start of an empty row. */
  private drawn = 0;
  /** Whether the block on screen has more than the streamed line (then text cannot simply be appended). */
  private drawnExtras = false;
  /** The streamed line not yet ended by a line break: part of the live block until it ends. */
  private pending = "";
  /** Inside a streamed thinking or text block. */
  private streaming = false;
  /** Lines that came while a block streamed: shown under it, printed after it. */
  private held: string[] = [];
  private typing: (() => InputLine) | undefined;
  private columns: number;
  private frame = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private streamedText = 0;
  private streamedThinking = 0;
  private readonly kinds = new WeakMap<object, UserMessageKind>();
  private readonly ended = new Set<string>();
  private turns = 0;
  private updates = 0;

  constructor(private readonly options: TerminalOptions) {
    this.columns = widthOr120(options.columns);
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

  /**
   * A permanent line (above the live rows). While text streams it is held under the streamed
   * line and printed once the block ends: printed at once it would cut the answer in two, and
   * held out of sight the user would not see their steering note or an error until the end.
   */
  line(text: string): void {
    if (!this.options.tty) return this.options.write(`${text}\n`);
    if (this.streaming) {
      this.held.push(...text.split("\n"));
      this.repaint();
    } else {
      this.repaint(`${text}\n`);
    }
  }

  /**
   * Where the user's typing comes from while a run owns the screen (readline's output is shut
   * then): drawn as the last row of the live block, so redraws never wipe it. `undefined` hands
   * the row back to readline, erased.
   */
  input(source: (() => InputLine) | undefined): void {
    this.typing = source;
    this.repaint();
  }

  /** Redraws the live block, e.g. after a keystroke changed the input line. */
  refresh(): void {
    this.repaint();
  }

  /** The terminal's width changed. */
  resize(columns: number | undefined): void {
    this.columns = widthOr120(columns);
    this.repaint();
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
        if (this.options.tty) this.repaint();
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
        if (this.options.tty) this.repaint();
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

  /** Stops the spinner, ends a streamed line and clears the live block. */
  close(): void {
    this.stopTimer();
    this.live.clear();
    this.typing = undefined;
    this.endBlock();
    this.repaint();
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
      this.stream(clean(block.thinking.slice(this.streamedThinking)), this.paint.dim);
      this.streamedThinking = block.thinking.length;
    } else if (update.type === "text_delta" && block.type === "text") {
      this.stream(clean(block.text.slice(this.streamedText)));
      this.streamedText = block.text.length;
    } else if (update.type === "thinking_end" || update.type === "text_end") {
      this.streamedText = 0;
      this.streamedThinking = 0;
      this.endBlock();
    }
  }

  /** Streams text: ended lines become permanent, the rest stays in the live block. */
  private stream(plain: string, paint?: Paint): void {
    this.streaming = true;
    if (!plain) return;
    // Painted line by line: a colour left open across a line break would leak into the block.
    const text = paint ? plain.split("\n").map((part) => (part ? paint(part) : part)).join("\n") : plain;
    const cut = text.lastIndexOf("\n");
    if (!this.drawnExtras && !this.hasExtras()) {
      // Only the streamed line is on screen: append to it as is (no redraw, no flicker).
      this.options.write(text);
      this.pending = cut < 0 ? this.pending + text : text.slice(cut + 1);
      this.drawn = this.pending ? rowsOf(this.pending, this.columns) : 0;
      return;
    }
    const ended = cut < 0 ? "" : `${this.pending}${text.slice(0, cut + 1)}`;
    this.pending = cut < 0 ? this.pending + text : text.slice(cut + 1);
    this.repaint(ended);
  }

  /** Ends a streamed block: its last line, then the lines held meanwhile, become permanent. */
  private endBlock(): void {
    const ended = (this.pending ? `${this.pending}\n` : "") + this.held.map((line) => `${line}\n`).join("");
    this.pending = "";
    this.held = [];
    this.streaming = false;
    if (ended) this.repaint(ended);
  }

  private messageEnd(message: AgentMessage): void {
    const m = message as Message;
    if (m.role === "assistant") {
      // A stream that failed or was aborted mid-way has no text_end: its line ends here, before the error.
      this.endBlock();
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
    // One row each, coloured or not: a wrapped row would throw the block's row count off.
    return fit(text, this.columns - 1);
  }

  /** Whether the block has more than the streamed line: held lines, tool rows or typing. */
  private hasExtras(): boolean {
    return this.held.length > 0 || this.live.size > 0 || Boolean(this.typing?.().line);
  }

  /**
   * The one way the screen changes on a TTY, in one write: erase the live block, print
   * `permanent` (whole lines) where it was, draw the block again below.
   */
  private repaint(permanent = ""): void {
    if (!this.options.tty) {
      if (permanent) this.options.write(permanent);
      return;
    }
    const erase = this.drawn === 0 ? "" : `\r${this.drawn > 1 ? `\x1b[${this.drawn - 1}A` : ""}\x1b[0J`;
    const lines: string[] = [];
    if (this.pending) lines.push(this.pending);
    lines.push(...this.held);
    for (const row of this.live.values()) lines.push(this.rowText(row));
    this.drawnExtras = lines.length > (this.pending ? 1 : 0);
    let cursor = "";
    const typed = this.typing?.();
    if (typed?.line) {
      const { text, column } = this.inputRow(typed);
      lines.push(text);
      cursor = `\r${column > 0 ? `\x1b[${column}C` : ""}`;
      this.drawnExtras = true;
    } else if (this.drawnExtras) {
      // An empty last row, where the cursor waits (and the user's typing will show).
      lines.push("");
    }
    this.drawn = lines.reduce((rows, line) => rows + rowsOf(line, this.columns), 0);
    const out = `${erase}${permanent}${lines.join("\n")}${cursor}`;
    if (out) this.options.write(out);
  }

  /**
   * The input row: prompt and typed text on one row. A longer line shows the part around the
   * cursor after an ellipsis, so the block's row count stays known.
   */
  private inputRow({ prompt, line, cursor }: InputLine): { text: string; column: number } {
    const flat = line.replace(/\t/g, " ").replace(CONTROL, "");
    const room = this.columns - 1 - textWidth(prompt);
    if (textWidth(flat) <= room) return { text: `${prompt}${flat}`, column: textWidth(prompt) + textWidth(flat.slice(0, cursor)) };
    let start = 0;
    while (start < cursor && textWidth(flat.slice(start, cursor)) > room - 1) start += /[\ud800-\udbff]/.test(flat[start]!) ? 2 : 1;
    return { text: `${prompt}…${fit(flat.slice(start), room - 1)}`, column: textWidth(prompt) + 1 + textWidth(flat.slice(start, cursor)) };
  }

  private ensureTimer(): void {
    if (!this.options.tty || this.timer) return;
    this.timer = setInterval(() => {
      this.frame++;
      this.repaint();
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
