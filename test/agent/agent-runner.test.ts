/**
 * How the Agent runs the loop (SPEC A4, A6): the loop reports its own failures as events, so an
 * error out of the loop's Observable is a bug in it. The Agent still ends that run: the error is
 * the state's `errorMessage`, the Agent is idle again, and the next run starts as usual.
 */
import { throwError } from "rxjs";
import { describe, expect, it, vi } from "vitest";
import { fauxProvider } from "../../src/testing/index.js";
import { agentWith, roles } from "./support.js";

/** When set, the next loop the Agent launches errors at once with it. */
const broken = vi.hoisted(() => ({ error: undefined as unknown }));

vi.mock("../../src/loop/agent-loop.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/loop/agent-loop.js")>();
  return {
    ...real,
    launchAgentLoop: (input: Parameters<typeof real.launchAgentLoop>[0]) => {
      const error = broken.error;
      broken.error = undefined;
      return error === undefined ? real.launchAgentLoop(input) : throwError(() => error);
    },
  };
});

describe("A6: a loop that errors (a bug in it) still ends the run", () => {
  it("A6 A4: the error is state.errorMessage, the run completes, the Agent is idle, and the next run goes as usual", () => {
    const agent = agentWith({ streamFn: fauxProvider([{ content: "fine" }]) });
    broken.error = new Error("the loop broke");
    const outcome: string[] = [];
    agent.prompt$("first").subscribe({ complete: () => outcome.push("complete"), error: () => outcome.push("error") });
    expect(outcome).toEqual(["complete"]);
    expect(agent.state.errorMessage).toBe("the loop broke");
    expect(agent.state.isStreaming).toBe(false);

    agent.prompt$("second").subscribe();
    expect(agent.state.errorMessage).toBeUndefined();
    expect(roles(agent.state.messages)).toEqual(["user", "assistant"]);
  });
});
