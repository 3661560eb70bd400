import type { LoadResult } from '../measure/load.js';
import type { BenchResults, GoalRow, TargetRow } from './results.js';

/** The issue's targets, as ratios and differences within one run. They are reported, never enforced. */
export const TARGETS = {
  jsonAddedP50Ms: 0.3,
  jsonAddedP99Ms: 1,
  streamFirstByteAddedP50Ms: 1,
  throughputRatioAt64: 1 / 3,
  importMs: 100,
  gatewayBundleBytes: 500 * 1024,
} as const;

const ms = (value: number) => `${value.toFixed(3)} ms`;
const kibText = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function judge(target: string, value: number | undefined, limit: number, format: (value: number) => string, atLeast = false): TargetRow {
  if (value === undefined || !Number.isFinite(value)) return { target, measured: 'not measured', status: 'n/a' };
  const met = atLeast ? value >= limit : value <= limit;
  return { target, measured: format(value), status: met ? 'met' : 'missed' };
}

export function evaluateTargets(results: Omit<BenchResults, 'targets' | 'issue23'>): TargetRow[] {
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
  // What a cold import loads, not index.mjs alone: with code splitting the entry can be tiny while the chunks it
  // imports at once are not.
  rows.push(judge('gateway bundle < 500 KiB loaded by a cold import', gateway?.loadedBytes ?? gateway?.bytes, TARGETS.gatewayBundleBytes - 1, (value) => `${(value / 1024).toFixed(1)} KiB`));
  return rows;
}

/**
 * Issue #23 (performance) as a table: each goal, what this run measured, and "met" or how far from it. The goals
 * are the issue's: CPU per request ≤ 200 µs for the whole local process (the bare proxy measured 137 µs); added
 * latency ≤ 0.3 ms over the minimal proxy (the floor of any Node hop); ≤ 1 ms to the first streamed byte; at
 * 64 connections ≥ 3× Portkey's ≈ 2,100 req/s measured in the issue on this machine (Portkey is not run here, so
 * that figure is absolute and the machine's load moves it).
 */
export const ISSUE_23_GOALS = {
  cpuMicrosPerRequest: 200,
  jsonAddedOverProxyP50Ms: 0.3,
  streamFirstByteAddedP50Ms: 1,
  requestsPerSecondAt64: 3 * 2_100,
  gatewayBundleBytes: 500 * 1024,
  importMs: 100,
} as const;

/**
 * Issue #34's CPU goals, for gw's own process at 16 connections (fast upstream, logs on): a plain request (a key, no
 * policy) and a request with one matching policy, a saved config and a simple-cache lookup (hit and miss).
 */
export const ISSUE_34_GOALS = { plainCpuMicros: 400, withFeaturesCpuMicros: 600 } as const;

/** Issue #34: recall of the semantic index against exact search at 100,000 entries. */
const SEMANTIC_RECALL_GOAL = 0.95;

function goal(target: string, value: number | undefined, limit: number, format: (value: number) => string, atLeast = false): GoalRow {
  if (value === undefined || !Number.isFinite(value)) return { goal: target, measured: 'not measured', status: 'n/a' };
  const met = atLeast ? value >= limit : value <= limit;
  return { goal: target, measured: format(value), status: met ? 'met' : 'missed', distance: met ? undefined : `${format(Math.abs(value - limit))} ${atLeast ? 'short' : 'over'}` };
}

