/**
 * `untilBegun`, how a hosting's resume is waited for (SPEC SRV6): served once the resume has
 * emitted or completed, kept running after that, its later error reported, an earlier one the
 * hosting's failure.
 */
import { NEVER, Observable, of, Subject, throwError } from "rxjs";
import { describe, expect, it } from "vitest";
import { untilBegun } from "../../src/server/until-begun.js";

describe("untilBegun (SPEC SRV6)", () => {
  it("resolves at the first value and keeps the source subscribed until the subscription is let go", async () => {
    const source = new Subject<string>();
    let subscribed = 0;
    let unsubscribed = 0;
    const counted = new Observable<string>((subscriber) => {
      subscribed++;
      const inner = source.subscribe(subscriber);
      return () => {
        unsubscribed++;
        inner.unsubscribe();
      };
    });
    let resolved = false;
    const begun = untilBegun(counted, () => undefined).then((subscription) => ((resolved = true), subscription));
    await Promise.resolve();
    expect(resolved).toBe(false);
    source.next("agent_start");
    const subscription = await begun;
    expect(subscribed).toBe(1);
    expect(unsubscribed).toBe(0);
    subscription.unsubscribe();
    expect(unsubscribed).toBe(1);
  });

  it("resolves at completion when nothing was emitted (nothing to resume)", async () => {
    const subscription = await untilBegun(of(), () => undefined);
    expect(subscription.closed).toBe(false);
  });

  it("an error before it began rejects with it; one after goes to onLaterError", async () => {
    await expect(untilBegun(throwError(() => new Error("lease held")), () => undefined)).rejects.toThrow("lease held");
    const later: unknown[] = [];
    const source = new Subject<number>();
    const begun = untilBegun(source, (error) => later.push(error));
    source.next(1);
    await begun;
    source.error(new Error("the resumed run failed"));
    expect((later[0] as Error).message).toBe("the resumed run failed");
  });

  it("a source that never begins never resolves, and stays subscribed (the hosting waits)", async () => {
    let settled = false;
    void untilBegun(NEVER, () => undefined).then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(settled).toBe(false);
  });
});
