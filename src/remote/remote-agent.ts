/**
 * An agent that runs on a session server, followed from a page (or a Node process) as if it
 * ran here: the same `state`, `state$`, `events$` and commands as `Agent` (`AgentLike`), plus
 * `connection$`. Its state is the fold of the server's entries by the Agent's own reducer, so a
 * component cannot tell the two apart. A dropped connection is resumed from the last entry read,
 * with backoff: no event is lost or told twice.
 *
 * @module
 */
import { BehaviorSubject, defer, distinctUntilChanged, EMPTY, Observable, repeat, retry, Subject, type SchedulerLike, type Subscription } from "rxjs";
import type { AgentConnection, AgentLike, AgentViewState } from "../agent/agent-like.js";
import { initialAgentState, reduceAgentState, type AgentStateValue, type AgentStateView } from "../agent/agent-state-reducer.js";
import type { PromptInput } from "../agent/prompt-input.js";
import type { ImageContent } from "../model/messages.js";
import { placeholderModel } from "../model/placeholder-model.js";
import type { AgentEvent, AgentMessage } from "../model/types.js";
import { foldView } from "../wire/view-fold.js";
import { WireEventDecoder, type WireEvent } from "../wire/wire-event.js";
import { commandBody, postCommand } from "./remote-command.js";
import { reconnectDelay, silence, type ReconnectOptions } from "./reconnect.js";
import { sseMessages, type SseMessage } from "./sse-messages.js";
import { viewState } from "./view-state.js";

/** How to reach a session on a session server. */
export interface RemoteAgentOptions {
  /** The session's address: `{events, commands}` are below it (`https://host/sessions/chat-1`). */
  url: string;
  /** The headers of every request (a bearer token); read again on each reconnect. */
  headers?: () => Record<string, string> | Promise<Record<string, string>>;
  /** Another `fetch` (tests, a proxy's). */
  fetch?: typeof fetch;
  /** Backoff after a dropped connection. */
  reconnect?: ReconnectOptions;
  /** The clock of the backoff and of the idle timeout (virtual time in tests). */
  scheduler?: SchedulerLike;
  /** Longest line of the event stream, in characters (a state entry holds the transcript). Default 64 Mi. */
  maxLineBytes?: number;
  /**
   * Longest silence of a connection — no answer, no entry, no heartbeat — before it is taken as
   * dropped and resumed (a server that vanished without closing it). Keep it above the server's
   * `heartbeatMs`. Default 45 s (three of the server's default heartbeats); `Infinity`: never.
   */
  idleTimeoutMs?: number;
}

/** What the server answers when the page may not follow the session: no retry helps. */
const REFUSALS = new Set([401, 403, 404, 405]);

/** A refused event stream. */
class Refused extends Error {
  constructor(readonly status: number) {
    super(`The session server refused the event stream (${status}).`);
  }
}

/** An id's epoch and number. */
function position(id: string | undefined): { epoch: string; n: number } | undefined {
  const dot = id?.lastIndexOf(".") ?? -1;
  return id && dot > 0 ? { epoch: id.slice(0, dot), n: Number(id.slice(dot + 1)) } : undefined;
}

/**
 * A session on a session server, as an `AgentLike`. It connects when made; `close()` ends it.
 *
 * @example
 * ```ts
 * const agent = new RemoteAgent({ url: "/sessions/chat-1", headers: () => ({ authorization: `Bearer ${token}` }) });
 * agent.connection$.subscribe((c) => banner.show(c.status));
 * await agent.prompt("What changed in the last release?");
 * ```
 */
export class RemoteAgent implements AgentLike {
  private value: AgentStateValue = initialAgentState([], placeholderModel(), "off", []);
  private readonly states = new BehaviorSubject<AgentViewState>(viewState(this.value));
  private readonly events = new Subject<AgentEvent>();
  private readonly connection = new BehaviorSubject<AgentConnection>({ status: "reconnecting", attempt: 0, delayMs: 0 });
  // Where runs were seen to settle: an `agent_end`, or a state that streams nothing and waits for no answer.
  private readonly settledAt: string[] = [];
  private readonly settled = new Subject<string>();
  private decoder = new WireEventDecoder();
  private lastId: string | undefined;
  private readonly subscription: Subscription;

