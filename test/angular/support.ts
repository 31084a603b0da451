/**
 * Helpers of the rxagent/angular tests: environment injectors as an app's root would be
 * (zoneless), a local Agent on the faux provider in virtual time, and a fake remote agent whose
 * streams count their subscribers.
 */
import { createEnvironmentInjector, type EnvironmentInjector, Injector, type Provider, provideZonelessChangeDetection } from "@angular/core";
import { BehaviorSubject, defer, EMPTY, finalize, map, type Observable, Subject, timer } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { expect } from "vitest";
import type { AgentConnection, AgentLike, AgentViewState } from "../../src/agent/agent-like.js";
import { Agent } from "../../src/agent/agent.js";
import type { AgentTool, AgentToolResult } from "../../src/model/tool-types.js";
import type { AgentEvent } from "../../src/model/types.js";
import { fauxProvider, type FauxScriptEntry } from "../../src/testing/index.js";

/** A zoneless environment injector with `providers`, a root one unless `parent` is given. */
export function zonelessInjector(providers: Provider[], parent?: EnvironmentInjector): EnvironmentInjector {
  return createEnvironmentInjector([provideZonelessChangeDetection(), ...providers], parent ?? (Injector.NULL as EnvironmentInjector));
}

/** A fresh TestScheduler that compares with `toStrictEqual`. */
export function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toStrictEqual(expected));
}

/** A tool that takes `frames` virtual frames (a timer on `scheduler`), then answers `done`. */
export function waitTool(scheduler: TestScheduler, frames: number, extra: Partial<AgentTool> = {}): AgentTool {
  return {
    name: "wait",
    label: "Wait",
    description: "Waits.",
    parameters: { type: "object" },
    execute: () => timer(frames, scheduler).pipe(map((): AgentToolResult => ({ content: [{ type: "text", text: "done" }] }))),
    ...extra,
  };
}

/** A local Agent on the faux provider, both on `scheduler`, with `tools`. */
export function virtualAgent(scheduler: TestScheduler, script: FauxScriptEntry[], tools: AgentTool[] = []): Agent {
  const provider = fauxProvider(script, { scheduler, chunkSize: 4 });
  return new Agent({ streamFn: provider, scheduler, initialState: { model: provider.model, tools } });
}

/** How many subscribers a stream has now. */
export interface Counted<T> {
  readonly stream: Observable<T>;
  readonly subscribers: () => number;
}

/** `source` with a live count of its subscribers. */
export function counted<T>(source: Observable<T>): Counted<T> {
  let subscribers = 0;
  const stream = defer(() => {
    subscribers++;
    return source.pipe(finalize(() => subscribers--));
  });
  return { stream, subscribers: () => subscribers };
}

/** The state of an idle agent with an empty transcript, as plain data (what a server would send). */
function idleState(): AgentViewState {
  const { model, thinkingLevel, usage } = new Agent().state;
  return { systemPrompt: "", model, thinkingLevel, messages: [], isStreaming: false, streamingMessage: undefined, pendingToolCalls: new Set(), errorMessage: undefined, pendingApprovals: [], usage, limit: undefined, cancellation: undefined, outcome: undefined };
}

/** A remote agent as the UI sees it, driven by the test: its streams count their subscribers, its commands are recorded. */
export class FakeRemoteAgent implements AgentLike {
  readonly states = new BehaviorSubject<AgentViewState>(idleState());
  readonly events = new Subject<AgentEvent>();
  readonly connections = new Subject<AgentConnection>();
  readonly counts = { state$: counted(this.states), events$: counted(this.events), connection$: counted(this.connections) };
  readonly state$ = this.counts.state$.stream;
  readonly events$ = this.counts.events$.stream;
  readonly connection$ = this.counts.connection$.stream;
  readonly calls: string[] = [];

  get state(): AgentViewState {
    return this.states.value;
  }

  /** Subscribers of all three streams. */
  subscribers(): number {
    return this.counts.state$.subscribers() + this.counts.events$.subscribers() + this.counts.connection$.subscribers();
  }

  prompt(): Promise<void> {
    this.calls.push("prompt");
    return Promise.resolve();
  }
  prompt$(): Observable<AgentEvent> {
    return defer(() => {
      this.calls.push("prompt$");
      return EMPTY;
    });
  }
  /** Set: the server refuses the next steering and follow-up messages (the requests fail). */
  refusing: Error | undefined;

  // As a remote agent's, the commands are requests and return their promise.
  steer(): Promise<void> {
    this.calls.push("steer");
    return this.refusing ? Promise.reject(this.refusing) : Promise.resolve();
  }
  followUp(): Promise<void> {
    this.calls.push("followUp");
    return this.refusing ? Promise.reject(this.refusing) : Promise.resolve();
  }
  abort(): void {
    this.calls.push("abort");
  }
  approve(toolCallId: string): void {
    this.calls.push(`approve ${toolCallId}`);
  }
  deny(toolCallId: string, reason?: string): void {
    this.calls.push(`deny ${toolCallId} ${reason}`);
  }
  close(): void {
    this.calls.push("close");
  }
}
