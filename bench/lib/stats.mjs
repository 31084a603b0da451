/** Small statistics and formatting helpers. */

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function summary(values) {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), runs: values.length, values };
}

export function round(value, digits = 2) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** The last line of a child's stdout that parses as JSON. */
export function lastJson(stdout) {
  const lines = stdout.trim().split("\n").reverse();
  for (const line of lines) {
    try {
      return JSON.parse(line);
    } catch {
      // not JSON
    }
  }
  throw new Error(`no JSON result in child output:\n${stdout.slice(-2000)}`);
}
