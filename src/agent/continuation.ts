/**
 * What `continue()` runs (SPEC A3): after a user or tool-result message, the model is asked
 * again; after an assistant message, a run starts with one queued steering batch, else one
 * follow-up batch, and its polls take what else is queued (as in pi).
 *
 * @module
 */
import type { Observable } from "rxjs";
import { assertCanContinue } from "../loop/agent-loop.js";
import type { AgentEvent, AgentMessage } from "../model/types.js";
import type { AgentQueues, QueueName } from "./agent-queues.js";
import type { RunPlan } from "./run-plan.js";

/**
 * The run that continues `transcript`, started with `run`; throws when there is nothing to
 * continue from. @internal
 */
export function continuation(transcript: readonly AgentMessage[], queues: AgentQueues, run: (plan: RunPlan) => Observable<AgentEvent>): Observable<AgentEvent> {
  const last = transcript[transcript.length - 1] as { role?: string } | undefined;
  if (!last || transcript.every((m) => (m as { role?: string }).role === "system")) throw new Error("No messages to continue from");
  if (last.role === "assistant") {
    if (queues.steering.size > 0) return takeAndRun(queues, "steering", (prompts) => run({ prompts, skipInitialSteeringPoll: true }));
    if (queues.followUp.size > 0) return takeAndRun(queues, "followUp", (prompts) => run({ prompts }));
    throw new Error("Cannot continue from message role: assistant");
  }
  assertCanContinue(transcript);
  return run({});
}

/** Takes the run's prompts from `queue` only once the run exists: a run that cannot start (no streamFn) loses nothing. */
function takeAndRun(queues: AgentQueues, queue: QueueName, run: (prompts: AgentMessage[]) => Observable<AgentEvent>): Observable<AgentEvent> {
  const started = run(queues.queue(queue).peek());
  queues.take(queue);
  return started;
}
