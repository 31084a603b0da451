/**
 * The demo's browser-safe tools: weather (an Observable that reports progress), a calculator
 * (a small parser, no `eval`) and a clock. No Node API here: the web example imports this file.
 * The Node-only `read_file` tool lives in `node-tools.ts`.
 *
 * @module
 */
import { asyncScheduler, last, map, take, tap, timer, type SchedulerLike } from "rxjs";
import type { AgentTool, AgentToolResult } from "../src/index.js";

/** Options shared by the demo tools. */
export interface DemoToolOptions {
  /** Scheduler for the tools' delays (a `TestScheduler` in marble tests). Default: `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /** Multiplies every delay: 0.1 makes the tools ten times faster. Default 1. */
  speed?: number;
}

/** Progress carried in `details` of each `tool_execution_update`, for UIs to draw a bar. */
export interface ToolProgress {
  progress: number;
  step: string;
}

interface City {
  name: string;
  timeZone: string;
  tempC: number;
  conditions: string;
  windKmh: number;
  /** Milliseconds per step of the (simulated) weather service. */
  latencyMs: number;
}

/** A fixed, made-up weather table: the demo is deterministic. */
export const CITIES: readonly City[] = [
  { name: "Paris", timeZone: "Europe/Paris", tempC: 18, conditions: "light rain", windKmh: 12, latencyMs: 320 },
  { name: "Tokyo", timeZone: "Asia/Tokyo", tempC: 24, conditions: "clear skies", windKmh: 8, latencyMs: 520 },
  { name: "Oslo", timeZone: "Europe/Oslo", tempC: 6, conditions: "snow showers", windKmh: 20, latencyMs: 180 },
  { name: "London", timeZone: "Europe/London", tempC: 14, conditions: "overcast", windKmh: 15, latencyMs: 260 },
  { name: "New York", timeZone: "America/New_York", tempC: 21, conditions: "sunny", windKmh: 10, latencyMs: 400 },
  { name: "Sydney", timeZone: "Australia/Sydney", tempC: 27, conditions: "humid, thunderstorms later", windKmh: 18, latencyMs: 600 },
  { name: "Berlin", timeZone: "Europe/Berlin", tempC: 11, conditions: "cloudy", windKmh: 14, latencyMs: 220 },
  { name: "Cairo", timeZone: "Africa/Cairo", tempC: 33, conditions: "hot and dry", windKmh: 9, latencyMs: 350 },
  { name: "San Francisco", timeZone: "America/Los_Angeles", tempC: 16, conditions: "fog", windKmh: 22, latencyMs: 450 },
  { name: "Mumbai", timeZone: "Asia/Kolkata", tempC: 31, conditions: "monsoon rain", windKmh: 25, latencyMs: 300 },
];

/** The city named `name` (case-insensitive), if the table knows it. */
export function findCity(name: string): City | undefined {
  const wanted = name.trim().toLowerCase();
  return CITIES.find((city) => city.name.toLowerCase() === wanted);
}

function text(value: string): AgentToolResult["content"] {
  return [{ type: "text", text: value }];
}

const WEATHER_STEPS = ["locating station", "reading observations", "reading forecast"];

/**
 * `get_weather`: an Observable tool that reports progress through `onUpdate` (each call is a
 * `tool_execution_update` event) and emits its result. Unsubscribing (abort) stops it.
 * Each city takes a different time, so parallel calls finish out of order.
 */
export function weatherTool(options: DemoToolOptions = {}): AgentTool<{ city: string }, ToolProgress | { city: string; tempC: number; conditions: string }> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const speed = options.speed ?? 1;
  return {
    name: "get_weather",
    label: "Weather",
    description: "Current weather for a city.",
    parameters: {
      type: "object",
      properties: { city: { type: "string", description: "City name, e.g. Paris" } },
      required: ["city"],
      additionalProperties: false,
    },
    execute: (_id, { city }, _signal, onUpdate) => {
      const known = findCity(city);
      const stepMs = Math.round((known?.latencyMs ?? 150) * speed);
      const steps = WEATHER_STEPS.length;
      return timer(stepMs, stepMs, scheduler).pipe(
        take(steps + 1),
        // Progress goes through `onUpdate` as it happens. (An Observable tool may also emit its
        // updates as values, but the loop can only tell an update from the result when the next
        // value arrives, so each would show one step late.)
        tap((i) => {
          if (i < steps) onUpdate({ content: text(`${city}: ${WEATHER_STEPS[i]}…`), details: { progress: (i + 1) / (steps + 1), step: WEATHER_STEPS[i]! } });
        }),
        last(),
        map((): AgentToolResult => {
          if (!known) {
            return { content: text(`Unknown city "${city}". Known cities: ${CITIES.map((c) => c.name).join(", ")}.`), isError: true };
          }
          return {
            content: text(`${known.name}: ${known.tempC}°C, ${known.conditions}, wind ${known.windKmh} km/h`),
            details: { city: known.name, tempC: known.tempC, conditions: known.conditions },
          };
        }),
      );
    },
  };
}

