/**
 * Latency as a histogram of fixed buckets, so hourly rollups can be summed with atomic ADDs and percentiles
 * still read back from any range of them. A percentile is the upper bound of the bucket it falls in (at most
 * one bucket wide off: ~25–50 % above the true value in the worst case).
 */
export const LATENCY_BOUNDS_MS = [25, 50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10_000, 20_000, 30_000, 60_000, 120_000] as const;

/** Attribute name of each bucket: `lat_le_<bound>`, and `lat_inf` for anything slower than the last bound. */
export const LATENCY_ATTRIBUTES: readonly string[] = [...LATENCY_BOUNDS_MS.map((bound) => `lat_le_${bound}`), 'lat_inf'];

export function latencyAttribute(latencyMs: number): string {
  const index = LATENCY_BOUNDS_MS.findIndex((bound) => latencyMs <= bound);
  return LATENCY_ATTRIBUTES[index === -1 ? LATENCY_ATTRIBUTES.length - 1 : index];
}

/** The p-th percentile (0 < p ≤ 1) of a histogram given as counts per LATENCY_ATTRIBUTES; null when empty. */
export function percentileFromHistogram(counts: readonly number[], p: number): number | null {
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.ceil(p * total);
  let seen = 0;
  for (let index = 0; index < counts.length; index++) {
    seen += counts[index];
    if (seen >= rank) return LATENCY_BOUNDS_MS[Math.min(index, LATENCY_BOUNDS_MS.length - 1)];
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
}
