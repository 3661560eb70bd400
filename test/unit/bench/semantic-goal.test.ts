import { describe, expect, it } from 'vitest';
import type { BenchResults } from '../../../bench/report/results.js';
import { evaluateIssue23 } from '../../../bench/report/targets.js';

// Issue #34: the semantic-cache goal counts recall against exact search, not only bytes and round trips.
function semanticRow(recall: number) {
  const results = {
    latency: [],
    throughput: [],
    coldStart: { built: true, rows: [] },
    semanticScale: [{ entries: 100_000, lookupBytes: 32 * 1024, roundTrips: 1, recall }],
  } as unknown as Omit<BenchResults, 'targets' | 'issue23'>;
  return evaluateIssue23(results).find((row) => row.goal.startsWith('semantic-cache lookup'));
}

describe('the semantic-cache goal', () => {
  it('is missed by an index within its byte and round-trip budget that finds too little', () => {
    expect(semanticRow(0.61)).toMatchObject({ status: 'missed', distance: 'recall 0.340 short' });
  });

  it('is met with recall at or above 0.95 within the budget', () => {
    expect(semanticRow(0.993)).toMatchObject({ status: 'met', measured: 'at 100,000 entries: 32.0 KiB, 1 round trip(s), recall 0.993' });
  });
});
