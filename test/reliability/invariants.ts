/**
 * The invariants, checked on every generated run. Each check returns the violations
 * it found as readable sentences; an empty list means the run kept every promise.
 */
import type { AgentEvent, AgentMessage, AssistantMessage, Message, ToolCall, ToolResultMessage } from "../../src/index.js";
import { label, type Trace, VALID_ARGS } from "./harness.js";
import type { Block } from "./scenario.js";

type Events = readonly AgentEvent[];

const isAssistant = (m: AgentMessage): m is AssistantMessage => (m as Message).role === "assistant";
const isToolResult = (m: AgentMessage): m is ToolResultMessage => (m as Message).role === "toolResult";
const failedStop = (m: AssistantMessage): boolean => m.stopReason === "error" || m.stopReason === "aborted";
const callsOf = (m: AssistantMessage): ToolCall[] => m.content.filter((b): b is ToolCall => b.type === "toolCall");
/** Tool calls that must be answered: those of an assistant message the run goes on from. */
const answerable = (m: AssistantMessage): ToolCall[] => (failedStop(m) ? [] : callsOf(m));

/**
 * Events are well bracketed. `complete`: the run must also have ended (one `agent_end`, last).
 * A prefix (a hard-cancelled run) may stop anywhere but must not break a bracket.
 */
export function checkBrackets(events: Events, complete: boolean, where: string): string[] {
  const v: string[] = [];
  let started = false;
  let ended = false;
  let turnOpen = false;
  let open: AgentMessage | undefined;
  const running = new Set<string>();
  const seen = new Set<string>();
  const asking = new Set<string>();
  const asked = new Set<string>();
  events.forEach((event, i) => {
    const at = `${where} #${i} ${label(event)}`;
    if (ended) v.push(`${at}: event after agent_end`);
    if (event.type !== "agent_start" && !started) v.push(`${at}: event before agent_start`);
    switch (event.type) {
      case "agent_start":
        if (i !== 0) v.push(`${at}: agent_start is not first`);
        started = true;
        break;
      case "turn_start":
        if (turnOpen) v.push(`${at}: turn_start inside a turn`);
        turnOpen = true;
        break;
      case "turn_end":
        if (!turnOpen) v.push(`${at}: turn_end without turn_start`);
        if (open) v.push(`${at}: turn_end while a message is open`);
        if (running.size) v.push(`${at}: turn_end while tools run: ${[...running]}`);
        turnOpen = false;
        break;
      case "message_start":
        if (!turnOpen) v.push(`${at}: message outside a turn`);
        if (open) v.push(`${at}: message_start while another message is open`);
        open = event.message;
        break;
      case "message_update":
        if (!open || !isAssistant(open)) v.push(`${at}: message_update outside an assistant message`);
        break;
      case "message_end":
        if (!open) v.push(`${at}: message_end without message_start`);
        else if ((open as Message).role !== (event.message as Message).role) v.push(`${at}: message_end of another role`);
        else if (!isAssistant(event.message) && open !== event.message) v.push(`${at}: message_end of another message`);
        open = undefined;
        break;
      case "tool_execution_start":
        if (!turnOpen) v.push(`${at}: tool outside a turn`);
        if (seen.has(event.toolCallId)) v.push(`${at}: tool call started twice`);
        seen.add(event.toolCallId);
        running.add(event.toolCallId);
        break;
      case "tool_execution_update":
        if (!running.has(event.toolCallId)) v.push(`${at}: update of a tool call that is not running`);
        break;
      case "tool_execution_end":
        if (!running.has(event.toolCallId)) v.push(`${at}: end of a tool call that is not running`);
        if (asking.has(event.toolCallId)) v.push(`${at}: a call ended while its approval was still open`);
        running.delete(event.toolCallId);
        break;
      case "tool_approval_request":
        if (!running.has(event.toolCallId)) v.push(`${at}: approval asked for a call that is not running`);
        if (asked.has(event.toolCallId)) v.push(`${at}: approval asked twice`);
        asked.add(event.toolCallId);
        asking.add(event.toolCallId);
        break;
      case "tool_approval_end":
        if (!asking.has(event.toolCallId)) v.push(`${at}: approval answered that was not asked`);
        asking.delete(event.toolCallId);
        break;
      case "agent_end":
        if (turnOpen) v.push(`${at}: agent_end inside a turn`);
        if (open) v.push(`${at}: agent_end while a message is open`);
        ended = true;
        break;
    }
  });
  if (complete && !ended) v.push(`${where}: the run never emitted agent_end (last: ${events.length ? label(events[events.length - 1]!) : "nothing"})`);
  return v;
}

