/**
 * OpenTelemetry tracing of an agent run, with the GenAI semantic conventions.
 *
 *   npx tsx examples/otel-tracing.ts
 *
 * `instrumentAgent` (from `rxagent/otel`) traces every run of an Agent: an `invoke_agent` span
 * for the run, a `chat {model}` span per model request and an `execute_tool {tool}` span per
 * tool call. The tool spans are children of the run span, so two calls that run in parallel
 * show as two overlapping siblings. Here the spans go to the SDK's in-memory exporter and are
 * printed as a tree; in an app, register an exporter to your backend instead (OTLP, Jaeger, …).
 */
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { map, timer } from "rxjs";
import { Agent, type AgentTool } from "../src/index.js"; // in your app: from "rxagent"
import { instrumentAgent } from "../src/otel/index.js"; // in your app: from "rxagent/otel"
import { fauxProvider, fauxToolCall } from "../src/testing/index.js"; // in your app: from "rxagent/testing"

// The SDK, registered globally: from now on the API's tracer records.
const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));

/** A pretend weather service: Paris answers in 150 ms, Oslo in 50 ms. */
const getWeather: AgentTool<{ city: string }> = {
  name: "get_weather",
  label: "Weather",
  description: "Current weather for a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  execute: (_id, { city }) => timer(city === "Paris" ? 150 : 50).pipe(map(() => ({ content: [{ type: "text" as const, text: `${city}: 12°C` }] }))),
};

// A scripted model: it asks for both cities at once, then answers.
const model = fauxProvider([
  { content: [fauxToolCall("get_weather", { city: "Paris" }), fauxToolCall("get_weather", { city: "Oslo" })], usage: { input: 120, output: 30 } },
  { content: "Paris 12°C, Oslo 12°C.", usage: { input: 180, output: 12 } },
]);
const agent = new Agent({ streamFn: model, initialState: { systemPrompt: "Be brief.", model: model.model, tools: [getWeather] } });

// One call traces every run; captureContent records the tool arguments (off by default: they may be personal data).
const stop = instrumentAgent(agent, { agentName: "weather-bot", captureContent: true });
await agent.prompt("Weather in Paris and Oslo?");
stop();

// ── the span tree ──────────────────────────────────────────────────────────────────────────
const spans = exporter.getFinishedSpans();
const ms = (time: [number, number]) => time[0] * 1000 + time[1] / 1e6;
const root = spans.find((span) => !span.parentSpanContext)!;
const t0 = ms(root.startTime);
const at = (span: ReadableSpan) => `${Math.round(ms(span.startTime) - t0)} → ${Math.round(ms(span.endTime) - t0)} ms`;

function describe(span: ReadableSpan): string {
  const a = span.attributes;
  switch (a["gen_ai.operation.name"]) {
    case "invoke_agent":
      return `tokens in ${a["gen_ai.usage.input_tokens"]}, out ${a["gen_ai.usage.output_tokens"]}`;
    case "chat":
      return `finish ${JSON.stringify(a["gen_ai.response.finish_reasons"])}, turn ${a["rxagent.turn"]}`;
    default:
      return `${a["gen_ai.tool.call.arguments"]} → ${a["gen_ai.tool.call.result"]}`;
  }
}

const children = spans
  .filter((span) => span.parentSpanContext?.spanId === root.spanContext().spanId)
  .sort((a, b) => ms(a.startTime) - ms(b.startTime) || ms(b.endTime) - ms(a.endTime));
console.log(`${root.name}  [${at(root)}]  ${describe(root)}`);
children.forEach((span, i) => console.log(`${i === children.length - 1 ? "└─" : "├─"} ${span.name}  [${at(span)}]  ${describe(span)}`));

const [paris, oslo] = children.filter((span) => span.name === "execute_tool get_weather");
console.log(`parallel: ${ms(oslo!.startTime) < ms(paris!.endTime) && ms(paris!.startTime) < ms(oslo!.endTime)} (both tool spans are children of ${root.name})`);

// ── no provider, no spans ──────────────────────────────────────────────────────────────────
trace.disable();
const before = exporter.getFinishedSpans().length;
const untraced = instrumentAgent(agent, { agentName: "weather-bot" });
agent.streamFn = fauxProvider([{ content: "Still 12°C in both." }]);
await agent.prompt("And now?");
untraced();
console.log(`without a tracer provider: ${exporter.getFinishedSpans().length - before} new spans`);
