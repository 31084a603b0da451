/**
 * `HeldFold` held to the stock chain it stands for (src/engine/CONTRACT.md): a `Subject` of the
 * actions, `scan` by the reducer, held in a `BehaviorSubject`. On random programs — dispatches,
 * subscribers that come and go, a subscriber that dispatches from inside a value (also the value
 * it gets on subscribing) or leaves inside one — both give
 * every subscriber the same values in the same order, and the same newest value at every step
 * (SPEC A4, A7).
 */
import fc from "fast-check";
import { BehaviorSubject, type Observable, scan, Subject, type Subscription } from "rxjs";
import { describe, expect, it } from "vitest";
import { HeldFold } from "../../src/engine/held-fold.js";

/** What a subscriber does from inside a value: nothing, dispatch (at its first value, the replay, or its second), or leave. */
type Inside = "nothing" | "dispatch-first" | "dispatch-second" | "leave-second";
type Op = { kind: "dispatch"; action: number } | { kind: "subscribe"; inside: Inside } | { kind: "unsubscribe"; which: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 0, max: 9 }).map((action) => ({ kind: "dispatch" as const, action })) },
  { weight: 2, arbitrary: fc.constantFrom<Inside>("nothing", "dispatch-first", "dispatch-second", "leave-second").map((inside) => ({ kind: "subscribe" as const, inside })) },
  { weight: 1, arbitrary: fc.nat().map((which) => ({ kind: "unsubscribe" as const, which })) },
);

/** 0 leaves the state as it is (the same value still goes out); other actions make a new one. */
const reduce = (state: { n: number }, action: number): { n: number } => (action === 0 ? state : { n: state.n * 7 + action });

interface Fold {
  readonly value: { n: number };
  dispatch(action: number): void;
  readonly values$: Observable<{ n: number }>;
}

function stock(): Fold {
  const actions = new Subject<number>();
  const held = new BehaviorSubject({ n: 1 });
  actions.pipe(scan(reduce, held.value)).subscribe(held);
  return { get value() { return held.value; }, dispatch: (a) => actions.next(a), values$: held.asObservable() };
}

/** Runs `ops` on `fold`: what each subscriber saw, and the newest value after each op. */
function play(fold: Fold, ops: Op[]): { seen: number[][]; values: number[] } {
  const seen: number[][] = [];
  const subscriptions: Subscription[] = [];
  const values: number[] = [];
  for (const o of ops) {
    if (o.kind === "dispatch") fold.dispatch(o.action);
    else if (o.kind === "subscribe") {
      const log: number[] = [];
      seen.push(log);
      let acted = false;
      let subscription: Subscription | undefined;
      let leave = false;
      subscription = fold.values$.subscribe((v) => {
        log.push(v.n);
        if (acted) return;
        // Acts once from inside a value (an effect, an Angular component): dispatches, or leaves.
        if (o.inside === "dispatch-first" || (o.inside === "dispatch-second" && log.length === 2)) {
          acted = true;
          fold.dispatch(5);
        } else if (o.inside === "leave-second" && log.length === 2) {
          acted = true;
          if (subscription) subscription.unsubscribe();
          else leave = true;
        }
      });
      if (leave) subscription.unsubscribe();
      subscriptions.push(subscription);
    } else if (subscriptions.length > 0) subscriptions[o.which % subscriptions.length]!.unsubscribe();
    values.push(fold.value.n);
  }
  return { seen, values };
}

describe("HeldFold: scan held in a BehaviorSubject", () => {
  it("A4 A7: the same values to every subscriber, in the same order, and the same newest value, as the stock chain", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        expect(play(new HeldFold(reduce, { n: 1 }), ops)).toEqual(play(stock(), ops));
      }),
    );
  });
});
