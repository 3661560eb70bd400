export interface Percentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  min: number;
  max: number;
}

/** Nearest-rank percentiles (no interpolation: every reported value is one that was measured). */
export function percentiles(samples: readonly number[]): Percentiles {
  if (samples.length === 0) return { count: 0, p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, min: Number.NaN, max: Number.NaN };
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  return { count: sorted.length, p50: rank(50), p90: rank(90), p99: rank(99), min: sorted[0], max: sorted[sorted.length - 1] };
}

/** One nearest-rank percentile (NaN without samples). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function median(samples: readonly number[]): number {
  return percentiles(samples).p50;
}

/** gw minus direct, percentile by percentile: what gw adds at the median, at p90 and at the tail. */
export function added(gw: Percentiles, direct: Percentiles): { p50: number; p90: number; p99: number } {
  return { p50: gw.p50 - direct.p50, p90: gw.p90 - direct.p90, p99: gw.p99 - direct.p99 };
}

export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value)) return value;
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
