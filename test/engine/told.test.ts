/**
 * `told` on its own (SPEC L11, L10): a subscriber that leaves while an item is delivered hears of
 * no later item, and no later item's wait (a listener) is called.
 */
import { config, take } from "rxjs";
import { describe, expect, it } from "vitest";
import { told } from "../../src/engine/told.js";

describe("told (SPEC L11)", () => {
  it("L11 L10: a subscriber that leaves inside next (take(1)) stops the telling there: no later item is waited on or delivered", () => {
    const waited: string[] = [];
    const seen: string[] = [];
    told(["a", "b", "c"], (item) => (waited.push(item), undefined), undefined, ["tail"])
      .pipe(take(1))
      .subscribe((item) => seen.push(item));
    expect(seen).toEqual(["a"]);
    expect(waited).toEqual(["a"]);
  });

  it("L10: a subscriber that leaves at the last item hears nothing more: the tail is not delivered and no stopped notification is raised", async () => {
    const stopped: string[] = [];
    const seen: string[] = [];
    const previous = config.onStoppedNotification;
    config.onStoppedNotification = (notification) => void stopped.push(notification.kind);
    try {
      told(["a", "b"], () => undefined, undefined, ["tail"])
        .pipe(take(2))
        .subscribe((item) => seen.push(item));
      // rxjs reports a stopped notification from a timer of its own.
      for (let i = 0; i < 2; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    } finally {
      config.onStoppedNotification = previous;
    }
    expect(seen).toEqual(["a", "b"]);
    expect(stopped).toEqual([]);
  });
});