function committedOf(events: Events): AgentMessage[] {
  return events.flatMap((e) => (e.type === "message_end" ? [e.message] : []));
}

/**
 * Messages: `agent_end.messages` is what the run committed; nothing twice; every answerable tool
 * call answered once, in source order, right after its assistant message (so nothing — no
 * steering, no follow-up — lands inside a tool batch); `turn_end` names the turn's message and
 * results.
 */
export function checkMessages(events: Events, complete: boolean, initial: readonly AgentMessage[], where: string): string[] {
  const v: string[] = [];
  const committed = committedOf(events);
  const all = new Set<AgentMessage>(initial);
  for (const message of committed) {
    if (all.has(message)) v.push(`${where}: message committed twice: ${JSON.stringify(message).slice(0, 120)}`);
    all.add(message);
  }
  const ends = events.filter((e): e is Extract<AgentEvent, { type: "agent_end" }> => e.type === "agent_end");
  if (ends.length > 1) v.push(`${where}: ${ends.length} agent_end events`);
  if (ends.length === 1) {
    const reported = ends[0]!.messages;
    if (reported.length !== committed.length || reported.some((m, i) => m !== committed[i])) {
      v.push(`${where}: agent_end.messages (${reported.length}) differ from the committed messages (${committed.length})`);
    }
  }
  // Tool results right after their assistant message, in source order.
  for (let i = 0; i < committed.length; i++) {
    const message = committed[i]!;
    if (isToolResult(message)) {
      v.push(`${where}: tool result ${message.toolCallId} at ${i} is not part of its assistant's batch`);
      continue;
    }
    if (!isAssistant(message)) continue;
    const calls = answerable(message);
    for (let k = 0; k < calls.length; k++) {
      const result = committed[i + 1 + k];
      if (result === undefined) {
        if (complete) v.push(`${where}: tool call ${calls[k]!.id} left without a result`);
        break;
      }
      if (!isToolResult(result) || result.toolCallId !== calls[k]!.id) {
        v.push(`${where}: expected the result of ${calls[k]!.id} at ${i + 1 + k}, got ${isToolResult(result) ? `result of ${result.toolCallId}` : (result as Message).role}`);
        break;
      }
    }
    i += calls.length;
  }
  // turn_end names the last assistant message and its results.
  let lastAssistant: AssistantMessage | undefined;
  const resultsAfter = new Map<AssistantMessage, ToolResultMessage[]>();
  const resultToEnd = new Map<string, Extract<AgentEvent, { type: "tool_execution_end" }>>();
  const repeated = new Set<string>();
  for (const event of events) {
    if (event.type === "tool_execution_end") {
      // A repeated id (hostile input H7) cannot be matched by id.
      if (resultToEnd.has(event.toolCallId)) repeated.add(event.toolCallId);
      resultToEnd.set(event.toolCallId, event);
    }
    if (event.type === "message_end") {
      if (isAssistant(event.message)) {
        lastAssistant = event.message;
        resultsAfter.set(lastAssistant, []);
      } else if (isToolResult(event.message) && lastAssistant) {
        resultsAfter.get(lastAssistant)!.push(event.message);
        const end = resultToEnd.get(event.message.toolCallId);
        if (end && !repeated.has(end.toolCallId) && end.isError !== event.message.isError) v.push(`${where}: ${event.message.toolCallId}: tool_execution_end.isError differs from its result message`);
      }
    }
    if (event.type === "turn_end") {
      if (event.message !== lastAssistant) v.push(`${where}: turn_end.message is not the turn's assistant message`);
      else if (!failedStop(lastAssistant)) {
        const expected = resultsAfter.get(lastAssistant)!;
        if (event.toolResults.length !== expected.length || event.toolResults.some((r, i) => r !== expected[i])) v.push(`${where}: turn_end.toolResults differ from the turn's result messages`);
      }
    }
  }
  return v;
}

