/** Percentiles and medians for latency samples. Nearest-rank percentiles: every figure is a real sample. */

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** p50/p99/max/min/mean of a list of numbers (any unit). */
export function summarize(samples) {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
    min: sorted.length ? sorted[0] : NaN,
    mean: sorted.length ? sum / sorted.length : NaN,
  };
}

export function median(values) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The median of every numeric field across repetitions: `[{p50: 1}, {p50: 3}, {p50: 2}]` → `{p50: 2}`. */
export function medianOfReps(reps) {
  const result = {};
  for (const key of Object.keys(reps[0] ?? {})) {
    if (typeof reps[0][key] === 'number') result[key] = median(reps.map((rep) => rep[key]));
  }
  return result;
}
