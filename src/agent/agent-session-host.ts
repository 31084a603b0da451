/**
 * What an `Agent` lets its session do (SPEC S1–S6): the {@link SessionHost} it hands
 * `rxagent/session`, over its state, queues and runner.
 *
 * @module
 */
import type { AgentQueues } from "./agent-queues.js";
import type { AgentRunner } from "./agent-runner.js";
import type { AgentStateStore } from "./agent-state.js";
import type { SessionHost, SessionJournal } from "./session-port.js";

/** The Agent's own steps a session may take (see {@link SessionHost}). @internal */
export type AgentSteps = Pick<SessionHost, "now" | "assertRunnable" | "missing" | "continue$" | "run">;

/** The host of a session over an Agent's parts; `steps` are the Agent's own. @internal */
export function agentSessionHost(store: AgentStateStore, queues: AgentQueues, runner: Pick<AgentRunner, "recorder" | "desk">, steps: AgentSteps): SessionHost {
  return {
    state: store,
    queues,
    now: steps.now,
    assertRunnable: steps.assertRunnable,
    missing: steps.missing,
    attach: (journal: SessionJournal) => {
      runner.recorder = journal;
      queues.observer = journal;
      store.onReplaced = (messages, reset) => journal.replaced(messages, reset);
    },
    detach: () => {
      runner.recorder = undefined;
      queues.observer = undefined;
      store.onReplaced = undefined;
      store.parked = undefined;
      runner.desk.forget();
      store.showApprovals([]);
    },
    continue$: steps.continue$,
    run: steps.run,
    park: (run) => {
      store.parked = run;
      store.showApprovals(run.approvals);
    },
    keep: (toolCallId, decision) => runner.desk.keep(toolCallId, decision),
  };
}
