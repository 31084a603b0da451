/**
 * Carrying out a run plan on an agent, as a cold Observable of AG-UI events: subscribing starts
 * (or answers) the run, the agent's events are mapped until the AG-UI run ends, and
 * unsubscribing before that — the client went away — aborts the agent's run.
 *
 * @module
 */
import { defer, finalize, Observable, tap } from "rxjs";
import type { AgentLike } from "../agent/agent-like.js";
import type { AgentEvent } from "../model/types.js";
import type { ToAgUiEventsOptions } from "./ag-ui-options.js";
import { isSeedable, type RunPlan } from "./ag-ui-run-plan.js";
import type { AgUiEvent } from "./ag-ui-types.js";
import { toAgUiEvents } from "./to-ag-ui-events.js";

/** Starts what the plan says; resolves when the agent's run has settled (or, for a resume, once answered). */
async function start(agent: AgentLike, plan: RunPlan): Promise<void> {
  switch (plan.kind) {
    case "resume":
      for (const { toolCallId, decision } of plan.answers) {
        if (decision.approved) agent.approve(toolCallId, decision.args === undefined ? {} : { args: decision.args });
        else agent.deny(toolCallId, decision.reason);
      }
      return;
    case "continue":
      if (!isSeedable(agent)) throw new TypeError("Only an Agent can continue a conversation");
      agent.state.messages = plan.transcript;
      return agent.continue();
    case "prompt":
      if (plan.transcript !== undefined && isSeedable(agent)) agent.state.messages = plan.transcript;
      return agent.prompt(plan.message);
  }
}

/**
 * The AG-UI events of `plan` on `agent`. The agent's `events$` is followed from before the run
 * starts, so nothing of it is missed; a run that cannot start (or a loop that errors) ends the
 * AG-UI run with `RUN_ERROR` and is reported. Completing at an interrupt leaves the agent's run
 * waiting; unsubscribing before the AG-UI run ended aborts it.
 *
 * ```text
 * agent.events$: --a--b--e--      (e agent_end)
 * output:        R-A--B--F|       (R RUN_STARTED, F RUN_FINISHED); unsubscribed before F: agent.abort()
 * ```
 *
 * @example
 * ```ts
 * runOnAgent(agent, plan, { threadId, runId }, console.error).subscribe((event) => send(event));
 * ```
 */
export function runOnAgent(agent: AgentLike, plan: RunPlan, options: ToAgUiEventsOptions, report: (error: unknown) => void): Observable<AgUiEvent> {
  return defer(() => {
    let ended = false;
    const run = new Observable<AgentEvent>((subscriber) => {
      const following = agent.events$.subscribe(subscriber);
      // The promise settles when the agent's run does, which may be long after this AG-UI run
      // ended in an interrupt: a late failure is reported, and the closed subscriber ignores it.
      start(agent, plan).then(undefined, (error: unknown) => {
        report(error);
        subscriber.error(error);
      });
      return following;
    });
    return run.pipe(
      toAgUiEvents(plan.kind === "resume" ? { ...options, waiting: agent.state.pendingApprovals } : options),
      tap({ complete: () => (ended = true) }),
      finalize(() => {
        if (!ended) agent.abort();
      }),
    );
  });
}