/** Steering and follow-up: placed between turns only; follow-up only after a natural stop. */
function checkQueues(trace: Trace, committed: readonly AgentMessage[], complete: boolean, runPrompts: ReadonlySet<AgentMessage>): string[] {
  const v: string[] = [];
  const steering = new Set(trace.steering);
  const followUps = new Set(trace.followUps);
  const prepared = new Set(trace.prepared);
  const pendingKinds = (m: AgentMessage): boolean => runPrompts.has(m) || steering.has(m) || followUps.has(m) || prepared.has(m) || (m as Message).role === "system";
  const terminated = new Set<string>();
  for (const e of trace.events) if (e.event.type === "tool_execution_end" && e.event.result?.terminate === true) terminated.add(e.event.toolCallId);
  committed.forEach((message, i) => {
    // `continue()` after an assistant message takes a queued batch as the new run's prompt (SPEC A3).
    if (!followUps.has(message) || runPrompts.has(message)) return;
    let j = i - 1;
    while (j >= 0 && pendingKinds(committed[j]!)) j--;
    const before = committed[j];
    if (before === undefined) return v.push(`follow-up at ${i} opens the run`);
    if (isAssistant(before)) {
      if (answerable(before).length > 0 || failedStop(before)) v.push(`follow-up at ${i} after an assistant message that does not stop naturally`);
      return;
    }
    if (isToolResult(before)) {
      let k = j;
      while (k >= 0 && isToolResult(committed[k]!)) k--;
      const batch = committed.slice(k + 1, j + 1) as ToolResultMessage[];
      if (!batch.every((r) => terminated.has(r.toolCallId))) v.push(`follow-up at ${i} after a tool batch that did not terminate`);
      return;
    }
    v.push(`follow-up at ${i} after a ${(before as Message).role} message`);
  });
  // one-at-a-time: a poll takes one message and a turn polls a queue at most once for what it sends (SPEC L7).
  let steeringInTurn = 0;
  let followUpsInTurn = 0;
  for (const message of committed) {
    if (isAssistant(message)) {
      steeringInTurn = 0;
      followUpsInTurn = 0;
      continue;
    }
    if (steering.has(message) && !runPrompts.has(message) && ++steeringInTurn > 1 && trace.scenario.steeringMode === "one-at-a-time") v.push("two steering messages in one turn in one-at-a-time mode");
    if (followUps.has(message) && !runPrompts.has(message) && ++followUpsInTurn > 1 && trace.scenario.followUpMode === "one-at-a-time") v.push("two follow-up messages in one turn in one-at-a-time mode");
  }
  // Loop: polls happen between turns only, never while a tool batch or a message is open.
  for (const p of trace.polls) {
    if (trace.unsubscribed && trace.scenario.via !== "agent" && p.seq > trace.unsubscribed.seq) v.push(`${p.kind} polled after unsubscribe`);
    if (p.openTools || p.openMessage || p.unanswered) v.push(`${p.kind} polled inside a batch (open tools ${p.openTools}, open message ${p.openMessage}, unanswered ${p.unanswered})`);
  }
  // No message lost, none twice.
  const count = (m: AgentMessage): number => committed.filter((c) => c === m).length;
  const left = new Set(trace.leftInQueues);
  for (const m of [...trace.steering, ...trace.followUps]) {
    const times = count(m) + (left.has(m) ? 1 : 0);
    const text = JSON.stringify((m as { content: unknown }).content);
    if (times > 1) v.push(`queued message ${text} used ${times} times`);
    if (times === 0 && complete) v.push(`queued message ${text} was lost`);
  }
  for (const m of trace.prepared) if (count(m) > 1) v.push(`prepared message used twice`);
  return v;
}

