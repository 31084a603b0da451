/**
 * The run's call limits (SPEC R2): `maxToolCalls` and the repeated-call breaker, counted in the
 * order the model gave the calls, as each passes preflight.
 *
 * @module
 */
import { canonicalJson } from "../model/canonical-json.js";
import type { ToolCall } from "../model/messages.js";
import type { LimitReached } from "../model/types.js";
import { limitReached, type RunLimits } from "../model/run-limits.js";

/**
 * Decides per call whether the run's call limits let it run. Owned by one run.
 *
 * @internal
 */
export class CallBudget {
  /** Calls admitted so far. */
  private calls = 0;
  /** The last admitted call's tool and arguments, and how many times in a row it came. */
  private last: string | undefined;
  private repeats = 0;
  /** Set when a limit in `"end"` mode was reached: the run ends after this turn. */
  reached: LimitReached | undefined;

  constructor(private readonly limits: RunLimits) {}

  /** Whether a run with these limits needs a budget at all. */
  static needed(limits: RunLimits | undefined): limits is RunLimits {
    return limits !== undefined && (limits.maxToolCalls !== undefined || limits.maxRepeatedCalls !== undefined);
  }

  /**
   * `undefined` when `call` may run (it is counted), else the text of the error result it gets
   * instead. After a limit in `"end"` mode every later call is refused too.
   */
  admit(call: ToolCall, args: unknown): string | undefined {
    const { maxToolCalls, maxRepeatedCalls, onLimit } = this.limits;
    if (this.reached) return `Tool call "${call.name}" was not run: the run is ending. ${this.reached.message}`;
    if (maxRepeatedCalls !== undefined) {
      const signature = signatureOf(call, args);
      const repeats = signature !== undefined && signature === this.last ? this.repeats + 1 : 1;
      if (repeats >= maxRepeatedCalls) {
        // `last` is this signature already: maxRepeatedCalls is at least 2.
        this.repeats = repeats;
        const reason = limitReached("maxRepeatedCalls", maxRepeatedCalls, repeats);
        if (onLimit !== "tell") this.reached = reason;
        return `Tool call "${call.name}" was not run: it is the ${ordinal(repeats)} call in a row with the same arguments. Use the results you have, or try something else.`;
      }
      this.last = signature;
      this.repeats = repeats;
    }
    // No maxToolCalls: no count reaches it.
    const allowed = maxToolCalls ?? Infinity;
    if (this.calls >= allowed) {
      const reason = limitReached("maxToolCalls", allowed, this.calls);
      if (onLimit !== "tell") this.reached = reason;
      return `Tool call "${call.name}" was not run: the run has used its ${allowed} tool call${allowed === 1 ? "" : "s"}. Answer with what you have.`;
    }
    this.calls++;
    return undefined;
  }
}

/**
 * What makes two calls the same: the tool and its arguments, keys in any order. Arguments JSON
 * cannot write (a `BigInt` or a cycle a `prepareArguments` hook made) are compared as the model
 * sent them; `undefined` (never a repeat) when those cannot be written either.
 */
function signatureOf(call: ToolCall, args: unknown): string | undefined {
  let json: string;
  try {
    json = canonicalJson(args);
  } catch {
    try {
      json = canonicalJson(call.arguments);
    } catch {
      return undefined;
    }
  }
  return `${call.name}\u0000${json}`;
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th";
  return `${n}${suffix}`;
}
