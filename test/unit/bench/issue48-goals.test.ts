import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../../../bench/measure/load.js';
import { evaluateIssue48 } from '../../../bench/report/issue48.js';
import type { AwsShapedRow, LatencyRow } from '../../../bench/report/results.js';

const load = (requestsPerSecond: number, main: number): LoadResult => ({
  connections: 16,
  durationSeconds: 2,
  requestsPerSecond,
  latencyP50Ms: 8,
  latencyP99Ms: 20,
  completed2xx: 1_000,
  non2xx: 0,
  errors: 0,
  timeouts: 0,
  statusCounts: { 200: 1_000 },
  cpuMicrosPerRequest: main,
  cpuMicrosPerRequestMain: main,
});
const percentiles = (p50: number, p99: number) => ({ p50, p90: p50, p99, max: p99 }) as LatencyRow['gw'];
const latency = (name: string, direct: [number, number], proxy: [number, number], gw: [number, number]): LatencyRow =>
  ({ name, metric: 'first byte', samples: 100, truncated: false, direct: percentiles(...direct), proxy: percentiles(...proxy), gw: percentiles(...gw), added: { p50: gw[0] - direct[0], p90: 0, p99: gw[1] - direct[1] } }) as LatencyRow;
const aws = (scenario: string, max: number, gw = 1.5, proxy = 1.3): AwsShapedRow =>
  ({ scenario, status: 'measured', goal: 0, roundTrips: { median: max, max }, addedVsDirect: { p50: gw, p95: gw }, proxyAddedVsDirect: { p50: proxy, p95: proxy } }) as AwsShapedRow;

type Results = Parameters<typeof evaluateIssue48>[0];
const results = (): Results =>
  ({
    latency: [latency('JSON', [0.3, 1], [0.55, 2.5], [0.85, 3]), latency('stream, first byte', [0.3, 1], [0.5, 2], [0.9, 3])],
    throughput: [
      { upstream: 'fast', connections: 16, direct: load(30_000, 30), gw: load(2_000, 240), proxy: load(12_000, 77), ratio: 0.07 },
      { upstream: 'fast', connections: 64, direct: load(30_000, 30), gw: load(2_000, 250), portkey: load(1_000, 600), ratio: 0.07 },
    ],
    throughputFeatures: [{ name: 'hit', cache: 'hit', connections: 16, gw: load(1_500, 500), upstreamCalls: 0 }],
    awsShaped: { rows: [aws('warm plain', 0), aws('cache hit (simple)', 0), aws('1 matching rate-limit policy', 1), aws('first request after the cache TTLs expired', 3)] },
  }) as unknown as Results;

describe('issue #48 goal rows', () => {
  it('judges CPU against 250 / 450 µs, latency against the minimal proxy, throughput against Portkey and the AWS-shaped rows', () => {
    const rows = evaluateIssue48(results());
    expect(rows.map((row) => row.status)).toEqual(['met', 'missed', 'missed', 'missed', 'met', 'missed', 'missed', 'met']);
    expect(rows[1].distance).toBe('50 µs over');
    // JSON p50: gw 0.85 − proxy 0.55 = 0.30 ms over the proxy, 0.05 over the goal's 0.25.
    expect(rows[2].distance).toBe('0.05 ms over');
    expect(rows[5].measured).toBe('gw 2,000 ÷ Portkey 1,000 req/s = 2.00×');
    // Only the rows the issue names count: the expiry row's refreshes do not.
    expect(rows[6]).toMatchObject({ status: 'missed', distance: '1 matching rate-limit policy +1' });
  });

  it('says "not measured" for what a partial run did not measure', () => {
    const rows = evaluateIssue48({ ...results(), latency: [], throughputFeatures: undefined, awsShaped: undefined } as Results);
    expect(rows.filter((row) => row.measured === 'not measured').length).toBe(4);
    expect(rows.length).toBe(6);
  });
});