/** Tools run only when they may, at most once, never after a cancel. */
function checkTools(trace: Trace, events: Events): string[] {
  const v: string[] = [];
  const blocks = new Map<string, Extract<Block, { t: "call" }>>();
  const stops = new Map<string, string>();
  for (const turn of trace.scenario.turns)
    for (const block of turn.blocks)
      if (block.t === "call") {
        blocks.set(block.id, block);
        stops.set(block.id, turn.stop);
      }
  const started = new Set<string>();
  const startSeq = new Map<string, number>();
  trace.events.forEach((e) => {
    if (e.event.type === "tool_execution_start") {
      started.add(e.event.toolCallId);
      startSeq.set(e.event.toolCallId, e.seq);
    }
  });
  const executed = new Set<string>();
  for (const x of trace.executes) {
    if (executed.has(x.id)) v.push(`tool call ${x.id} executed twice`);
    executed.add(x.id);
    const block = blocks.get(x.id);
    if (!block) v.push(`unknown call ${x.id} executed`);
    else {
      if (block.tool === "nope") v.push(`${x.id}: an unknown tool executed`);
      if (!VALID_ARGS.has(block.args)) v.push(`${x.id}: executed with invalid arguments (${block.args})`);
      if (stops.get(x.id) === "length") v.push(`${x.id}: executed from a length-truncated message`);
    }
    if (trace.blocked.has(x.id)) v.push(`${x.id}: executed although beforeToolCall blocked it`);
    if (!started.has(x.id)) v.push(`${x.id}: executed without tool_execution_start`);
    if (trace.cancel && x.seq > trace.cancel.seq && x.seq < cancelWindowEnd(trace)) v.push(`${x.id}: a tool started executing after ${trace.cancel.kind} (frame ${x.frame}, cancel at ${trace.cancel.frame})`);
  }
  void events;
  return v;
}

/**
 * `finishTurn` decisions (SPEC L6, L8): `end` ends the run — no further request; `continue`
 * guarantees one more request, unless the run is cancelled or fails first. Ignored after an
 * error or aborted response (hard exit).
 */
function checkDecisions(trace: Trace): string[] {
  const v: string[] = [];
  const decisions = trace.scenario.hooks.finishTurn;
  if (!decisions) return v;
  const fault = trace.scenario.hooks.throwIn;
  const calls = trace.hookCalls.filter((c) => c.hook === "finishTurn");
  const failure = (from: number, to: number): boolean =>
    trace.events.some((e) => e.seq > from && e.seq < to && (e.event.type === "message_start" || e.event.type === "message_end") && /\(scripted\)/.test((e.event.message as AssistantMessage).errorMessage ?? ""));
  calls.forEach((call, k) => {
    const decision = decisions[k] ?? "none";
    if (decision === "none" || (fault?.hook === "finishTurn" && fault.at === k)) return;
    const end = trace.second && call.seq < trace.second.seq ? trace.second.seq : Infinity;
    const turn = [...trace.events].reverse().find((e) => e.seq < call.seq && e.event.type === "message_end" && isAssistant(e.event.message));
    if (!turn || failedStop(turn.event.type === "message_end" ? (turn.event.message as AssistantMessage) : ({} as AssistantMessage))) return;
    const requests = trace.providerCalls.filter((p) => p.seq > call.seq && p.seq < end);
    if (decision === "end" && requests.length > 0) v.push(`finishTurn #${k} said end, yet the provider was asked again`);
    const cancelled = trace.cancel !== undefined && trace.cancel.seq < end;
    const gone = trace.unsubscribed !== undefined && trace.unsubscribed.seq < end;
    // A run limit (SPEC R2) wins over `continue`: the run ends, and agent_end says why.
    const limited = trace.events.some((e) => e.seq > call.seq && e.seq < end && e.event.type === "agent_end" && e.event.limit !== undefined);
    if (decision === "continue" && requests.length === 0 && !cancelled && !gone && !limited && !failure(call.seq, end)) v.push(`finishTurn #${k} said continue, yet no request followed`);
  });
  return v;
}

