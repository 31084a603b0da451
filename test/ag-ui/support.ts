/**
 * Helpers of the AG-UI suites: small agents on the faux provider, and the AG-UI client's own
 * checks (its schema enforcement and its event verifier) as an operator.
 */
import { enforceEvents, verifyEvents, type BaseEvent } from "@ag-ui/client";
import { lastValueFrom, Observable, toArray, type OperatorFunction } from "rxjs";
import { Agent } from "../../src/agent/agent.js";
import type { AgentTool, AgentToolResult, Model } from "../../src/index.js";
import { fauxProvider, type FauxScriptEntry } from "../../src/testing/index.js";
import type { AgUiEvent } from "../../src/ag-ui/index.js";

export const model: Model = { id: "faux-1", api: "faux", provider: "faux" };

export function textResult(text: string): AgentToolResult {
  return { content: [{ type: "text", text }] };
}

/** A tool whose `execute` is given; its schema accepts any object. */
export function tool(name: string, execute: AgentTool["execute"], extra: Partial<AgentTool> = {}): AgentTool {
  return { name, label: name, description: `${name} tool`, parameters: { type: "object" }, execute, ...extra };
}

/** An Agent on the faux provider playing `script`, with `tools`. */
export function fauxAgent(script: readonly FauxScriptEntry[], tools: AgentTool[] = [], systemPrompt = "Be brief."): Agent {
  return new Agent({ initialState: { systemPrompt, model, tools }, streamFn: fauxProvider(script, { chunkSize: 4 }) });
}

/**
 * The AG-UI client's own reading of a stream: every event checked against the protocol's schemas
 * (`enforceEvents`, which throws on a malformed one) and the sequence rules (`verifyEvents`,
 * which errors on a broken one).
 */
export function checkedByClient(): OperatorFunction<AgUiEvent, BaseEvent> {
  // @ag-ui/client brings its own rxjs: its operators are applied through `pipe`'s structural typing.
  type ClientObservable = Parameters<ReturnType<typeof verifyEvents>>[0];
  return (events) => verifyEvents()(enforceEvents()(events as unknown as ClientObservable)) as unknown as Observable<BaseEvent>;
}

/** All events of a stream, after the client's checks (rejects with the verifier's error). */
export function verified(events: Observable<AgUiEvent>): Promise<BaseEvent[]> {
  return lastValueFrom(events.pipe(checkedByClient(), toArray()));
}

/** The event types in order. */
export function typesOf(events: readonly { type: string }[]): string[] {
  return events.map((event) => event.type);
}
