/** Percentiles and summaries of latency samples; pure, so the unit tests pin them down. */

export interface Summary {
  count: number;
  min: number;
  mean: number;
  p1: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/**
 * Nearest-rank percentile of an ascending array: the smallest sample with at least p% of the
 * samples at or below it. No interpolation, so every reported figure is a latency that happened.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  if (p <= 0) return sorted[0]!;
  if (p >= 100) return sorted[sorted.length - 1]!;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.max(0, rank - 1)]!;
}

export function summarize(samples: readonly number[]): Summary {
  const finite = samples.filter((v) => Number.isFinite(v));
  const sorted = [...finite].sort((a, b) => a - b);
  if (sorted.length === 0) return { count: 0, min: NaN, mean: NaN, p1: NaN, p50: NaN, p95: NaN, p99: NaN, max: NaN };
  const sum = sorted.reduce((acc, v) => acc + v, 0);
  return {
    count: sorted.length,
    min: percentile(sorted, 0),
    mean: sum / sorted.length,
    p1: percentile(sorted, 1),
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: percentile(sorted, 100),
  };
}

/** Events per second over the span from the first start to the last end; NaN with no events. */
export function ratePerSecond(count: number, firstStartMs: number, lastEndMs: number): number {
  const spanMs = lastEndMs - firstStartMs;
  if (count === 0 || !(spanMs > 0)) return Number.NaN;
  return (count * 1000) / spanMs;
}

/** Rounds for display and JSON: 3 significant digits below 100, whole numbers above. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  if (Math.abs(value) >= 100) return Math.round(value);
  return Number(value.toPrecision(3));
}