/** A cancel ends its own run: an Agent's second run (started after it) may do anything again. */
function cancelWindowEnd(trace: Trace): number {
  return trace.cancel && trace.second && trace.cancel.seq < trace.second.seq ? trace.second.seq : Infinity;
}

/** After abort or unsubscribe: nothing more starts, every signal fired, nothing leaks. */
function checkCancel(trace: Trace): string[] {
  const v: string[] = [];
  const { cancel } = trace;
  if (!cancel) return v;
  const end = cancelWindowEnd(trace);
  const start = trace.second && cancel.seq > trace.second.seq ? trace.second.seq : -1;
  for (const call of trace.providerCalls) if (call.seq > cancel.seq && call.seq < end) v.push(`the provider was called after ${cancel.kind} (frame ${call.frame})`);
  const gone = trace.unsubscribed;
  if (gone && trace.scenario.via !== "agent") {
    for (const call of trace.hookCalls) if (call.seq > gone.seq && call.hook !== "listener") v.push(`${call.hook} called after unsubscribe (frame ${call.frame})`);
  }
  trace.signals.forEach((signal, i) => {
    const seen = trace.signalSeqs[i]!;
    if (seen > start && seen < end && !signal.aborted) v.push(`signal #${i} handed out did not fire after ${cancel.kind}`);
  });
  const turnsAfter = trace.events.filter((e) => e.seq > cancel.seq && e.seq < end && e.event.type === "turn_start").length;
  // One turn reports `aborted`; a hook or listener failing after that adds the failure's own turn (SPEC A6).
  const failedLater = trace.events.some((e) => e.seq > cancel.seq && e.seq < end && (e.event.type === "message_start" || e.event.type === "message_end") && /\(scripted\)/.test((e.event.message as AssistantMessage).errorMessage ?? ""));
  if (turnsAfter > (failedLater ? 2 : 1)) v.push(`${turnsAfter} turns started after ${cancel.kind}`);
  return v;
}

/** Every invariant on one run. */
/**
 * The recording listener comes after one that returns a promise: parallel tool calls wait for
 * the listeners each in its own branch (as in the reference), so that listener may see the
 * branches' events in another order than `events$` and the subscriber, who see each event as it
 * is told.
 */
function branchesInterleave(trace: Trace): boolean {
  return trace.scenario.leadingListener === "promise";
}

/** The same events, each as often, in any order. */
function sameEvents(a: readonly AgentEvent[], b: readonly AgentEvent[]): boolean {
  if (a.length !== b.length) return false;
  const counts = new Map<AgentEvent, number>();
  for (const e of a) counts.set(e, (counts.get(e) ?? 0) + 1);
  for (const e of b) {
    const n = counts.get(e);
    if (!n) return false;
    counts.set(e, n - 1);
  }
  return true;
}

