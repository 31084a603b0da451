/**
 * `untilAborted`, the wait for an approver's answer or a `needsApproval` rule (SPEC R1, L10): one
 * value, or `undefined` at the abort; nothing after it, no listener left on the signal.
 */
import { getEventListeners } from "node:events";
import { BehaviorSubject, config, of, Subject, throwError } from "rxjs";
import { describe, expect, it } from "vitest";
import type { ToolApprovalDecision } from "../../src/index.js";
import { untilAborted } from "../../src/tools/until-aborted.js";

describe("R1 L10: the wait on its own (untilAborted)", () => {
  it("R1: the answer when it comes first; the signal's listener is gone after it", () => {
    const controller = new AbortController();
    const answer = new Subject<ToolApprovalDecision>();
    const got: unknown[] = [];
    untilAborted(answer, controller.signal).subscribe({ next: (value) => got.push(value), complete: () => got.push("complete") });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    answer.next({ approved: true });
    expect(got).toEqual([{ approved: true }, "complete"]);
    expect(getEventListeners(controller.signal, "abort")).toEqual([]);
    expect(answer.observed).toBe(false);
  });

  it("R1 R4: an abort first: undefined at once, the answer unsubscribed", () => {
    const controller = new AbortController();
    const answer = new Subject<ToolApprovalDecision>();
    const got: unknown[] = [];
    untilAborted(answer, controller.signal).subscribe({ next: (value) => got.push(value), complete: () => got.push("complete") });
    controller.abort();
    expect(got).toEqual([undefined, "complete"]);
    expect(answer.observed).toBe(false);
  });

  it("R1 L10: an answer that has come, then an abort from its subscriber: nothing more is sent, not even to rxjs's stopped-notification hook", async () => {
    const stopped: string[] = [];
    config.onStoppedNotification = (notification) => void stopped.push(notification.kind);
    try {
      for (const answerNow of [true, false]) {
        const controller = new AbortController();
        const got: unknown[] = [];
        const source = answerNow ? of<ToolApprovalDecision>({ approved: true }) : new Subject<ToolApprovalDecision>();
        untilAborted(source, controller.signal).subscribe((value) => (got.push(value), controller.abort()));
        if (source instanceof Subject) source.next({ approved: true });
        expect(got).toEqual([{ approved: true }]);
      }
      // rxjs reports a stopped notification from a timer of its own.
      for (let i = 0; i < 2; i++) await new Promise((resolve) => setTimeout(resolve, 0));
      expect(stopped).toEqual([]);
    } finally {
      config.onStoppedNotification = null;
    }
  });

  it("R1 L10: a source that answers twice while it is subscribed: the first answer only, nothing to rxjs's stopped-notification hook", async () => {
    const stopped: string[] = [];
    config.onStoppedNotification = (notification) => void stopped.push(notification.kind);
    try {
      const controller = new AbortController();
      const got: unknown[] = [];
      untilAborted(of<ToolApprovalDecision[]>({ approved: true }, { approved: false }), controller.signal).subscribe({ next: (value) => got.push(value), complete: () => got.push("complete") });
      expect(got).toEqual([{ approved: true }, "complete"]);
      for (let i = 0; i < 2; i++) await new Promise((resolve) => setTimeout(resolve, 0));
      expect(stopped).toEqual([]);
      expect(getEventListeners(controller.signal, "abort")).toEqual([]);
    } finally {
      config.onStoppedNotification = null;
    }
  });

  it("R1 L10: a source that answers while it is subscribed and never completes (a BehaviorSubject) is unsubscribed, no listener left", () => {
    const controller = new AbortController();
    const answer = new BehaviorSubject<ToolApprovalDecision>({ approved: true });
    const got: unknown[] = [];
    untilAborted(answer, controller.signal).subscribe((value) => got.push(value));
    expect(got).toEqual([{ approved: true }]);
    expect(answer.observed).toBe(false);
    expect(getEventListeners(controller.signal, "abort")).toEqual([]);
  });

  it("R1: an answer that errors (no approver does: failures are values by then) is the wait's error, with no listener left", () => {
    const controller = new AbortController();
    const failure = new Error("broken");
    let seen: unknown;
    untilAborted(throwError(() => failure), controller.signal).subscribe({ error: (error: unknown) => (seen = error) });
    expect(seen).toBe(failure);
    expect(getEventListeners(controller.signal, "abort")).toEqual([]);
  });

  it("R1 L10: unsubscribed without an abort: the answer unsubscribed, no listener left on the signal", () => {
    const controller = new AbortController();
    const answer = new Subject<ToolApprovalDecision>();
    const subscription = untilAborted(answer, controller.signal).subscribe();
    subscription.unsubscribe();
    expect(answer.observed).toBe(false);
    expect(getEventListeners(controller.signal, "abort")).toEqual([]);
  });
});