  constructor(private readonly options: RemoteAgentOptions) {
    const idle = options.idleTimeoutMs;
    if (idle !== undefined && !(idle > 0)) throw new TypeError(`RemoteAgent: \`idleTimeoutMs\` must be a positive number of milliseconds, got ${String(idle)}`);
    this.subscription = this.follow().subscribe();
  }

  get state(): AgentViewState {
    return this.states.value;
  }
  get state$(): Observable<AgentViewState> {
    return this.states.asObservable();
  }
  get events$(): Observable<AgentEvent> {
    return this.events.asObservable();
  }
  get connection$(): Observable<AgentConnection> {
    return this.connection.pipe(distinctUntilChanged((a, b) => a.status === b.status && a.status !== "reconnecting"));
  }

  /** Starts a run on the server; resolves when it has ended. Rejects with the server's text when refused. */
  async prompt(input: PromptInput, images?: ImageContent[]): Promise<void> {
    if (typeof input !== "string") throw new TypeError("A remote agent is prompted with text (and images): the server makes the user message.");
    const { at } = await this.send(commandBody.prompt(input, images));
    await this.endAfter(at);
  }
  /**
   * `prompt()` as an Observable (cold): the run's events from its `agent_start`; completes when
   * the run has settled, errors with the server's text when refused. Unsubscribing before that
   * stops the run on the server (an abort sent once the prompt was accepted).
   *
   * ```text
   * prompt$("hi"):  --s-u-u-e|     (s agent_start, e agent_end)
   * unsubscribed:   --s-u-!        → abort
   * ```
   */
  prompt$(input: PromptInput, images?: ImageContent[]): Observable<AgentEvent> {
    return new Observable<AgentEvent>((subscriber) => {
      if (typeof input !== "string") throw new TypeError("A remote agent is prompted with text (and images): the server makes the user message.");
      let started = false;
      let settled = false;
      const events = this.events.subscribe((event) => {
        if (!started && event.type !== "agent_start") return;
        started = true;
        subscriber.next(event);
      });
      const accepted = this.send(commandBody.prompt(input, images));
      const done = (end: () => void) => () => ((settled = true), end());
      accepted.then(({ at }) => this.endAfter(at)).then(done(() => subscriber.complete()), (error: unknown) => done(() => subscriber.error(error))());
      return () => {
        events.unsubscribe();
        if (!settled) accepted.then(() => this.abort(), () => undefined).catch(() => undefined);
      };
    });
  }

  steer(message: AgentMessage | string): Promise<void> {
    return this.fire(() => commandBody.text("steer", message));
  }
  followUp(message: AgentMessage | string): Promise<void> {
    return this.fire(() => commandBody.text("follow_up", message));
  }
  abort(): Promise<void> {
    return this.fire(() => ({ type: "abort" }));
  }
  approve(toolCallId: string, options: { args?: unknown } = {}): Promise<void> {
    return this.fire(() => (options.args === undefined ? { type: "approve", toolCallId } : { type: "approve", toolCallId, args: options.args }));
  }
  deny(toolCallId: string, reason?: string): Promise<void> {
    return this.fire(() => (reason === undefined ? { type: "deny", toolCallId } : { type: "deny", toolCallId, reason }));
  }

  /** Stops following: the connection closes, `connection$` says offline, the streams complete. */
  close(): void {
    this.subscription.unsubscribe();
    this.connection.next({ status: "offline" });
    this.connection.complete();
    this.settled.complete();
    this.events.complete();
    this.states.complete();
  }

  private send(body: unknown): Promise<{ at: string }> {
    return postCommand(this.options, body);
  }

  // A command a caller may ignore (as `Agent`'s are `void`): its failure, a bad argument's too,
  // reaches an awaiting caller, and never becomes an unhandled rejection.
  private fire(body: () => unknown): Promise<void> {
    const sent = new Promise<unknown>((resolve) => resolve(body())).then((made) => this.send(made)).then(() => undefined);
    sent.catch(() => undefined);
    return sent;
  }

