/**
 * Span times: the tracing clock reads milliseconds since the epoch, handed to OpenTelemetry as
 * `HrTime`, which every implementation takes as it is. (A bare number is ambiguous: the SDK
 * reads a small one as a `performance.now()` reading and corrects each span by its own offset,
 * so two spans' times could disagree by a millisecond.)
 *
 * @internal
 * @module
 */
import type { HrTime } from "@opentelemetry/api";

/** Now, in epoch milliseconds with sub-millisecond precision where `performance` has it. */
export const epochNow: () => number =
  typeof performance !== "undefined" && typeof performance.now === "function" && typeof performance.timeOrigin === "number"
    ? () => performance.timeOrigin + performance.now()
    : () => Date.now();

/** `ms` (epoch milliseconds) as `[seconds, nanoseconds]`. */
export function toHrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  const nanos = Math.round((ms - seconds * 1000) * 1e6);
  return nanos >= 1e9 ? [seconds + 1, nanos - 1e9] : [seconds, nanos];
}