export function checkTrace(trace: Trace): string[] {
  const v: string[] = [];
  const { scenario } = trace;
  const hardCancelled = scenario.via !== "agent" && trace.unsubscribed !== undefined;
  const complete = !hardCancelled;
  const all = trace.events.map((e) => e.event);
  const second = trace.second;
  const events = second ? all.slice(0, second.index) : all;

  if (trace.error !== undefined) v.push(`the run errored: ${String((trace.error as Error)?.message ?? trace.error)}`);
  // SPEC A5: each event's listener call returns before the next event's begins.
  if (trace.listenerReentries.length > 0) v.push(`the listener was called again from inside its own call: ${trace.listenerReentries.map(label).join(", ")}`);
  v.push(...checkRunControl(trace));
  for (const error of trace.unhandled) v.push(`unhandled error: ${String((error as Error)?.message ?? error)}`);
  if (!(trace.unsubscribed && (!second || trace.unsubscribed.seq < second.seq)) && !trace.completed) v.push("the run did not complete");
  if (trace.retainedListeners > 0) v.push(`${trace.retainedListeners} abort listeners left on the signals handed out`);
  if (trace.opened !== trace.closed) v.push(`subscriptions left open: ${trace.opened - trace.closed} (${trace.stillOpen.join(", ")})`);

  v.push(...checkBrackets(events, complete, "trace"));
  v.push(...checkMessages(events, complete, trace.initialMessages, "trace"));
  // What the subscriber saw is the same stream (a prefix of it after the subscriber left).
  const sub = trace.subscriberEvents;
  const subscriberLeft = trace.unsubscribed !== undefined && (!second || trace.unsubscribed.seq < second.seq);
  if (branchesInterleave(trace)) {
    if (!subscriberLeft && !sameEvents(sub, events)) v.push(`the subscriber saw other events than the trace (${sub.length} vs ${events.length}), in any order`);
  } else if (subscriberLeft ? sub.some((e, i) => e !== events[i]) : sub.length !== events.length || sub.some((e, i) => e !== events[i])) {
    const i = sub.findIndex((e, k) => e !== events[k]);
    v.push(`the subscriber saw other events than the trace (${sub.length} vs ${events.length}; first difference at ${i}: ${sub[i] ? label(sub[i]!) : "-"} vs ${events[i] ? label(events[i]!) : "-"})`);
  }
  // Agent: a second run, started from inside the first one's `complete`.
  const runPrompts = new Set<AgentMessage>();
  if (second) {
    const more = all.slice(second.index);
    if (second.expectError) {
      if (second.error === undefined) v.push("continue() after an assistant message with empty queues did not error");
      if (more.length > 0) v.push("a second run that could not start emitted events");
    } else {
      if (second.error !== undefined) v.push(`the second run errored: ${String((second.error as Error)?.message ?? second.error)}`);
      const left = trace.unsubscribed !== undefined && trace.unsubscribed.seq > second.seq;
      if (!second.completed && !left) v.push("the second run did not complete");
      v.push(...checkBrackets(more, true, "second run"));
      v.push(...checkMessages(more, true, [...trace.initialMessages, ...committedOf(events)], "second run"));
      if (branchesInterleave(trace)) {
        if (!left && !sameEvents(second.subscriberEvents, more)) v.push("the second run's subscriber saw other events than its listener, in any order");
      } else if ((!left && second.subscriberEvents.length !== more.length) || second.subscriberEvents.some((e, i) => e !== more[i])) v.push("the second run's subscriber saw other events than its listener");
      for (const event of more) {
        if (event.type === "message_end" && isAssistant(event.message)) break;
        if (event.type === "message_end") runPrompts.add(event.message);
      }
    }
  }
  const committed = committedOf(all);
  v.push(...checkQueues(trace, committed, complete, runPrompts));
  v.push(...checkTools(trace, all));
  v.push(...checkCancel(trace));
  v.push(...checkDecisions(trace));

  if (trace.finalState) {
    const state = trace.finalState;
    if (state.isStreaming) v.push("Agent still streaming at the end");
    if (state.pendingToolCalls) v.push(`Agent has ${state.pendingToolCalls} pending tool calls at the end`);
    if (state.streamingMessage !== undefined) v.push("Agent still has a streaming message at the end");
    const expected = [...trace.initialMessages, ...committed];
    if (state.messages.length !== expected.length || state.messages.some((m, i) => m !== expected[i])) {
      v.push(`Agent state.messages (${state.messages.length}) is not the initial transcript plus the run's messages (${expected.length})`);
    }
    const lastAssistant = [...committed].reverse().find(isAssistant);
    if (lastAssistant && failedStop(lastAssistant) && !state.errorMessage) v.push("Agent errorMessage not set after a failed turn");
    // events$ is every event of every run; state$ grows its transcript and ends idle (SPEC A7).
    if (branchesInterleave(trace) ? !sameEvents(trace.hotEvents, all) : trace.hotEvents.length !== all.length || trace.hotEvents.some((e, i) => e !== all[i])) v.push(`events$ (${trace.hotEvents.length}) differs from the listener's events (${all.length})`);
    const snapshots = trace.stateSnapshots;
    for (let i = 1; i < snapshots.length; i++) {
      const before = snapshots[i - 1]!.messages;
      const after = snapshots[i]!.messages;
      if (after.length < before.length || before.some((m, k) => m !== after[k])) {
        v.push(`state$ snapshot #${i} does not extend the transcript of #${i - 1}`);
        break;
      }
    }
    const lastSnapshot = snapshots[snapshots.length - 1];
    if (!lastSnapshot || lastSnapshot.isStreaming || lastSnapshot.messages.length !== state.messages.length) v.push("the last state$ snapshot is not the idle final state");
    for (const attempt of trace.busyPrompts) {
      if (attempt.error === undefined) v.push("prompt$ during a run did not error");
      if (attempt.events > 0) v.push("prompt$ during a run emitted events");
    }
  }
  return v;
}