  /**
   * Resolves when the run started after `at` has settled: an `agent_end` after it, or a state
   * after it that streams nothing and waits for no approval (a resume past the replay bound), or
   * such news of another server process (it restarted: the run's fate is in its state; a run it
   * resumed and that waits for an answer settles at its end).
   */
  private endAfter(at: string): Promise<void> {
    const after = position(at);
    if (!after) return Promise.resolve();
    const sameProcessLater = (id: string) => {
      const p = position(id);
      return !!p && p.epoch === after.epoch && p.n > after.n;
    };
    if (this.settledAt.some(sameProcessLater)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiting = this.settled.subscribe({
        next: (id) => {
          if (position(id)?.epoch === after.epoch && !sameProcessLater(id)) return;
          waiting.unsubscribe();
          resolve();
        },
        complete: () => reject(new Error("The remote agent was closed before the run ended.")),
      });
    });
  }

  private settle(id: string | undefined): void {
    if (!id) return;
    this.settledAt.push(id);
    if (this.settledAt.length > 16) this.settledAt.shift();
    this.settled.next(id);
  }

  private follow(): Observable<SseMessage> {
    const { scheduler, reconnect } = this.options;
    return defer(() => this.connect()).pipe(
      // A stream the server ended is a drop too: the run lives on there.
      repeat({ delay: () => reconnectDelay(1, reconnect, scheduler, this.connection) }),
      retry({
        delay: (error: unknown, attempt) => {
          // Refused (no right, no such session): trying again changes nothing.
          if (error instanceof Refused) {
            this.connection.next({ status: "refused", httpStatus: error.status });
            return EMPTY;
          }
          return reconnectDelay(attempt, reconnect, scheduler, this.connection);
        },
        resetOnSuccess: true,
      }),
    );
  }

  private connect(): Observable<SseMessage> {
    return new Observable<SseMessage>((subscriber) => {
      const controller = new AbortController();
      const { url, fetch: fetchFn = fetch, headers, scheduler, idleTimeoutMs = 45_000 } = this.options;
      // Every answer and chunk says the link lives; silence past the bound ends this try (the teardown aborts it).
      const alive = new Subject<void>();
      // Past 2³¹−1 ms a timer would fire at once: that long is never.
      if (idleTimeoutMs < 2 ** 31) subscriber.add(silence(alive, idleTimeoutMs, scheduler).subscribe({ error: (error: unknown) => subscriber.error(error) }));
      const open = async (): Promise<ReadableStream<Uint8Array>> => {
        const sent = { accept: "text/event-stream", ...(await headers?.()), ...(this.lastId ? { "last-event-id": this.lastId } : {}) };
        const response = await fetchFn(`${url}/events`, { headers: sent, signal: controller.signal, cache: "no-store" });
        if (response.ok && response.body) return response.body;
        await response.body?.cancel().catch(() => undefined);
        if (REFUSALS.has(response.status)) throw new Refused(response.status);
        throw new Error(`The session server answered ${response.status} to the event stream.`);
      };
      const reading = defer(open).subscribe({
        next: (body) => {
          alive.next();
          this.connection.next({ status: "connected" });
          const messages = sseMessages(body, this.options.maxLineBytes ?? 64 << 20, () => alive.next());
          subscriber.add(
            messages.subscribe({
              next: (message) => {
                try {
                  this.receive(message);
                } catch (error) {
                  // An entry that does not read: resume from a state, not from here.
                  this.lastId = undefined;
                  subscriber.error(error);
                  return;
                }
                subscriber.next(message);
              },
              error: (e: unknown) => subscriber.error(e),
              complete: () => subscriber.complete(),
            }),
          );
        },
        error: (error: unknown) => subscriber.error(error),
      });
      subscriber.add(reading);
      return () => controller.abort();
    });
  }

  // The server sends each entry once per connection, after the last one read (or a state that
  // replaces those it no longer holds), so every entry is folded and told as it comes.
  private receive({ id, event, data }: SseMessage): void {
    if (event === "state") {
      this.value = reduceAgentState(this.value, { type: "[state] installed", view: JSON.parse(data) as AgentStateView });
      this.decoder = new WireEventDecoder();
      this.lastId = id;
      this.states.next(viewState(this.value));
      // A run a restarted server resumed waits for approvals without streaming: it has not settled.
      if (!this.value.isStreaming && this.value.pendingApprovals.length === 0) this.settle(id);
      return;
    }
    if (event !== "agent") return;
    const agentEvent = this.decoder.decode(JSON.parse(data) as WireEvent);
    this.value = foldView(this.value, agentEvent);
    this.lastId = id;
    // The state first, as an Agent's: a subscriber of events$ reads the state after the event.
    this.states.next(viewState(this.value));
    this.events.next(agentEvent);
    if (agentEvent.type === "agent_end") this.settle(id);
  }
}
