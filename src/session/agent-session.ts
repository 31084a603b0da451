/**
 * A session for an Agent (SPEC S1–S6): `agentSession({ store, id })` is the value of the Agent's
 * `session` option. It opens the session on `resume()` (lease, journal, check), installs what
 * the journal holds, finishes what a stopped process left open, journals from then on, and lets
 * the lease go on `closeSession()`.
 *
 * @module
 */
import { catchError, concat, defer, EMPTY, finalize, ignoreElements, isObservable, Observable, throwError } from "rxjs";
import type { AgentSession, SessionHost } from "../agent/session-port.js";
import type { AgentEvent } from "../model/types.js";
import { andThen, maybeAsync } from "../rx/maybe-async.js";
import type { AgentTool } from "../model/tool-types.js";
import { JOURNAL_VERSION, type ReplayPolicy } from "./journal-entry.js";
import { journalFailureText } from "./journal-failure.js";
import { SessionFencedError } from "./session-errors.js";
import { checkSessionOptions, openSession, type OpenedSession, type SessionOptions } from "./open-session.js";
import { planResume } from "./resume-plan.js";
import { SessionRecorder } from "./session-recorder.js";

/** A tool's replay policy (SPEC S5): `"never"` unless it declares `"safe"`. */
function replayPolicyOf(tools: readonly AgentTool[], name: string): ReplayPolicy {
  return tools.find((tool) => tool.name === name)?.replay === "safe" ? "safe" : "never";
}

/** A journal write as an event stream: empty, after the entries are durable. */
function durable(written: void | Observable<void>): Observable<AgentEvent> {
  return written ? written.pipe(ignoreElements()) : EMPTY;
}

/**
 * The session for the Agent's `session` option. The options are checked here (a `TypeError`
 * names what is wrong); the store is not touched until `resume()`.
 *
 * @example
 * ```ts
 * import { Agent } from "rxagent";
 * import { agentSession, InMemorySessionStore } from "rxagent/session";
 * const agent = new Agent({ initialState: { model }, streamFn, session: agentSession({ store: new InMemorySessionStore(), id: "chat-1" }) });
 * await agent.resume(); // the transcript as the last process left it
 * await agent.prompt("Hello");
 * ```
 */
export function agentSession(options: SessionOptions): AgentSession {
  checkSessionOptions(options);
  return new JournaledSession({ ...options });
}

class JournaledSession implements AgentSession {
  private state: "closed" | "opening" | "open" = "closed";
  /** The Agent it belongs to, from its first `resume()`. */
  private host: SessionHost | undefined;
  /** Whether it was open before (its queues are in the journal). */
  private openedBefore = false;
  private opened: { lease: OpenedSession["lease"]; recorder: SessionRecorder } | undefined;

  constructor(private readonly options: SessionOptions) {}

  get id(): string {
    return this.options.id;
  }

  get isOpen(): boolean {
    return this.state === "open";
  }

  isOpenFor(host: SessionHost): boolean {
    return this.state === "open" && this.host === host;
  }

  private checkOwner(host: SessionHost, call: string): void {
    if (this.host && this.host !== host) throw new Error(`${call}: the session "${this.id}" belongs to another Agent; build one agentSession() per Agent.`);
  }

  resume$(host: SessionHost): Observable<AgentEvent> {
    return defer(() => {
      this.checkOwner(host, "resume()");
      if (this.state !== "closed") throw new Error(`resume(): the session "${this.id}" is ${this.state} already.`);
      this.state = "opening";
      const opened = defer(() => {
        const result = openSession(this.options);
        return isObservable(result) ? result : [result];
      });
      // A failed or abandoned open leaves the session closed: resume() may be called again.
      return andThen(opened, (session) => this.adoptOrRelease(host, session)).pipe(
        finalize(() => {
          if (this.state === "opening") this.state = "closed";
        }),
      );
    });
  }

  close$(host: SessionHost): Observable<never> {
    return defer(() => {
      this.checkOwner(host, "closeSession()");
      const opened = this.opened;
      if (this.state !== "open" || !opened) return EMPTY;
      // Detached first: nothing the app does from now on is journaled under a lease it gave up.
      host.detach();
      this.opened = undefined;
      this.state = "closed";
      const written = opened.recorder.writer.whenDurable();
      if (!written) return this.release(opened.lease);
      return new Observable<never>((subscriber) =>
        written.subscribe({
          complete: () => this.release(opened.lease).subscribe(subscriber),
          error: (error: unknown) => this.unwritten(opened.lease, error).subscribe(subscriber),
        }),
      );
    });
  }

  /**
   * `closeSession()` found writes that failed. Fenced: the lease is another writer's, so nothing
   * is released and the close succeeds (the run that was fenced said so). Any other failure: the
   * lease is given back as well as the store allows, and the close rejects with it, since
   * something the app did (a queued message, a clear) is not on record.
   */
  private unwritten(lease: OpenedSession["lease"], error: unknown): Observable<never> {
    if (error instanceof SessionFencedError) return EMPTY;
    return concat(this.release(lease).pipe(catchError(() => EMPTY)), throwError(() => error));
  }

