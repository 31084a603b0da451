/** Helpers shared by the provider tests. */
import { lastValueFrom, toArray, type Observable } from "rxjs";
import { callStreamFn } from "../../../src/stream/stream-fn-call.js";
import type { AssistantMessage, AssistantMessageEvent, LlmContext, Model, StreamFn, StreamOptions } from "../../../src/model/messages.js";
import type { AgentTool } from "../../../src/model/tool-types.js";

/** A Chat Completions model as an app would describe it. */
export const model: Model = { id: "gpt-4o-mini", api: "openai-completions", provider: "openai", reasoning: false };

/** The events of one `StreamFn` call as an Observable, whatever it returned. */
export function events$(streamFn: StreamFn, context: LlmContext, options: StreamOptions = {}, m: Model = model): Observable<AssistantMessageEvent> {
  return callStreamFn(streamFn, m, context, options);
}

/** All events of one call. */
export function collect(streamFn: StreamFn, context: LlmContext, options: StreamOptions = {}, m: Model = model): Promise<AssistantMessageEvent[]> {
  return lastValueFrom(events$(streamFn, context, options, m).pipe(toArray()));
}

/** The final message of a list of events. */
export function finalMessage(events: AssistantMessageEvent[]): AssistantMessage {
  const last = events[events.length - 1];
  if (!last || (last.type !== "done" && last.type !== "error")) throw new Error(`no final event in ${events.map((e) => e.type).join(",")}`);
  return last.type === "done" ? last.message : last.error;
}

/** The event types in order, with runs of one delta type collapsed to `type×n`. */
export function shape(events: AssistantMessageEvent[]): string[] {
  const out: string[] = [];
  let run = 0;
  for (let i = 0; i < events.length; i++) {
    const type = events[i]!.type;
    run++;
    if (events[i + 1]?.type !== type || !type.endsWith("_delta")) {
      out.push(run > 1 ? `${type}×${run}` : type);
      run = 0;
    }
  }
  return out;
}

/** A simple transcript: a system prompt declaring one tool, then a user question. */
export function weatherContext(): LlmContext {
  return {
    messages: [
      {
        role: "system",
        content: "You are a weather assistant.",
        toolsAdded: [
          {
            name: "get_weather",
            description: "Current weather for a location",
            parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
          },
        ],
        timestamp: 0,
      },
      { role: "user", content: "Weather in Paris?", timestamp: 1 },
    ],
  };
}

/** A `get_weather` tool that records the arguments it is called with and answers "18°C, cloudy". */
export function weatherTool(calls: unknown[]): AgentTool {
  return {
    name: "get_weather",
    label: "Weather",
    description: "Current weather for a location",
    parameters: {
      type: "object",
      properties: { location: { type: "string" }, unit: { type: "string" }, days: { type: "array", items: { type: "number" } } },
      required: ["location"],
    },
    execute: async (_id, params) => {
      calls.push(params);
      return { content: [{ type: "text", text: "18°C, cloudy" }] };
    },
  };
}