export function evaluateIssue23(results: Omit<BenchResults, 'targets' | 'issue23'>): GoalRow[] {
  const json = results.latency.find((row) => row.name === 'JSON');
  const firstByte = results.latency.find((row) => row.name === 'stream, first byte');
  const at16 = results.throughput.find((row) => row.upstream === 'fast' && row.connections === 16);
  const at64 = results.throughput.find((row) => row.upstream === 'fast' && row.connections === 64);
  const gateway = results.coldStart.rows.find((row) => row.bundle === 'gateway');
  const micros = (value: number) => `${Math.round(value)} µs`;
  const rows: GoalRow[] = [
    goal(`CPU per request, gw and its child processes (fast upstream, 16 connections) ≤ ${ISSUE_23_GOALS.cpuMicrosPerRequest} µs`, at16?.gw.cpuMicrosPerRequest, ISSUE_23_GOALS.cpuMicrosPerRequest, micros),
    goal('added latency p50, JSON sequential, over the minimal proxy ≤ 0.3 ms', json?.proxy ? json.gw.p50 - json.proxy.p50 : undefined, ISSUE_23_GOALS.jsonAddedOverProxyP50Ms, ms),
    goal('added time to first streamed byte p50 ≤ 1 ms', firstByte?.added.p50, ISSUE_23_GOALS.streamFirstByteAddedP50Ms, ms),
    {
      ...goal('req/s at 64 connections ≥ 6,300 (3× Portkey as measured in the issue)', at64?.gw.requestsPerSecond, ISSUE_23_GOALS.requestsPerSecondAt64, (value) => `${Math.round(value)} req/s`, true),
      ...(at64 ? { measured: `${Math.round(at64.gw.requestsPerSecond)} req/s = ${(at64.ratio * 100).toFixed(1)} % of direct (${Math.round(at64.direct.requestsPerSecond)})` } : {}),
    },
    {
      // Split into an entry and lazily loaded siblings, the bundle that counts is what a cold start loads.
      ...goal('gateway bundle < 500 KiB minified (what a cold import loads)', gateway?.loadedBytes ?? gateway?.bytes, ISSUE_23_GOALS.gatewayBundleBytes - 1, kibText),
      ...(gateway
        ? { measured: `${kibText(gateway.loadedBytes ?? gateway.bytes)} loaded (entry ${kibText(gateway.bytes)}${gateway.totalBytes === undefined ? '' : `, ${kibText(gateway.totalBytes)} shipped in all`})` }
        : {}),
    },
    goal('gateway cold import < 100 ms (median of fresh processes)', gateway?.importMs.median, ISSUE_23_GOALS.importMs - Number.EPSILON, (value) => `${value.toFixed(1)} ms`),
  ];
  const scale = Array.isArray(results.semanticScale) && results.semanticScale.length > 0 ? [...results.semanticScale].sort((a, b) => b.entries - a.entries)[0] : undefined;
  if (scale) {
    const bytesOk = scale.lookupBytes <= 64 * 1024;
    const tripsOk = scale.roundTrips <= 1;
    // Issue #34: the index must also find what exact search finds (recall against a brute-force scan).
    const recallOk = !(scale.recall < SEMANTIC_RECALL_GOAL);
    const at = scale.entries.toLocaleString('en-US');
    rows.push({
      goal: `semantic-cache lookup at 100,000 entries: ≤ 64 KiB read, ≤ 1 store round trip, recall ≥ ${SEMANTIC_RECALL_GOAL}`,
      measured: `at ${at} entries: ${(scale.lookupBytes / 1024).toFixed(1)} KiB, ${scale.roundTrips} round trip(s), recall ${scale.recall}`,
      // A run that stopped short of 100,000 entries (--quick) cannot meet the goal, only miss it.
      status: !bytesOk || !tripsOk || !recallOk ? 'missed' : scale.entries >= 100_000 ? 'met' : 'n/a',
      distance:
        [
          bytesOk ? undefined : `${((scale.lookupBytes - 64 * 1024) / 1024).toFixed(1)} KiB over`,
          tripsOk ? undefined : `${scale.roundTrips - 1} round trip(s) over`,
          recallOk ? undefined : `recall ${(SEMANTIC_RECALL_GOAL - scale.recall).toFixed(3)} short`,
        ]
          .filter(Boolean)
          .join(', ') || undefined,
    });
  }
  const aws = results.awsShaped;
  if (aws && aws.rows.length > 0) {
    const measured = aws.rows.filter((row) => row.status === 'measured');
    const missed = measured.filter((row) => !row.met);
    const unmeasured = aws.rows.length - measured.length;
    rows.push({
      goal: `AWS-shaped (${aws.storeLatencyMs} ms per store call): 0 store round trips before the first byte for a warm plain request, ≤ 1 for the others`,
      measured: aws.rows.map((row) => `${row.scenario}: ${row.roundTrips ? `${row.roundTrips.max}` : row.status}`).join('; '),
      status: measured.length === 0 ? 'n/a' : missed.length > 0 ? 'missed' : unmeasured > 0 ? 'n/a' : 'met',
      distance: missed.length > 0 ? missed.map((row) => `${row.scenario} +${(row.roundTrips?.max ?? 0) - row.goal}`).join('; ') : undefined,
    });
  }
  return rows;
}

/** gw's own process per request, with gw and its child processes beside it. */
function cpuText(result: LoadResult): (value: number) => string {
  const whole = (value: number) => Math.round(value).toLocaleString('en-US');
  return (value) => `${whole(value)} µs (with its child processes ${result.cpuMicrosPerRequest === undefined ? 'n/a' : whole(result.cpuMicrosPerRequest)} µs; ${whole(result.requestsPerSecond)} req/s)`;
}

