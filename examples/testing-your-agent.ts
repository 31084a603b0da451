/**
 * Testing your own agent: the scripted provider, and marble tests in virtual time.
 *
 *   npx tsx examples/testing-your-agent.ts
 *
 * `fauxProvider` (from `rxagent/testing`) plays scripted replies as real protocol events and
 * records every request, so a test can say both "the agent did X" and "the model was sent Y".
 * Pass a `TestScheduler` to the provider, the tools and the Agent, and the whole run happens in
 * virtual time: a marble diagram asserts exactly when each event happens, without waiting.
 *
 * Here the checks use `node:assert`; in Vitest or Jest use `expect` the same way.
 */
import assert from "node:assert/strict";
import { filter, map, share, type SchedulerLike } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { Agent, type StreamFn } from "../src/index.js"; // in your app: from "rxagent"
import { toolCalls } from "../src/operators/index.js"; // in your app: from "rxagent/operators"
import { fauxProvider, fauxToolCall } from "../src/testing/index.js"; // in your app: from "rxagent/testing"
import { weatherTool } from "../demo/tools.js";

/** The agent under test: your app's factory, with the provider and the clock injectable. */
function createWeatherAgent(streamFn: StreamFn & { model: { id: string; api: string; provider: string } }, scheduler?: SchedulerLike): Agent {
  return new Agent({
    streamFn,
    scheduler,
    initialState: { systemPrompt: "Answer weather questions with get_weather.", model: streamFn.model, tools: [weatherTool({ scheduler, speed: 0.01 })] },
  });
}

async function test(name: string, body: () => void | Promise<void>): Promise<void> {
  await body();
  console.log(`✓ ${name}`);
}

await test("the tool result is sent back to the model, and the answer ends the run", async () => {
  const provider = fauxProvider([{ content: [fauxToolCall("get_weather", { city: "Paris" })] }, { content: "It's 18°C and raining in Paris." }]);
  const agent = createWeatherAgent(provider);
  await agent.prompt("Weather in Paris?");

  assert.equal(provider.requests.length, 2);
  const second = provider.requests[1]!.messages;
  const result = second.at(-1)!;
  assert.equal(result.role, "toolResult");
  assert.match(JSON.stringify(result.content), /Paris: 18°C, light rain/);
  assert.deepEqual(
    agent.state.messages.map((message) => message.role),
    ["system", "user", "assistant", "toolResult", "assistant"],
  );
});

await test("an unknown city becomes an error result the model can read (the run does not crash)", async () => {
  const provider = fauxProvider([{ content: [fauxToolCall("get_weather", { city: "Atlantis" })] }, { content: "I don't know Atlantis." }]);
  const agent = createWeatherAgent(provider);
  await agent.prompt("Weather in Atlantis?");
  const result = provider.requests[1]!.messages.at(-1)!;
  assert.equal(result.role === "toolResult" && result.isError, true);
  assert.equal(agent.state.errorMessage, undefined);
});

await test("marble: two calls run in parallel, each reports progress as it happens, the run ends after both", () => {
  const scheduler = new TestScheduler((actual, expected) => assert.deepEqual(actual, expected));
  scheduler.run(({ expectObservable }) => {
    // The provider emits one protocol event per frame; the weather service takes 2 frames per
    // step for Oslo and 3 for Paris (three progress steps, then the result).
    const provider = fauxProvider(
      [{ content: [fauxToolCall("get_weather", { city: "Paris" }), fauxToolCall("get_weather", { city: "Oslo" })] }, { content: "Done." }],
      { scheduler, delay: 1, chunkSize: 100 },
    );
    const agent = createWeatherAgent(provider, scheduler);
    const run$ = agent.prompt$("Weather in Paris and Oslo?").pipe(share());

    /**
     * One lane per city: s = started, u = progress update, E = ended. `toolCalls()` follows each
     * call by its id and keeps its arguments, so the lane picks the city's call by them.
     */
    const lane = (city: string) =>
      run$.pipe(
        toolCalls(),
        filter((call) => (call.args as { city: string }).city === city),
        map((call) => (call.status !== "running" ? "E" : call.partialResult ? "u" : "s")),
      );

    // frames 0-6: the assistant message streams (start, 2 × toolcall start/delta/end, done)
    // frame 7: both calls start; Oslo finishes first; frames 19-23: the final answer streams.
    expectObservable(lane("Oslo")).toBe(" 7ms s-u-u-u-E-------|");
    expectObservable(lane("Paris")).toBe("7ms s--u--u--u--E---|");
  });
});