  /**
   * A write failed: nothing more is journaled under this writer. The session closes (the lease
   * is given back unless it was taken over already); `resume()` opens it again from the journal.
   */
  private closeAfterFailure(host: SessionHost, error: unknown): string {
    const opened = this.opened;
    if (opened && this.state === "open") {
      host.detach();
      this.opened = undefined;
      this.state = "closed";
      // Best effort: a store that cannot append may not release either; the lease then runs out.
      if (!(error instanceof SessionFencedError)) this.release(opened.lease).pipe(catchError(() => EMPTY)).subscribe();
    }
    return journalFailureText(this.id, error);
  }

  /** Gives the lease back to the store. */
  private release(lease: OpenedSession["lease"]): Observable<never> {
    const released = maybeAsync(() => this.options.store.release(lease.sessionId, lease.token), "error");
    return isObservable(released) ? released.pipe(ignoreElements()) : EMPTY;
  }

  /**
   * {@link adopt}, and when it refuses before installing anything (the Agent cannot finish the
   * journal's run), the lease goes back: another process need not wait out its time.
   */
  private adoptOrRelease(host: SessionHost, session: OpenedSession): Observable<AgentEvent> {
    try {
      return this.adopt(host, session);
    } catch (error) {
      if (this.state !== "opening") throw error;
      // The refusal is what the caller hears, whatever becomes of the release.
      return concat(this.release(session.lease).pipe(catchError(() => EMPTY)), throwError(() => error));
    }
  }

  /** Installs what the journal holds and starts what its plan says. */
  private adopt(host: SessionHost, session: OpenedSession): Observable<AgentEvent> {
    const { image } = session;
    const { state, queues } = host;
    const plan = image ? planResume(image) : undefined;
    // Checked before anything is installed: a resume that cannot run leaves the session closed.
    const missing = host.missing();
    if (plan?.kind === "continue" || plan?.kind === "tools") {
      if (missing) throw new Error(`resume(): session "${session.lease.sessionId}" has a run to finish, and the Agent has no ${missing} to finish it with.`);
      // The rest of what the run would refuse (its tools, its options), refused now.
      host.assertRunnable();
    }
    const recorder = new SessionRecorder(session.writer, () => host.now(), (name) => replayPolicyOf(state.tools, name), (error) => this.closeAfterFailure(host, error));
    // Queued before the session first opened: kept, after what the journal held, and journaled
    // now. When it opens again (after closeSession()), the journal is the truth.
    const early = { steering: queues.steering.clear(), followUp: queues.followUp.clear() };
    if (this.openedBefore) early.steering = early.followUp = [];
    this.openedBefore = true;
    if (image) {
      // One change: `state$` sees the transcript with its totals, error and outcome. A run the
      // stopped process left open and that is closed now ends with its last error and the
      // outcome its transcript makes clear (SPEC A9); else the last run's, as journaled.
      state.restore({
        messages: image.messages,
        usage: image.usage,
        errorMessage: plan?.kind === "close" ? plan.errorMessage : image.errorMessage,
        outcome: plan?.kind === "close" ? plan.outcome : image.outcome,
      });
      queues.restore("steering", image.steering.map((q) => q.message));
      queues.restore("followUp", image.followUp.map((q) => q.message));
      recorder.adopt("steering", image.steering);
      recorder.adopt("followUp", image.followUp);
    }
    // Bound to the first Agent whose open succeeded: a failed open leaves the session free.
    this.host = host;
    host.attach(recorder);
    this.opened = { lease: session.lease, recorder };
    this.state = "open";
    if (!image) {
      const at = host.now();
      void session.writer.write({ v: JOURNAL_VERSION, seq: 0, type: "created", at, sessionId: session.lease.sessionId }, { v: JOURNAL_VERSION, seq: 0, type: "transcript", at, messages: state.transcript.slice() });
    }
    for (const name of ["steering", "followUp"] as const) {
      for (const message of early[name]) {
        queues.queue(name).enqueue(message);
        recorder.enqueued(name, message);
      }
    }
    if (!plan) return durable(session.writer.whenDurable());
    switch (plan.kind) {
      case "idle":
        return EMPTY;
      case "close":
        return durable(recorder.runEnded(plan.errorMessage, plan.outcome));
      case "continue":
        return host.continue$();
      case "tools":
        if (plan.aborted) return host.run({ resume: plan, aborted: true });
        if (plan.approvals.length > 0) {
          // Waiting for a human: the run goes on when the first answer comes (approve / deny).
          host.park(plan);
          return durable(session.writer.whenDurable());
        }
        for (const [id, kept] of plan.answers) host.keep(id, kept);
        // The plan is the turn to finish: its message, settled outcomes and earlier stops.
        return host.run({ resume: plan });
    }
  }
}