export function evaluateIssue34(results: Omit<BenchResults, 'targets' | 'issue23' | 'issue34'>): GoalRow[] {
  const at16 = results.throughput.find((row) => row.upstream === 'fast' && row.connections === 16);
  const micros = (value: number) => `${Math.round(value).toLocaleString('en-US')} µs`;
  const withDetail = (row: GoalRow, result: LoadResult | undefined) => (result?.cpuMicrosPerRequestMain === undefined ? row : { ...row, measured: cpuText(result)(result.cpuMicrosPerRequestMain) });
  const rows = [
    withDetail(goal(`gw process CPU per request ≤ ${ISSUE_34_GOALS.plainCpuMicros} µs at 16 connections (plain: a key, no policy, logs on)`, at16?.gw.cpuMicrosPerRequestMain, ISSUE_34_GOALS.plainCpuMicros, micros), at16?.gw),
  ];
  for (const cache of ['hit', 'miss'] as const) {
    const row = results.throughputFeatures?.find((candidate) => candidate.cache === cache);
    const target = `gw process CPU per request ≤ ${ISSUE_34_GOALS.withFeaturesCpuMicros} µs at 16 connections with one policy, a saved config and a cache lookup (${cache})`;
    rows.push(withDetail(goal(target, row?.gw.cpuMicrosPerRequestMain, ISSUE_34_GOALS.withFeaturesCpuMicros, micros), row?.gw));
  }
  return [...rows, ...evaluatePortkeyGoals(results)];
}

/** Issue #34 against Portkey's open-source gateway, run beside gw: both as ratios within one run. */
export const PORTKEY_GOALS = { addedP50Ratio: 3, throughputRatio: 3, connections: 64 } as const;

const times = (value: number) => `${value.toFixed(2)}×`;

/**
 * "added p50 ≥ 3× lower than Portkey's" (JSON, sequential): Portkey's added p50 ÷ gw's ≥ 3; and "throughput ≥ 3×
 * Portkey's at 64 connections" (fast upstream, logs on): gw req/s ÷ Portkey req/s ≥ 3. A plan without 64
 * connections (--quick) is judged at its largest level, and the goal says which.
 */
export function evaluatePortkeyGoals(results: Pick<BenchResults, 'latency' | 'throughput' | 'portkey'>): GoalRow[] {
  const why = results.portkey?.unavailable ? `not measured (Portkey: ${results.portkey.unavailable})` : 'not measured';
  const latencyGoal = `added p50 ≥ ${PORTKEY_GOALS.addedP50Ratio}× lower than Portkey’s (JSON, sequential): Portkey’s added p50 ÷ gw’s`;
  const json = results.latency.find((row) => row.name === 'JSON');
  let latencyRow: GoalRow = { goal: latencyGoal, measured: why, status: 'n/a' };
  if (json?.portkeyAdded) {
    const gwAdded = json.added.p50;
    const portkeyAdded = json.portkeyAdded.p50;
    const figures = `Portkey ${ms(portkeyAdded)} ÷ gw ${ms(gwAdded)}`;
    // gw adding nothing measurable (p50 at or below direct's) against a Portkey that adds time is the goal met.
    latencyRow =
      gwAdded <= 0
        ? { goal: latencyGoal, measured: `${figures}: gw adds nothing measurable`, status: portkeyAdded > 0 ? 'met' : 'n/a' }
        : { ...goal(latencyGoal, portkeyAdded / gwAdded, PORTKEY_GOALS.addedP50Ratio, times, true), measured: `${figures} = ${times(portkeyAdded / gwAdded)}` };
  }

  const fast = results.throughput.filter((row) => row.upstream === 'fast').sort((a, b) => b.connections - a.connections);
  const compared = fast.find((row) => row.connections === PORTKEY_GOALS.connections) ?? fast[0];
  const level = compared && compared.connections !== PORTKEY_GOALS.connections ? ` (this run: ${compared.connections} connections, the largest level of its plan)` : '';
  const throughputGoal = `throughput ≥ ${PORTKEY_GOALS.throughputRatio}× Portkey’s at ${PORTKEY_GOALS.connections} connections${level}, fast upstream, logs on: gw req/s ÷ Portkey req/s`;
  let throughputRow: GoalRow = { goal: throughputGoal, measured: why, status: 'n/a' };
  if (compared?.portkey && compared.portkey.requestsPerSecond > 0) {
    const ratio = compared.gw.requestsPerSecond / compared.portkey.requestsPerSecond;
    const whole = (value: number) => Math.round(value).toLocaleString('en-US');
    throughputRow = {
      ...goal(throughputGoal, ratio, PORTKEY_GOALS.throughputRatio, times, true),
      measured: `gw ${whole(compared.gw.requestsPerSecond)} req/s ÷ Portkey ${whole(compared.portkey.requestsPerSecond)} req/s = ${times(ratio)}`,
    };
  }
  return [latencyRow, throughputRow];
}
