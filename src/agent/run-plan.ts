/**
 * What an `Agent` asks of one run: its prompts, or a continuation, a resumed turn or a resumed
 * abort (SPEC A3, S5).
 *
 * @module
 */
import type { AgentMessage } from "../model/types.js";
import type { ResumedTurn } from "../loop/run.js";

/** What a run starts with: prompts, or none for a continuation. */
export interface RunPlan {
  prompts?: AgentMessage[];
  /** The run's prompts are a steering batch `continue()` took: no second steering poll at its start. */
  skipInitialSteeringPoll?: boolean;
  /** The run finishes a turn a stopped process left open (a resumed session). */
  resume?: ResumedTurn;
  /** The run starts aborted: it resumes a run that had been aborted when its process stopped. */
  aborted?: boolean;
}

