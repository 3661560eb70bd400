import { LATENCY_ATTRIBUTES, percentileFromHistogram } from '../../observability/latency-histogram.js';
import type { RollupItem } from '../../store/rollup-repository.js';
import type { AnalyticsPoint, AnalyticsRow } from './schemas.js';

interface Sums {
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
  cache_hits: number;
  latency: number[];
}

const empty = (): Sums => ({ requests: 0, errors: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0, cache_hits: 0, latency: LATENCY_ATTRIBUTES.map(() => 0) });

function add(sums: Sums, item: RollupItem): void {
  sums.requests += item.requests ?? 0;
  sums.errors += item.errors ?? 0;
  sums.prompt_tokens += item.prompt_tokens ?? 0;
  sums.completion_tokens += item.completion_tokens ?? 0;
  sums.cost += item.cost ?? 0;
  sums.cache_hits += item.cache_hits ?? 0;
  LATENCY_ATTRIBUTES.forEach((name, index) => (sums.latency[index] += (item[name as `lat_${string}`] as number | undefined) ?? 0));
}

function figures(sums: Sums) {
  return {
    requests: sums.requests,
    errors: sums.errors,
    prompt_tokens: sums.prompt_tokens,
    completion_tokens: sums.completion_tokens,
    // Sums of decimal costs pick up float noise; a 1e-10 USD rounding keeps them equal to the logs' sum.
    cost: Math.round(sums.cost * 1e10) / 1e10,
    cache_hits: sums.cache_hits,
    latency_p50_ms: percentileFromHistogram(sums.latency, 0.5),
    latency_p95_ms: percentileFromHistogram(sums.latency, 0.95),
  };
}

/** Totals per key (most requests first) and a series per interval bucket and key (oldest first). */
export function aggregateRollups(items: RollupItem[], interval: 'hour' | 'day'): { rows: AnalyticsRow[]; series: AnalyticsPoint[] } {
  const byKey = new Map<string, Sums>();
  const byTime = new Map<string, Sums>();
  for (const item of items) {
    const total = byKey.get(item.key) ?? empty();
    add(total, item);
    byKey.set(item.key, total);
    const time = interval === 'hour' ? item.bucket : `${item.bucket.slice(0, 10)}T00:00:00Z`;
    const pointKey = `${time}\u0000${item.key}`;
    const point = byTime.get(pointKey) ?? empty();
    add(point, item);
    byTime.set(pointKey, point);
  }
  const rows = [...byKey.entries()].map(([key, sums]) => ({ key, ...figures(sums) })).sort((a, b) => b.requests - a.requests || a.key.localeCompare(b.key));
  const series = [...byTime.entries()]
    .map(([pointKey, sums]) => {
      const [time, key] = pointKey.split('\u0000');
      return { time, key, ...figures(sums) };
    })
    .sort((a, b) => a.time.localeCompare(b.time) || a.key.localeCompare(b.key));
  return { rows, series };
}
