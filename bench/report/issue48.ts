import type { BenchResults, GoalRow } from './results.js';

/**
 * Issue #48's goals (Node 24, one run, Portkey and the minimal proxy beside gw), each judged within the run: CPU per
 * request of gw's own process at 16 connections (plain; one policy + a saved config + a cache hit), added latency over
 * the minimal proxy's (JSON p50 and p99, first streamed byte), throughput against Portkey's at 64 connections, and
 * the AWS-shaped rows (0 store round trips before the first byte; warm plain over the proxy's).
 */
export const ISSUE_48_GOALS = {
  plainCpuMicros: 250,
  withFeaturesCpuMicros: 450,
  jsonP50OverProxyMs: 0.25,
  firstByteP50OverProxyMs: 0.25,
  jsonP99OverProxyMs: 1,
  throughputOverPortkey: 3,
  awsWarmPlainOverProxyMs: 0.3,
} as const;

/** The AWS-shaped rows issue #48 wants at 0 round trips before the first byte. */
const ZERO_ROUND_TRIP_ROWS = ['warm plain', '1 matching rate-limit policy', '3 matching rate-limit policies', 'virtual key', 'saved config', 'cache hit (simple)'];

const ms = (value: number) => `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(2)} ms`;
const micros = (value: number) => `${Math.round(value).toLocaleString('en-US')} µs`;

function judged(goal: string, measured: string, value: number | undefined, limit: number, unit: (value: number) => string, atLeast = false): GoalRow {
  if (value === undefined || !Number.isFinite(value)) return { goal, measured: 'not measured', status: 'n/a' };
  const met = atLeast ? value >= limit : value <= limit;
  return { goal, measured, status: met ? 'met' : 'missed', distance: met ? undefined : `${unit(Math.abs(value - limit)).replace(/^[+−]/, '')} ${atLeast ? 'short' : 'over'}` };
}

export function evaluateIssue48(results: Omit<BenchResults, 'targets' | 'issue23' | 'issue34' | 'issue48'>): GoalRow[] {
  const rows: GoalRow[] = [];
  const at16 = results.throughput.find((row) => row.upstream === 'fast' && row.connections === 16);
  const plain = at16?.gw.cpuMicrosPerRequestMain;
  rows.push(judged(`gw process CPU per plain request ≤ ${ISSUE_48_GOALS.plainCpuMicros} µs (16 connections, logs on)`, plain === undefined ? '' : `${micros(plain)} (minimal proxy ${at16?.proxy?.cpuMicrosPerRequest === undefined ? 'n/a' : micros(at16.proxy.cpuMicrosPerRequest)})`, plain, ISSUE_48_GOALS.plainCpuMicros, micros));
  const hit = results.throughputFeatures?.find((row) => row.cache === 'hit')?.gw.cpuMicrosPerRequestMain;
  rows.push(judged(`gw process CPU per request ≤ ${ISSUE_48_GOALS.withFeaturesCpuMicros} µs with one policy, a saved config and a cache hit`, hit === undefined ? '' : micros(hit), hit, ISSUE_48_GOALS.withFeaturesCpuMicros, micros));

  const overProxy = (name: string, pick: 'p50' | 'p99', limit: number, label: string) => {
    const row = results.latency.find((candidate) => candidate.name === name);
    const value = row?.proxy ? row.gw[pick] - row.proxy[pick] : undefined;
    const measured = row?.proxy ? `gw ${ms(row.added[pick])}, minimal proxy ${ms(row.proxy[pick] - row.direct[pick])} over direct: gw ${ms(value!)} over the proxy` : '';
    rows.push(judged(label, measured, value, limit, ms));
  };
  overProxy('JSON', 'p50', ISSUE_48_GOALS.jsonP50OverProxyMs, `added p50 (JSON) ≤ the minimal proxy's + ${ISSUE_48_GOALS.jsonP50OverProxyMs} ms`);
  overProxy('stream, first byte', 'p50', ISSUE_48_GOALS.firstByteP50OverProxyMs, `first streamed byte p50 ≤ the minimal proxy's + ${ISSUE_48_GOALS.firstByteP50OverProxyMs} ms`);
  overProxy('JSON', 'p99', ISSUE_48_GOALS.jsonP99OverProxyMs, `p99 (JSON) ≤ the minimal proxy's + ${ISSUE_48_GOALS.jsonP99OverProxyMs} ms`);

  const at64 = results.throughput.find((row) => row.upstream === 'fast' && row.connections === 64);
  const ratio = at64?.portkey && at64.portkey.requestsPerSecond > 0 ? at64.gw.requestsPerSecond / at64.portkey.requestsPerSecond : undefined;
  rows.push(
    judged(
      `throughput at 64 connections ≥ ${ISSUE_48_GOALS.throughputOverPortkey}× Portkey's`,
      ratio === undefined ? '' : `gw ${Math.round(at64!.gw.requestsPerSecond).toLocaleString('en-US')} ÷ Portkey ${Math.round(at64!.portkey!.requestsPerSecond).toLocaleString('en-US')} req/s = ${ratio.toFixed(2)}×`,
      ratio,
      ISSUE_48_GOALS.throughputOverPortkey,
      (value) => `${value.toFixed(2)}×`,
      true,
    ),
  );

  const aws = results.awsShaped?.rows.filter((row) => row.status === 'measured') ?? [];
  if (aws.length > 0) {
    const wanted = aws.filter((row) => ZERO_ROUND_TRIP_ROWS.includes(row.scenario));
    const over = wanted.filter((row) => (row.roundTrips?.max ?? 0) > 0);
    rows.push({
      goal: 'AWS-shaped: 0 store round trips before the first byte (plain, 1 and 3 policies, virtual key, saved config, hot cache hit)',
      measured: wanted.map((row) => `${row.scenario} ${row.roundTrips?.max ?? 'n/a'}`).join('; '),
      status: wanted.length === 0 ? 'n/a' : over.length > 0 ? 'missed' : 'met',
      distance: over.length > 0 ? over.map((row) => `${row.scenario} +${row.roundTrips?.max}`).join('; ') : undefined,
    });
    const warm = aws.find((row) => row.scenario === 'warm plain');
    const value = warm?.addedVsDirect && warm.proxyAddedVsDirect ? warm.addedVsDirect.p50 - warm.proxyAddedVsDirect.p50 : undefined;
    rows.push(
      judged(
        `AWS-shaped warm plain ≤ the minimal proxy's + ${ISSUE_48_GOALS.awsWarmPlainOverProxyMs} ms (p50)`,
        value === undefined ? '' : `gw ${ms(warm!.addedVsDirect!.p50)}, proxy ${ms(warm!.proxyAddedVsDirect!.p50)} over direct`,
        value,
        ISSUE_48_GOALS.awsWarmPlainOverProxyMs,
        ms,
      ),
    );
  }
  return rows;
}
