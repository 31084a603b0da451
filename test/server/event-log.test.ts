/**
 * The hosted session's log (SRV2, SRV3): a follower cut at any entry and resumed from its last
 * id holds the server's state, and was told every event once — all of them while the log still
 * held its place, else all but a stretch the state replaced. A property over real runs' events
 * and replay bounds.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { initialAgentState, reduceAgentState, viewOfState, type AgentStateValue, type AgentStateView } from "../../src/agent/agent-state-reducer.js";
import { Agent, type AgentEvent } from "../../src/index.js";
import { EventLog, type LoggedEvent } from "../../src/server/event-log.js";
import { fauxProvider } from "../../src/testing/index.js";
import { foldView } from "../../src/wire/view-fold.js";
import { WireEventDecoder, type WireEvent } from "../../src/wire/wire-event.js";
import { model } from "../helpers/fixtures.js";
import { richScript, TOOLS } from "./live-session-server.js";

/** The events of one whole run of the rich script (approved), on a synchronous Agent. */
async function runEvents(): Promise<AgentEvent[]> {
  const agent = new Agent({ streamFn: fauxProvider(richScript()), initialState: { model, tools: TOOLS } });
  const events: AgentEvent[] = [];
  agent.events$.subscribe((event) => {
    events.push(event);
    if (event.type === "tool_approval_request") queueMicrotask(() => agent.approve(event.toolCallId));
  });
  await agent.prompt("go");
  return events;
}

/** A follower as the remote agent is: entries folded in order, events told. */
class Follower {
  state: AgentStateValue = initialAgentState([], model, "off", []);
  lastId: string | undefined;
  readonly told: string[] = [];
  private decoder = new WireEventDecoder();

  read(entry: LoggedEvent, id: string): void {
    this.lastId = id;
    if (entry.kind === "state") {
      this.state = reduceAgentState(this.state, { type: "[state] installed", view: JSON.parse(entry.data) as AgentStateView });
      this.decoder = new WireEventDecoder();
      return;
    }
    const event = this.decoder.decode(JSON.parse(entry.data) as WireEvent);
    this.state = foldView(this.state, event);
    this.told.push(JSON.stringify(event));
  }

  resume(log: EventLog): void {
    const replay = log.replayAfter(this.lastId);
    if (replay.kind === "snapshot") this.read({ n: replay.n, kind: "state", data: replay.data }, log.idOf(replay.n));
    for (const entry of replay.events) this.read(entry, log.idOf(entry.n));
  }
}

const plain = (view: AgentStateView) => JSON.parse(JSON.stringify(view)) as unknown;

describe("SRV2 SRV3: the event log", () => {
  it("SRV2 SRV3: cut at any entry, resumed from its last id: the follower's state is the server's; its events are the run's, once each, all of them while the log held its place", async () => {
    const events = await runEvents();
    const all = events.map((event) => JSON.stringify(event));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: events.length }), fc.constantFrom(64, 512, 4096, 1 << 22), fc.boolean(), async (cut, maxReplayBytes, lateJoin) => {
        const log = new EventLog("e1", initialAgentState([], model, "off", []), maxReplayBytes);
        const follower = new Follower();
        if (!lateJoin) follower.resume(log);
        events.forEach((event, index) => {
          const entry = log.append(event);
          if (!lateJoin && index < cut) follower.read(entry, log.idOf(entry.n));
        });
        follower.resume(log);
        expect(plain(viewOfState(follower.state))).toEqual(plain(viewOfState(log.view)));
        let at = 0;
        for (const told of follower.told) {
          at = all.indexOf(told, at) + 1;
          expect(at).toBeGreaterThan(0);
        }
        if (maxReplayBytes === 1 << 22 && !lateJoin) expect(follower.told).toEqual(all);
      }),
      { numRuns: 200 },
    );
  });

  it("SRV3: past maxReplayBytes an id the log let go gets the state and what follows it; the newest id gets nothing more", async () => {
    const events = await runEvents();
    const log = new EventLog("e1", initialAgentState([], model, "off", []), 64);
    for (const event of events) log.append(event);
    expect(log.replayAfter("e1.0").kind).toBe("snapshot");
    expect(log.replayAfter(log.lastId)).toEqual({ kind: "events", events: [] });
    const roomy = new EventLog("e1", initialAgentState([], model, "off", []), 1 << 22);
    for (const event of events) roomy.append(event);
    expect(roomy.replayAfter("e1.0")).toMatchObject({ kind: "events", events: { length: events.length } });
  });

  it("SRV3: an id of another process, one from the future or a malformed one gets the state at the checkpoint", () => {
    const log = new EventLog("e1", initialAgentState([], model, "off", []), 1 << 20);
    log.append({ type: "agent_start" });
    for (const id of ["e0.1", "e1.99", "e1.x", "e1", "", "e1.1e3", null, undefined]) expect(log.replayAfter(id).kind, String(id)).toBe("snapshot");
    expect(log.replayAfter("e1.0")).toMatchObject({ kind: "events", events: [{ n: 1, kind: "event" }] });
  });
});
