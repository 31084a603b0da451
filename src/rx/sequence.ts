/**
 * `sequence`, `concatEach`, `followedBy`: `concat` and `from(items).pipe(concatMap(…))` for the
 * loop, leaner per subscription.
 *
 * @module
 */
import { Observable, type Observer, type Subscriber, Subscription } from "rxjs";
import { inPlace } from "./in-place.js";

/**
 * Subscribes to each source when the previous one completes; values and errors pass through;
 * completes after the last. Unsubscribing stops the current source and starts no other. The
 * same contract as rxjs's `concat` for Observable sources, without its array Observable and
 * `mergeMap` buffer: the loop builds several per turn and per tool call. Sources that complete
 * synchronously are chained in a loop, not by recursion.
 *
 * ```text
 * a:       -1-|
 * b:          --2|
 * c:             (3|)
 * result:  -1---2(3|)
 * ```
 *
 * @example
 * ```ts
 * sequence(emitter.one(turnStart), emitter.one(turnEnd));
 * ```
 * @see concat
 */
export function sequence<A extends readonly unknown[]>(...sources: { [K in keyof A]: Observable<A[K]> }): Observable<A[number]> {
  return chain<A[number]>(sources.length, (index) => sources[index] as Observable<A[number]>);
}

/**
 * `project(item, index)` for each item, each subscribed when the previous one completed: it is
 * `from(items).pipe(concatMap(project))` without the `from` and the `mergeMap` buffer. `project`
 * is called only when its turn comes, so it sees what the earlier ones did; a throw errors the
 * result.
 *
 * ```text
 * items:       [a, b]
 * project(a):  -1|
 * project(b):    -2|
 * result:      -1-2|
 * ```
 *
 * @example
 * ```ts
 * concatEach(calls, (call) => emitter.one(startEvent(call)));
 * ```
 */
export function concatEach<T, R>(items: readonly T[], project: (item: T, index: number) => Observable<R>): Observable<R> {
  return chain<R>(items.length, (index) => project(items[index]!, index));
}

/**
 * `first`, then the Observable `next()` returns, made when `first` completed: it is
 * `concat(first, defer(next))` in one subscription.
 *
 * ```text
 * first:   -a|
 * next():    -b|
 * result:  -a-b|
 * ```
 *
 * @example
 * ```ts
 * followedBy(appendMessages(run, pending), () => request(run));
 * ```
 */
export function followedBy<T, R>(first: Observable<T>, next: () => Observable<R>): Observable<T | R> {
  return chain<T | R>(2, (index) => (index === 0 ? first : next()));
}

/**
 * `project(item, index)` for every item, all subscribed at once, in order; values as they come;
 * completes when every one completed: `from(items).pipe(mergeMap(project))` without the `from`
 * and the buffer. A consumer that leaves while they are being subscribed stops there.
 *
 * ```text
 * items:       [a, b]
 * project(a):  --1|
 * project(b):  -2|
 * result:      -21|
 * ```
 *
 * @example
 * ```ts
 * mergeEach(prepared, (call) => execute(call));
 * ```
 */
export function mergeEach<T, R>(items: readonly T[], project: (item: T, index: number) => Observable<R>): Observable<R> {
  return new Observable<R>((subscriber) => {
    const merge = new Merge(subscriber);
    for (let index = 0; index < items.length && !subscriber.closed; index++) {
      let source: Observable<R>;
      try {
        source = project(items[index]!, index);
      } catch (error) {
        subscriber.error(error);
        return;
      }
      merge.active++;
      const link = new Link<R>(merge);
      subscriber.add(link);
      source.subscribe(link);
    }
    merge.started = true;
    if (merge.active === 0) subscriber.complete();
  });
}

/** Where a {@link Link} reports: the consumer, and what to do when its source completed. */
interface LinkOwner<T> {
  readonly subscriber: Subscriber<T>;
  completed(link: Link<T>): void;
}

/**
 * The observer of one source, which is also its subscription (subscribed as it is, so a
 * consumer leaving inside a synchronous source stops it at once). One small object per source,
 * no handler closures: these are made several times per tool call.
 */
class Link<T> extends Subscription implements Observer<T> {
  private stopped = false;

  constructor(private readonly owner: LinkOwner<T>) {
    super();
  }

  next(value: T): void {
    if (!this.stopped && !this.closed) this.owner.subscriber.next(value);
  }

  error(error: unknown): void {
    if (this.stopped || this.closed) return;
    this.stopped = true;
    try {
      this.owner.subscriber.error(error);
    } finally {
      this.unsubscribe();
    }
  }

  complete(): void {
    if (this.stopped || this.closed) return;
    this.stopped = true;
    // The finished source is torn down before anything after it starts, as in rxjs's `concat`.
    this.unsubscribe();
    this.owner.completed(this);
  }
}

/** The state of one {@link mergeEach} subscription. */
class Merge<T> implements LinkOwner<T> {
  active = 0;
  started = false;

  constructor(readonly subscriber: Subscriber<T>) {}

  completed(): void {
    if (--this.active === 0 && this.started) this.subscriber.complete();
  }
}

/**
 * `count` sources, `sourceAt(index)` made when its turn comes. A chain met as a source of
 * another is not subscribed: its sources are taken up in place of it (`concat` is associative),
 * so a run's nested steps share one loop and one subscription per source that must be subscribed.
 */
class Chained<T> extends Observable<T> {
  constructor(
    readonly count: number,
    readonly sourceAt: (index: number) => Observable<T>,
  ) {
    super((subscriber) => new Chain(this, subscriber).subscribeNext());
  }
}

function chain<T>(count: number, sourceAt: (index: number) => Observable<T>): Observable<T> {
  return new Chained(count, sourceAt);
}

/** Where a chain is in one of its (nested) source lists. */
class Frame<T> {
  index = 0;

  constructor(
    readonly chained: Chained<T>,
    readonly outer: Frame<T> | undefined,
  ) {}
}

/** The state of one {@link chain} subscription. */
class Chain<T> implements LinkOwner<T> {
  private frame: Frame<T> | undefined;
  private looping = false;
  private completedWhileLooping = false;

  constructor(
    chained: Chained<T>,
    readonly subscriber: Subscriber<T>,
  ) {
    this.frame = new Frame(chained, undefined);
  }

  subscribeNext(): void {
    const subscriber = this.subscriber;
    this.looping = true;
    do {
      this.completedWhileLooping = false;
      if (subscriber.closed) break;
      const frame = this.frame;
      if (!frame) {
        subscriber.complete();
        break;
      }
      if (frame.index === frame.chained.count) {
        // A nested chain is done: its parent goes on.
        this.frame = frame.outer;
        this.completedWhileLooping = true;
        continue;
      }
      let source: Observable<T>;
      try {
        source = frame.chained.sourceAt(frame.index++);
      } catch (error) {
        subscriber.error(error);
        break;
      }
      const pending = inPlace(source, subscriber);
      if (!pending) {
        this.completedWhileLooping = true;
        continue;
      }
      if (pending instanceof Chained) {
        this.frame = new Frame(pending as Chained<T>, frame);
        this.completedWhileLooping = true;
        continue;
      }
      const link = new Link<T>(this);
      // Linked before it is subscribed: a consumer that leaves while a synchronous source is
      // still emitting stops it at once, as rxjs's own operators do.
      subscriber.add(link);
      pending.subscribe(link);
    } while (this.completedWhileLooping);
    this.looping = false;
  }

  completed(): void {
    if (this.looping) this.completedWhileLooping = true;
    else this.subscribeNext();
  }
}
