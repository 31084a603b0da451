/**
 * `told` on its own (SPEC L11, L10): a subscriber that leaves while an item is delivered hears of
 * no later item, and no later item's wait (a listener) is called.
 */
import { take } from "rxjs";
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
});
