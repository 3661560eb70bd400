import type { BenchResults, TargetRow } from './results.js';

/** The targets, as ratios and differences within one run. They are reported, never enforced. */
export const TARGETS = {
  jsonAddedP50Ms: 0.3,
  jsonAddedP99Ms: 1,
  streamFirstByteAddedP50Ms: 1,
  throughputRatioAt64: 1 / 3,
  importMs: 100,
  gatewayBundleBytes: 500 * 1024,
} as const;

const ms = (value: number) => `${value.toFixed(3)} ms`;

function judge(target: string, value: number | undefined, limit: number, format: (value: number) => string, atLeast = false): TargetRow {
  if (value === undefined || !Number.isFinite(value)) return { target, measured: 'not measured', status: 'n/a' };
  const met = atLeast ? value >= limit : value <= limit;
  return { target, measured: format(value), status: met ? 'met' : 'missed' };
}

export function evaluateTargets(results: Omit<BenchResults, 'targets'>): TargetRow[] {
  const json = results.latency.find((row) => row.name === 'JSON');
  const firstByte = results.latency.find((row) => row.name === 'stream, first byte');
  const at64 = results.throughput.find((row) => row.upstream === 'fast' && row.connections === 64);
  const rows: TargetRow[] = [
    judge('added latency, JSON, p50 ≤ 0.3 ms', json?.added.p50, TARGETS.jsonAddedP50Ms, ms),
    judge('added latency, JSON, p99 ≤ 1 ms', json?.added.p99, TARGETS.jsonAddedP99Ms, ms),
    judge('added time to first streamed byte, p50 ≤ 1 ms', firstByte?.added.p50, TARGETS.streamFirstByteAddedP50Ms, ms),
    judge('throughput at 64 connections ≥ 1/3 of direct', at64?.ratio, TARGETS.throughputRatioAt64, (value) => `${(value * 100).toFixed(1)} % of direct`, true),
  ];
  for (const row of results.coldStart.rows) {
    rows.push(judge(`${row.bundle} bundle imports in < 100 ms`, row.importMs.median, TARGETS.importMs - Number.EPSILON, (value) => `${value.toFixed(1)} ms`));
  }
  const gateway = results.coldStart.rows.find((row) => row.bundle === 'gateway');
  rows.push(judge('gateway bundle < 500 KiB minified', gateway?.bytes, TARGETS.gatewayBundleBytes - 1, (value) => `${(value / 1024).toFixed(1)} KiB`));
  return rows;
}