/** `calculate`: evaluates arithmetic with a small recursive-descent parser (never `eval`). */
export function calculatorTool(): AgentTool<{ expression: string }, { value: number }> {
  return {
    name: "calculate",
    label: "Calculator",
    description: "Evaluates an arithmetic expression: + - * / % ^ and parentheses.",
    parameters: {
      type: "object",
      properties: { expression: { type: "string", description: "e.g. (2 + 3) * 4" } },
      required: ["expression"],
      additionalProperties: false,
    },
    execute: (_id, { expression }) => {
      const value = evaluate(expression);
      return { content: text(`${expression} = ${formatNumber(value)}`), details: { value } };
    },
  };
}

/** `get_time`: the current time, optionally in a city's time zone or an IANA zone. */
export function clockTool(now: () => number = Date.now): AgentTool<{ timeZone?: string; city?: string }, { iso: string; timeZone: string }> {
  return {
    name: "get_time",
    label: "Clock",
    description: "The current date and time, optionally for a city or an IANA time zone.",
    parameters: {
      type: "object",
      properties: {
        city: { type: "string", description: "A city, e.g. Tokyo" },
        timeZone: { type: "string", description: "An IANA time zone, e.g. Europe/Paris" },
      },
      additionalProperties: false,
    },
    execute: async (_id, { city, timeZone }) => {
      const zone = timeZone ?? (city ? findCity(city)?.timeZone : undefined) ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
      const date = new Date(now());
      const formatted = new Intl.DateTimeFormat("en-GB", { timeZone: zone, dateStyle: "full", timeStyle: "short" }).format(date);
      return { content: text(`${city ? `${city}: ` : ""}${formatted} (${zone})`), details: { iso: date.toISOString(), timeZone: zone } };
    },
  };
}

/** The three browser-safe tools. */
export function browserTools(options: DemoToolOptions = {}): AgentTool[] {
  return [weatherTool(options), calculatorTool(), clockTool()];
}

/** `391`, `0.3333`, `1e+21`: short and exact enough for chat. */
export function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(10)));
}

/**
 * Evaluates `+ - * / % ^`, unary minus and parentheses. `x`, `×` and `÷` are accepted as the
 * model (or a user) might write them. Throws a readable error on anything else.
 */
export function evaluate(expression: string): number {
  const source = expression.replace(/×|(?<=[\d)\s])x(?=[\s\d(])/g, "*").replace(/÷/g, "/");
  let pos = 0;
  const peek = (): string => {
    while (source[pos] === " ") pos++;
    return source[pos] ?? "";
  };
  const fail = (what: string): never => {
    throw new Error(`Cannot evaluate "${expression}": ${what} at position ${pos + 1}`);
  };
  const primary = (): number => {
    const c = peek();
    if (c === "(") {
      pos++;
      const value = sum();
      if (peek() !== ")") fail("missing )");
      pos++;
      return value;
    }
    if (c === "-") {
      pos++;
      return -primary();
    }
    if (c === "+") {
      pos++;
      return primary();
    }
    const match = /^\d+(?:\.\d+)?|^\.\d+/.exec(source.slice(pos));
    if (!match) fail(c ? `unexpected "${c}"` : "unexpected end");
    pos += match![0].length;
    return Number(match![0]);
  };
  const power = (): number => {
    const base = primary();
    if (peek() === "^") {
      pos++;
      return base ** power();
    }
    return base;
  };
  const product = (): number => {
    let value = power();
    for (let c = peek(); c === "*" || c === "/" || c === "%"; c = peek()) {
      pos++;
      const right = power();
      if ((c === "/" || c === "%") && right === 0) fail("division by zero");
      value = c === "*" ? value * right : c === "/" ? value / right : value % right;
    }
    return value;
  };
  const sum = (): number => {
    let value = product();
    for (let c = peek(); c === "+" || c === "-"; c = peek()) {
      pos++;
      value = c === "+" ? value + product() : value - product();
    }
    return value;
  };
  const value = sum();
  if (peek() !== "") fail(`unexpected "${peek()}"`);
  return value;
}