/**
 * Run control (SPEC R1–R3) on the first run: a call denied, or never answered, never executed;
 * an approved one did only after its answer; no more requests than `maxTurns`, no more executions
 * than `maxToolCalls`, never more calls executing at once than `maxConcurrency`; a limit in
 * `agent_end` is one that was set.
 */
export function checkRunControl(trace: Trace): string[] {
  const control = trace.scenario.control;
  if (!control) return [];
  const v: string[] = [];
  const until = trace.second?.seq ?? Number.POSITIVE_INFINITY;
  const events = trace.events.filter((e) => e.seq < until);
  const executes = trace.executes.filter((e) => e.seq < until);
  const answers = new Map<string, { seq: number; approved: boolean }>();
  for (const e of events) if (e.event.type === "tool_approval_end") answers.set(e.event.toolCallId, { seq: e.seq, approved: e.event.approved });
  for (const run of executes) {
    if (!(run.id in control.approvals)) continue;
    const answer = answers.get(run.id);
    if (!answer) v.push(`${run.id} executed without an answer to its approval`);
    else if (!answer.approved) v.push(`${run.id} executed though its approval was denied`);
    else if (answer.seq > run.seq) v.push(`${run.id} executed before its approval`);
    if (control.approvals[run.id] !== "approve") v.push(`${run.id} executed, answered "${control.approvals[run.id]}"`);
  }
  const limits = control.limits;
  const providerCalls = trace.providerCalls.filter((c) => c.seq < until).length;
  if (limits?.maxTurns !== undefined && providerCalls > limits.maxTurns) v.push(`${providerCalls} requests with maxTurns ${limits.maxTurns}`);
  if (limits?.maxToolCalls !== undefined && executes.length > limits.maxToolCalls) v.push(`${executes.length} executions with maxToolCalls ${limits.maxToolCalls}`);
  if (control.maxConcurrency !== undefined && trace.scenario.toolExecution === "parallel") {
    const running = new Set<string>();
    const all = [...executes.map((e) => ({ seq: e.seq, start: e.id })), ...events.flatMap((e) => (e.event.type === "tool_execution_end" ? [{ seq: e.seq, end: e.event.toolCallId }] : []))].sort((a, b) => a.seq - b.seq);
    for (const step of all) {
      if ("start" in step) running.add(step.start!);
      else running.delete(step.end!);
      if (running.size > control.maxConcurrency) v.push(`${running.size} calls executing at once with maxConcurrency ${control.maxConcurrency}`);
    }
  }
  const end = events.find((e) => e.event.type === "agent_end")?.event as Extract<AgentEvent, { type: "agent_end" }> | undefined;
  const limit = end?.limit?.limit;
  if (limit && limit !== "timeoutMs" && (limits as Record<string, unknown> | undefined)?.[limit] === undefined) v.push(`agent_end names the limit ${limit}, which was not set`);
  return v;
}
