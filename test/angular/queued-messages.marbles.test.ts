/**
 * queuedMessages: what was queued is listed until a message with its text is appended to the
 * transcript, in the same state change, or until it is dropped; answers, tool results and a
 * shorter transcript land nothing.
 */
import { describe, it } from "vitest";
import { type QueueCommand, type QueuedMessage, queuedMessages } from "../../src/angular/queued-messages.js";
import type { AgentMessage } from "../../src/model/types.js";
import { marbles } from "../helpers/rxjs-marbles.js";

const user = (text: string): AgentMessage => ({ role: "user", content: [{ type: "text", text }], timestamp: 0 });
const answer = (text: string): AgentMessage => ({ role: "assistant", content: [{ type: "text", text }], api: "faux", provider: "faux", model: "m", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: 0 });

const go = user("go");
const also = user("also");
const later = user("later");
const ok = answer("also");
const transcripts: Record<string, { messages: AgentMessage[] }> = {
  a: { messages: [go] },
  b: { messages: [go, ok] }, // an answer that happens to have the text: not a queued message
  c: { messages: [go, ok, also] },
  d: { messages: [go, ok, also, later] },
  z: { messages: [] }, // a reset
};
const steer: QueuedMessage = { kind: "steering", text: "also" };
const follow: QueuedMessage = { kind: "followUp", text: "later" };
const sends: Record<string, QueueCommand> = { s: { queued: steer }, f: { queued: follow }, d: { dropped: steer }, x: { dropped: { kind: "steering", text: "later" } } };
const lists: Record<string, readonly QueuedMessage[]> = { e: [], s: [steer], b: [steer, follow], f: [follow] };

describe("queuedMessages", () => {
  it(
    "each sent message is listed until the transcript gains a message with its text",
    marbles((m) => {
      const states = m.hot("a----b-c-d-|", transcripts);
      const sent = m.hot("--s-f------|", sends);
      m.expect(queuedMessages(sent, states)).toBeObservable("e-s-b--f-e-|", lists);
    }),
  );

  it(
    "a transcript made shorter (a reset) or emitted again lands nothing: the list stays",
    marbles((m) => {
      const states = m.hot("a--a-z-|", transcripts);
      const sent = m.hot("-s-----|", sends);
      m.expect(queuedMessages(sent, states)).toBeObservable("es-----|", lists);
    }),
  );

  it(
    "a dropped message leaves the list: that one, not another with the same text",
    marbles((m) => {
      const states = m.hot("a------|", transcripts);
      const sent = m.hot("-s-f-x-d|", sends);
      m.expect(queuedMessages(sent, states)).toBeObservable("es-b-b-f|", lists);
    }),
  );
});
