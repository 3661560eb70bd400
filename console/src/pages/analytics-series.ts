import type { Json } from '../api';

/** What the analytics charts plot: each a figure of the API's rows and series, summed over keys or not. */
export const CHARTS = {
  requests: 'Requests',
  errors: 'Errors',
  tokens: 'Tokens',
  cost: 'Cost (USD)',
  latency_p50_ms: 'Latency p50 (ms)',
  latency_p95_ms: 'Latency p95 (ms)',
  cache_hit_rate: 'Cache hit rate',
} as const;
export type Metric = keyof typeof CHARTS;

/** Lines per chart: the busiest keys, the rest summed as "other" so a chart stays readable. */
export const TOP_KEYS = 5;

export const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

function combine(points: Json[], metric: Metric): number {
  if (points.length === 0) return 0;
  // A percentile cannot be summed: a bucket (or "other") shows its worst key's value.
  if (metric.startsWith('latency')) return Math.max(...points.map((point) => num(point[metric])));
  if (metric === 'cache_hit_rate') {
    const requests = points.reduce((sum, point) => sum + num(point.requests), 0);
    return requests ? points.reduce((sum, point) => sum + num(point.cache_hits), 0) / requests : 0;
  }
  if (metric === 'tokens') return points.reduce((sum, point) => sum + num(point.prompt_tokens) + num(point.completion_tokens), 0);
  return points.reduce((sum, point) => sum + num(point[metric]), 0);
}

/** The keys that get a line of their own (most requests first, as the API orders rows), and whether others exist. */
export function chartKeys(rows: Json[]): { keys: string[]; other: boolean } {
  const keys = rows.slice(0, TOP_KEYS).map((row) => String(row.key));
  return { keys, other: rows.length > TOP_KEYS };
}

/**
 * One value per interval bucket over the whole window and per line (empty buckets are 0, so quiet hours show),
 * as uPlot wants it: `[times (s), line 1, line 2, …]`.
 */
export function timelines(series: Json[], metric: Metric, window: { from: string; to: string; interval: 'hour' | 'day' }, lines: { keys: string[]; other: boolean }): number[][] {
  const step = window.interval === 'hour' ? 3600_000 : 86_400_000;
  const buckets = new Map<number, Json[]>();
  for (const point of series) {
    const time = Date.parse(String(point.time ?? ''));
    if (!Number.isFinite(time)) continue;
    const bucket = Math.floor(time / step) * step;
    buckets.set(bucket, [...(buckets.get(bucket) ?? []), point]);
  }
  const start = Math.floor((Date.parse(window.from) || Date.now() - 86_400_000) / step) * step;
  const end = Math.max(start, Date.parse(window.to) || Date.now());
  const times: number[] = [];
  for (let time = start; time <= end && times.length < 2000; time += step) times.push(time);
  const named = new Set(lines.keys);
  const columns = lines.keys.map((key) => times.map((time) => combine((buckets.get(time) ?? []).filter((point) => String(point.key) === key), metric)));
  if (lines.other) columns.push(times.map((time) => combine((buckets.get(time) ?? []).filter((point) => !named.has(String(point.key))), metric)));
  return [times.map((time) => time / 1000), ...columns];
}
