/**
 * Stack safety (SPEC L4): the turn loop is a trampolined `expand`, so a long synchronous run
 * neither overflows the stack nor silently stalls (rxjs 7's plain `expand` with synchronous
 * inner Observables stops after ~900 steps, swallowing the RangeError). Timing is measured in
 * the benchmark, not asserted here.
 */
import { of } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop, runAgentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentMessage, AgentTool } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxScriptEntry } from "../../src/testing/index.js";
import { contextWith, model, textResult, tool, user } from "../helpers/fixtures.js";

const TURNS = 100_000;

function script(turns: number): FauxScriptEntry[] {
  const entries: FauxScriptEntry[] = [];
  for (let i = 1; i < turns; i++) entries.push({ content: [fauxToolCall("tick", {}, `c${i}`)] });
  entries.push({ content: "done" });
  return entries;
}

/** Subscribes and runs synchronously, counting instead of keeping 1.5M events. */
function drive(events$: ReturnType<typeof agentLoop>) {
  let count = 0;
  let turnEnds = 0;
  let error: unknown;
  let completed = false;
  let end: AgentMessage[] | undefined;
  events$.subscribe({
    next: (event: AgentEvent) => {
      count++;
      if (event.type === "turn_end") turnEnds++;
      if (event.type === "agent_end") end = event.messages;
    },
    error: (e) => (error = e),
    complete: () => (completed = true),
  });
  return { count, turnEnds, error, completed, end };
}

const tick: AgentTool = tool("tick", () => textResult("ok"));

describe("L4: stack safety", () => {
  it(`L4: ${TURNS.toLocaleString("en")} synchronous turns (scripted provider, instant tool) complete — no stall, no RangeError`, () => {
    const provider = fauxProvider(script(TURNS));
    const result = drive(agentLoop([user("go")], contextWith([tick]), { model }, undefined, provider));
    expect(result.error).toBeUndefined();
    expect(result.completed).toBe(true);
    expect(result.turnEnds).toBe(TURNS);
    expect(provider.requests).toHaveLength(TURNS);
    // prompt + (assistant + result) per tool turn + the final answer
    expect(result.end).toHaveLength(1 + 2 * (TURNS - 1) + 1);
    expect((result.end!.at(-1) as { stopReason: string }).stopReason).toBe("stop");
  });

  it("L4: the waiting-emit path is stack-safe too (an emit returning a synchronous Observable for every event)", () => {
    const turns = 20_000;
    const provider = fauxProvider(script(turns));
    const result = drive(runAgentLoop({ prompts: [user("go")], context: contextWith([tick]), config: { model }, streamFn: provider, emit: () => of(undefined) }));
    expect(result.error).toBeUndefined();
    expect(result.completed).toBe(true);
    expect(result.turnEnds).toBe(turns);
  });

  it("L4: synchronous Observable tools and hooks that return synchronous Observables stay stack-safe", () => {
    const turns = 20_000;
    const provider = fauxProvider(script(turns));
    const observableTick = tool("tick", () => of(textResult("50%"), textResult("ok")));
    const result = drive(
      agentLoop([user("go")], contextWith([observableTick]), {
        model,
        getSteeringMessages: () => of([]),
        beforeToolCall: () => of(undefined),
        afterToolCall: () => of(undefined),
        finishTurn: () => of(undefined),
        prepareNextTurn: () => of(undefined),
      }, undefined, provider),
    );
    expect(result.error).toBeUndefined();
    expect(result.completed).toBe(true);
    expect(result.turnEnds).toBe(turns);
  });
});
