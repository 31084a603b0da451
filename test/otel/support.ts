/**
 * The official OpenTelemetry SDK with its in-memory exporter, and helpers to read the spans a
 * run left: as a tree of names, by name, in frames of virtual time.
 */
import type { Context, HrTime } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, type Sampler, SimpleSpanProcessor, type Span, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { map, of, tap, timer } from "rxjs";
import type { AgentTool, AgentToolResult, UserMessage } from "../../src/index.js";

/** Counts the spans started and not yet ended: a leak shows as a span left here. */
export class OpenSpans implements SpanProcessor {
  readonly open = new Set<string>();
  onStart(span: Span, _context: Context): void {
    this.open.add(span.name + " " + span.spanContext().spanId);
  }
  onEnd(span: ReadableSpan): void {
    this.open.delete(span.name + " " + span.spanContext().spanId);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** A tracer provider of the SDK that keeps every finished span in memory. */
export function recorder(sampler?: Sampler) {
  const exporter = new InMemorySpanExporter();
  const openSpans = new OpenSpans();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter), openSpans], ...(sampler ? { sampler } : {}) });
  return {
    provider,
    exporter,
    /** Finished spans, in the order they started. */
    spans: (): ReadableSpan[] => [...exporter.getFinishedSpans()].sort((a, b) => compareTime(a.startTime, b.startTime)),
    open: (): string[] => [...openSpans.open],
  };
}

function compareTime(a: HrTime, b: HrTime): number {
  return a[0] - b[0] || a[1] - b[1];
}

/** Milliseconds of an `HrTime`. */
export function millis(time: HrTime): number {
  return time[0] * 1000 + time[1] / 1e6;
}

/** A span's start and end in milliseconds (frames, under a virtual clock), rounded to 1 µs. */
export function when(span: ReadableSpan): { start: number; end: number } {
  const r = (t: HrTime) => Math.round(millis(t) * 1000) / 1000;
  return { start: r(span.startTime), end: r(span.endTime) };
}

/** The spans as an indented tree of names, children in start order (ties by name). */
export function tree(spans: readonly ReadableSpan[]): string[] {
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const children = new Map<string | undefined, ReadableSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    const key = parent && ids.has(parent) ? parent : undefined;
    children.set(key, [...(children.get(key) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number): void => {
    const list = (children.get(parent) ?? []).slice().sort((a, b) => compareTime(a.startTime, b.startTime) || a.name.localeCompare(b.name));
    for (const span of list) {
      lines.push(`${"  ".repeat(depth)}${span.name}`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

/** The one span named `name` (and matching `where`). */
export function only(spans: readonly ReadableSpan[], name: string, where: (span: ReadableSpan) => boolean = () => true): ReadableSpan {
  const found = spans.filter((s) => s.name === name && where(s));
  if (found.length !== 1) throw new Error(`expected one span "${name}", found ${found.length}: ${spans.map((s) => s.name).join(", ")}`);
  return found[0]!;
}

/** The attribute keys every span carries, joined: for "no content attribute anywhere". */
export function attributeKeys(spans: readonly ReadableSpan[]): Set<string> {
  return new Set(spans.flatMap((s) => Object.keys(s.attributes)));
}

export function user(text: string, timestamp = 0): UserMessage {
  return { role: "user", content: text, timestamp };
}

export function textResult(text: string): AgentToolResult {
  return { content: [{ type: "text", text }] };
}

/**
 * A tool that answers `text` after `frames` frames (an Observable tool, SPEC T1); `cancelled`
 * hears it unsubscribed before it answered.
 */
export function delayedTool(name: string, frames: number, text: string, description = `${name} tool`, cancelled?: () => void): AgentTool {
  return {
    name,
    label: name,
    description,
    parameters: { type: "object" },
    execute: () => timer(frames).pipe(map(() => textResult(text)), tap({ unsubscribe: cancelled })),
  };
}

/** A tool that answers at once (a plain value keeps the run synchronous, SPEC L12). */
export function instantTool(name: string, text = `${name} done`): AgentTool {
  return { name, label: name, description: `${name} tool`, parameters: { type: "object" }, execute: () => of(textResult(text)) };
}
