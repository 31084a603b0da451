/**
 * One session as the server hosts it: its Agent, and the numbered log its followers read. The
 * log hears every event of the Agent (`events$`), and what changes its state between runs
 * without an event (a resume restoring the journal, approvals a restarted run waits for, a
 * transcript set on the server) as a state entry.
 *
 * @module
 */
import { defer, filter, finalize, Subject, type Observable, type Subscription } from "rxjs";
import type { Agent } from "../agent/agent.js";
import type { AgentState } from "../agent/agent-state-types.js";
import { initialAgentState, type AgentStateValue, type AgentStateView } from "../agent/agent-state-reducer.js";
import { initialRunState, withErrorMessage } from "../loop/run-state.js";
import { EventLog, type LoggedEvent } from "./event-log.js";
import { untilBegun } from "./until-begun.js";

/** `state` as a view to install: what a follower needs of it, the run state only as its error. */
function viewOfAgent(state: AgentState): AgentStateView {
  return {
    messages: state.messages.slice(),
    model: state.model,
    thinkingLevel: state.thinkingLevel,
    isStreaming: state.isStreaming,
    run: withErrorMessage(initialRunState, state.errorMessage),
    pendingApprovals: state.pendingApprovals,
    usage: state.usage,
    limit: state.limit,
    cancellation: state.cancellation,
    outcome: state.outcome,
  };
}

/** Whether the Agent's state, between runs, holds what the log's fold does not (runs seldom: only between runs). */
function drifted(log: AgentStateValue, agent: AgentState): boolean {
  const messages = agent.messages;
  if (messages.length !== log.messageCount || messages.some((message, index) => message !== log.messages[index])) return true;
  if (agent.model !== log.model || agent.thinkingLevel !== log.thinkingLevel || agent.errorMessage !== log.run.errorMessage || agent.outcome !== log.outcome) return true;
  if (agent.usage.totalTokens !== (log.usage?.totalTokens ?? 0) || agent.usage.cost.total !== (log.usage?.cost.total ?? 0)) return true;
  const ids = (list: AgentState["pendingApprovals"]) => list.map((request) => request.toolCallId).join("\n");
  return ids(agent.pendingApprovals) !== ids(log.pendingApprovals);
}

/**
 * A hosted session.
 *
 * @example
 * ```ts
 * const hosted = new HostedSession(agent, "k3j9", 4 << 20);
 * hosted.follow(lastEventId).subscribe((entry) => send(entry));
 * ```
 */
export class HostedSession {
  readonly log: EventLog;
  private readonly live = new Subject<LoggedEvent>();
  private readonly subscriptions: Subscription[] = [];
  private followers = 0;
  /** A resume is beginning: the state it restores is installed once it has begun, not before. */
  private resuming = false;

  constructor(
    readonly agent: Agent,
    epoch: string,
    maxReplayBytes: number,
    onError: (error: unknown) => void,
  ) {
    const { model, thinkingLevel } = agent.state;
    this.log = new EventLog(epoch, initialAgentState([], model, thinkingLevel, []), maxReplayBytes);
    this.log.install(viewOfAgent(agent.state));
    this.subscriptions.push(
      // An event that cannot be serialized (a cycle in a tool's details) is reported and left out,
      // never thrown into the Agent's stream.
      agent.events$.subscribe((event) => {
        try {
          this.live.next(this.log.append(event));
        } catch (error) {
          onError(error);
        }
      }),
      agent.state$
        .pipe(filter(() => !this.resuming && !agent.state.isStreaming && !this.log.view.isStreaming && drifted(this.log.view, agent.state)))
        .subscribe(() => this.live.next(this.log.install(viewOfAgent(agent.state)))),
    );
  }

  /**
   * What a follower whose last entry was `lastId` reads: the replay (`head`), then every new
   * entry (`live`), in order, without a gap or a repeat — as long as `live` is subscribed in the
   * same synchronous step as this call.
   *
   * ```text
   * log:     1-2-3-4-5-6-7
   * follow("e.4") at 5:      5 | 6-7    (4 held: the entries after it)
   * follow(undefined) at 5:  S-5 | 6-7  (S: the state at the checkpoint, here after 4)
   * ```
   */
  follow(lastId: string | null | undefined): { head: readonly LoggedEvent[]; live: Observable<LoggedEvent> } {
    const replay = this.log.replayAfter(lastId);
    const head = replay.kind === "events" ? replay.events : [{ n: replay.n, kind: "state" as const, data: replay.data }, ...replay.events];
    const live = defer(() => {
      this.followers++;
      return this.live.pipe(finalize(() => this.followers--));
    });
    return { head, live };
  }

  /** Every new entry of the log, as it is appended (not counted as a follower); completes on `close()`. */
  get entries$(): Observable<LoggedEvent> {
    return this.live.asObservable();
  }

  /** Whether it may be let go: nobody follows it and its Agent runs nothing. */
  get idle(): boolean {
    return this.followers === 0 && !this.agent.state.isStreaming;
  }

  /**
   * Hosts with `resuming` (what `onHosted` returned, `agent.resume$()`): subscribed and kept until
   * the session is let go; resolves once it has emitted or completed. The state it restores is
   * installed then, in the same synchronous step, as the Agent has it: a resumed run that goes
   * on is installed streaming, so no follower takes the restored transcript for the run's end.
   */
  async resume(resuming: Observable<unknown>, onLaterError: (error: unknown) => void): Promise<void> {
    this.resuming = true;
    const begun = (): void => {
      this.resuming = false;
      this.live.next(this.log.install(viewOfAgent(this.agent.state)));
    };
    try {
      this.subscriptions.push(await untilBegun(resuming, onLaterError, begun));
    } finally {
      this.resuming = false;
    }
  }

  /** Stops hearing the Agent (and stops a resume it keeps); followers' streams complete. The Agent itself is the app's. */
  close(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.live.complete();
  }
}
