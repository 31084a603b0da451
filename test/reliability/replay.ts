/**
 * Property runs with a printed, replayable seed.
 *
 * Replay a failure exactly (the seed and the shrunk path are printed with it):
 *   RXAGENT_SEED=123 RXAGENT_PATH="4:1:0" npx vitest run test/reliability/generated.test.ts -t "Agent.prompt$"
 * `RXAGENT_RUNS=20000` multiplies the runs of every property (for a longer local hunt).
 */
import fc from "fast-check";
import { fingerprint, runScenario, type Trace } from "./harness.js";
import { checkTrace } from "./invariants.js";
import type { Scenario } from "./scenario.js";

const envSeed = process.env.RXAGENT_SEED;
const envPath = process.env.RXAGENT_PATH;
const envRuns = process.env.RXAGENT_RUNS;

/** The violations of one scenario: every invariant, and the same trace when run again. */
export function violations(scenario: Scenario): { trace: Trace; violations: string[] } {
  const trace = runScenario(scenario);
  const found = checkTrace(trace);
  const again = runScenario(scenario);
  if (fingerprint(again) !== fingerprint(trace)) found.push("the same scenario gave a different trace the second time");
  return { trace, violations: found };
}

/** Total runs per `npm test`, summed over every `checkScenarios` call (the issue asks for ≥ 2 000). */
export const runCounter = { runs: 0 };

/**
 * Checks `runs` generated scenarios. `name` is (part of) the test's title, so the printed
 * replay command selects that property with `-t`. On failure the error names the seed, the path of the
 * shrunk counterexample, the command that replays it, the scenario and its violations.
 */
export function checkScenarios(name: string, arbitrary: fc.Arbitrary<Scenario>, runs: number): void {
  const seed = envSeed !== undefined ? Number(envSeed) : (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;
  const numRuns = envPath !== undefined ? 1 : envRuns !== undefined ? Math.max(runs, Math.round((runs * Number(envRuns)) / 2000)) : runs;
  let last: string[] = [];
  const details = fc.check(
    fc.property(arbitrary, (scenario) => {
      runCounter.runs++;
      last = violations(scenario).violations;
      return last.length === 0;
    }),
    { seed, numRuns, ...(envPath !== undefined ? { path: envPath } : {}) },
  );
  if (!details.failed) return;
  const scenario = details.counterexample?.[0];
  const replay = `RXAGENT_SEED=${details.seed} RXAGENT_PATH="${details.counterexamplePath}" npx vitest run test/reliability/generated.test.ts -t "${name}"`;
  // Recompute on the shrunk scenario: `last` may belong to a later shrinking attempt.
  let found = last;
  try {
    if (scenario) found = violations(scenario).violations;
  } catch (error) {
    found = [`the run threw: ${(error as Error)?.stack ?? String(error)}`];
  }
  const thrown = details.errorInstance ? `\nthrown: ${(details.errorInstance as Error).stack ?? String(details.errorInstance)}` : "";
  const message = [
    `${name}: invariant violated (seed ${details.seed}, after ${details.numRuns} runs, ${details.numShrinks} shrinks)`,
    `replay: ${replay}`,
    ...found.map((v) => `  - ${v}`),
    `scenario: ${JSON.stringify(scenario)}${thrown}`,
  ].join("\n");
  console.error(message);
  throw new Error(message);
}
