import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregateRollups } from '../../../shared/control-plane/analytics/aggregate.js';
import { LATENCY_ATTRIBUTES, LATENCY_BOUNDS_MS, latencyAttribute, percentileFromHistogram } from '../../../shared/observability/latency-histogram.js';
import { hourBucket } from '../../../shared/observability/rollups.js';
import { normaliseUsage } from '../../../shared/observability/usage.js';

describe('latency histogram', () => {
  it('puts a latency in the first bucket whose bound holds it', () => {
    expect(latencyAttribute(0)).toBe('lat_le_25');
    expect(latencyAttribute(25)).toBe('lat_le_25');
    expect(latencyAttribute(26)).toBe('lat_le_50');
    expect(latencyAttribute(10 ** 9)).toBe('lat_inf');
  });

  it('reads a percentile no lower than the true one and at most one bucket above it', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 200 }), fc.constantFrom(0.5, 0.95), (latencies, p) => {
        const counts = LATENCY_ATTRIBUTES.map((name) => latencies.filter((latency) => latencyAttribute(latency) === name).length);
        const sorted = [...latencies].sort((a, b) => a - b);
        const truth = sorted[Math.ceil(p * sorted.length) - 1];
        const estimate = percentileFromHistogram(counts, p)!;
        expect(estimate).toBeGreaterThanOrEqual(truth);
        const bucketOfTruth = LATENCY_BOUNDS_MS.findIndex((bound) => truth <= bound);
        expect(estimate).toBe(LATENCY_BOUNDS_MS[bucketOfTruth]);
      }),
    );
    expect(percentileFromHistogram(LATENCY_ATTRIBUTES.map(() => 0), 0.5)).toBeNull();
  });
});

describe('rollup aggregation', () => {
  it('sums hour items into rows per key and a daily series', () => {
    const items = [
      { bucket: '2026-11-24T01:00:00Z', key: 'a', requests: 2, errors: 1, cost: 0.1, prompt_tokens: 5, completion_tokens: 6, cache_hits: 1, lat_le_100: 2 },
      { bucket: '2026-11-24T02:00:00Z', key: 'a', requests: 1, cost: 0.2, prompt_tokens: 1, completion_tokens: 1, lat_le_500: 1 },
      { bucket: '2026-11-24T02:00:00Z', key: 'b', requests: 5, lat_inf: 5 },
    ];
    const { rows, series } = aggregateRollups(items, 'day');
    expect(rows).toEqual([
      { key: 'b', requests: 5, errors: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0, cache_hits: 0, latency_p50_ms: 120_000, latency_p95_ms: 120_000 },
      { key: 'a', requests: 3, errors: 1, prompt_tokens: 6, completion_tokens: 7, cost: 0.3, cache_hits: 1, latency_p50_ms: 100, latency_p95_ms: 500 },
    ]);
    expect(series.map((point) => [point.time, point.key, point.requests])).toEqual([
      ['2026-11-24T00:00:00Z', 'a', 3],
      ['2026-11-24T00:00:00Z', 'b', 5],
    ]);
    expect(aggregateRollups(items, 'hour').series).toHaveLength(3);
    expect(hourBucket('2026-11-24T02:59:59.999Z')).toBe('2026-11-24T02:00:00Z');
  });
});

describe('usage normalisation', () => {
  it('reads OpenAI chat, Responses and Anthropic usage into one shape', () => {
    expect(normaliseUsage({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 2 } })).toEqual({
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      cached_tokens: 4,
      reasoning_tokens: 2,
    });
    expect(normaliseUsage({ input_tokens: 7, output_tokens: 3, cache_read_input_tokens: 1 })).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, cached_tokens: 1, reasoning_tokens: 0 });
    expect(normaliseUsage(undefined)).toBeUndefined();
  });
});
