import { keepAliveAgent, timedRequest, type ProbeRequest, type TimedResponse } from '../measure/http-probe.js';
import { median, percentile } from '../measure/stats.js';
import { callsBetween, sequentialDepth, startStoreProxy, waitForQuiet, type StoreCall, type StoreProxy } from '../measure/store-proxy.js';
import type { AwsShapedPlan } from '../options.js';
import type { ChildRegistry } from '../processes/children.js';
import { startBenchStore, startGw, startReferenceProxy, type GwProcess, type MockProcess } from '../processes/launch.js';
import type { AwsShapedResult, AwsShapedRow } from '../report/results.js';
import { HOT_PATH_SCENARIOS, type HotPathScenario, type ReadyScenario, type ScenarioContext } from '../scenarios/hot-path.js';
import { checkChatJson, directChat, gwChat, proxyChat, type BenchEndpoints } from '../scenarios/requests.js';
import { costPolicyScenario, tokensPolicyScenario } from '../scenarios/amount-limits.js';
import { savedConfigScenario, virtualKeyScenario } from '../scenarios/stored-entities.js';
import { createBenchWorkspaceAndKey } from '../scenarios/tenant.js';
import { REQUEST_TIMEOUT_MS } from './context.js';

/**
 * The AWS-shaped mode (issue #23): gw runs against a DynamoDB-compatible store in a process of its own, reached
 * through a proxy that adds `storeLatencyMs` to every call (bench/measure/store-proxy.ts), as DynamoDB is a
 * network hop away on AWS. For each scenario, one request at a time: the store calls that arrived between sending
 * it and its first response byte (and how many of them ran in sequence), and its latency against the direct path.
 *
 * Before each measured request the store must have been quiet for `quietMs` (longer than gw's longest
 * write-behind delay, the 500 ms of the rollups), so that the previous request's after-path (request log,
 * charges, rollups) is not counted against this one. "Warm" requests follow an unmeasured one of the same kind by
 * less than the cache TTL (on a gw whose caches outlive the warm rows, `WARM_CACHE_TTLS`); "expired" ones follow
 * it by more than the TTL (on a second gw with short TTLs).
 *
 * Latency is compared like for like (issue #34): the direct request and the minimal proxy's are measured after the
 * same idle as gw's (no request in flight and a quiet store for `quietMs`), in an order that rotates every sample.
 * A process that has been idle for half a second pays to be woken (on this 2-vCPU VM, an idle vCPU is halted), so
 * gw's idle request against a direct one sent right after the unmeasured request (as before) counted the wake-ups
 * of gw and of the mock as gw's added latency. That earlier measure is kept beside it as `addedVsHotDirect`.
 */

export interface AwsShapedDeps {
  root: string;
  registry: ChildRegistry;
  mock: MockProcess;
  adminKey: string;
  plan: AwsShapedPlan;
  storeLatencyMs: number;
  /** `--gw-env` settings of the run, applied to this gw too. */
  gwEnv: Record<string, string>;
  errors: string[];
}

interface AwsScenario {
  name: string;
  goal: number;
  /** Wait past the cache TTLs between the unmeasured request and the measured one. */
  expired?: boolean;
  /** Measured before gw's warm-up requests, on a process that has served only a few: as this phase did before issue #34. */
  beforeWarmUp?: boolean;
  setup(context: ScenarioContext): Promise<ReadyScenario | { unavailable: string }>;
}

const plainRequest = (endpoints: BenchEndpoints): ReadyScenario => ({ request: gwChat(endpoints, 'fast', false), check: checkChatJson });

function fromHotPath(name: string, label: string): AwsScenario {
  const scenario = HOT_PATH_SCENARIOS.find((candidate) => candidate.name === name);
  if (!scenario) throw new Error(`bench/scenarios/hot-path.ts has no scenario "${name}"`);
  return { name: label, goal: 1, setup: (context) => scenario.setup(context) };
}

const fromStored = (scenario: HotPathScenario): AwsScenario => ({ name: scenario.name, goal: 1, setup: (context) => scenario.setup(context) });

/** The scenarios and their goals (issue #23: 0 round trips for a warm plain request, at most 1 for the others). */
function awsScenarios(): AwsScenario[] {
  return [
    { name: 'warm plain, on a fresh process (before its warm-up; the measure before issue #34)', goal: 0, beforeWarmUp: true, setup: async (context) => plainRequest(context.endpoints) },
    { name: 'warm plain', goal: 0, setup: async (context) => plainRequest(context.endpoints) },
    { name: 'plain, first request after the cache TTLs expired', goal: 1, expired: true, setup: async (context) => plainRequest(context.endpoints) },
    fromHotPath('1 matching rate-limit policy', '1 matching rate-limit policy'),
    fromHotPath('3 matching rate-limit policies', '3 matching rate-limit policies'),
    fromStored(tokensPolicyScenario),
    fromStored(costPolicyScenario),
    fromHotPath('cache hit (simple)', 'cache hit (simple)'),
    fromStored(virtualKeyScenario),
    fromStored(savedConfigScenario),
  ];
}

/**
 * The caches' TTLs on the gw that measures the warm rows: longer than those rows take (the virtual-key cache's
 * ceiling is 60 s), so no entry expires while they run. Expiry does not make a request wait (the entry is served
 * stale while one background read refreshes it), but a refresh that happens to start beside a measured request
 * and is answered before that request's first byte would be counted as its round trip; the expiry case has a row
 * of its own, on a second gw whose caches expire after `plan.cacheTtlMs`.
 */
const WARM_CACHE_TTLS = { GW_AUTH_CACHE_TTL_MS: '300000', GW_POLICY_CACHE_TTL_MS: '300000', GW_CONFIG_CACHE_TTL_MS: '300000', GW_VIRTUAL_KEY_CACHE_TTL_MS: '60000', GW_CACHE_MEMORY_TTL_MS: '300000' };

/** Starts the store, the proxy and two gws of its own in turn (warm rows, then the expiry row); measures; stops them all whatever happens. */
export async function measureAwsShaped(deps: AwsShapedDeps): Promise<AwsShapedResult | undefined> {
  const { registry, root, plan } = deps;
  const ttl = String(plan.cacheTtlMs);
  const store = await startBenchStore(registry, root);
  const proxy = await startStoreProxy(store.url, deps.storeLatencyMs);
  // The floor of any extra Node hop, measured with the same idle pattern as gw.
  const minimalProxy = await startReferenceProxy(registry, root, deps.mock.url);
  const result: AwsShapedResult = { storeLatencyMs: deps.storeLatencyMs, cacheTtlMs: plan.cacheTtlMs, warmCacheTtlMs: Number(WARM_CACHE_TTLS.GW_AUTH_CACHE_TTL_MS), bootstrapCalls: 0, quietMs: plan.quietMs, warmupRequests: plan.warmupRequests, rows: [] };
  const scenarios = awsScenarios();
  const rows = new Map<AwsScenario, AwsShapedRow>();
  let tenant: Awaited<ReturnType<typeof createBenchWorkspaceAndKey>> | undefined;
  // Each gw measures its rows against the same store (and tenant); false when it never reached the proxy.
  const withGw = async (name: string, cacheTtls: Record<string, string>, measure: (gw: GwProcess) => Promise<void>): Promise<boolean> => {
    const callsBefore = proxy.calls.length;
    let gw: GwProcess | undefined;
    try {
      gw = await startGw(registry, root, {
        name,
        extraEnv: {
          ...deps.gwEnv,
          GW_DYNAMODB_ENDPOINT: proxy.url,
          ...cacheTtls,
          // The scheduled functions are Lambdas of their own on AWS: their store calls are not the gateway's.
          GW_LOCAL_SCHEDULE_INTERVAL_MS: '0',
        },
      });
      const bootstrapCalls = proxy.calls.length - callsBefore;
      result.bootstrapCalls = Math.max(result.bootstrapCalls, bootstrapCalls);
      if (bootstrapCalls === 0) {
        deps.errors.push(`aws-shaped: ${name} made no store call through the proxy while it started, so it did not use GW_DYNAMODB_ENDPOINT (it started a store of its own): nothing to measure`);
        return false;
      }
      await measure(gw);
      if (gw.logs.errors > 0) deps.errors.push(`aws-shaped: ${name} logged ${gw.logs.errors} ERROR line(s), e.g. ${gw.logs.errorSamples.join(' | ')}`);
      return true;
    } finally {
      await gw?.child.stop(5_000);
    }
  };
  const measureRows = async (gw: GwProcess, which: AwsScenario[]) => {
    tenant ??= await createBenchWorkspaceAndKey(gw.url, deps.adminKey);
    const endpoints: BenchEndpoints = { gwUrl: gw.url, mockUrl: deps.mock.url, gwKey: tenant.apiKey, proxyUrl: minimalProxy.url };
    const context: ScenarioContext = {
      endpoints,
      adminKey: deps.adminKey,
      tenant,
      mockStats: () => deps.mock.stats(),
      semanticPartitionEntries: 0,
      setupDeadlineMs: 30_000,
    };
    for (const scenario of which.filter((candidate) => candidate.beforeWarmUp)) rows.set(scenario, await measureScenario(scenario, context, proxy, plan, deps));
    await warmUp(plainRequest(endpoints), plan.warmupRequests);
    for (const scenario of which.filter((candidate) => !candidate.beforeWarmUp)) rows.set(scenario, await measureScenario(scenario, context, proxy, plan, deps));
  };
  try {
    const warm = scenarios.filter((scenario) => !scenario.expired);
    const expiring = scenarios.filter((scenario) => scenario.expired);
    const reached = await withGw('gw (AWS-shaped, warm)', WARM_CACHE_TTLS, (gw) => measureRows(gw, warm));
    if (reached) await withGw('gw (AWS-shaped, expiring caches)', { GW_AUTH_CACHE_TTL_MS: ttl, GW_POLICY_CACHE_TTL_MS: ttl, GW_VIRTUAL_KEY_CACHE_TTL_MS: ttl }, (gw) => measureRows(gw, expiring));
    result.rows = scenarios.flatMap((scenario) => rows.get(scenario) ?? []);
    return result;
  } finally {
    await proxy.close();
    await minimalProxy.child.stop(5_000);
    await store.child.stop(5_000);
  }
}

/**
 * Plain requests, one at a time, before any row is measured: "warm" means compiled code as well as filled caches,
 * as in the latency phase. (Their after-path store calls are over before the first measured request: each waits
 * for a quiet store.)
 */
async function warmUp(ready: ReadyScenario, requests: number): Promise<void> {
  const agent = keepAliveAgent();
  try {
    for (let i = 0; i < requests; i++) {
      const probe = typeof ready.request === 'function' ? ready.request(i) : ready.request;
      expectOk(await timedRequest(agent, probe, REQUEST_TIMEOUT_MS), ready, 'a warm-up request');
    }
  } finally {
    agent.destroy();
  }
}

export interface Sample {
  /** Round trips completed between sending the request and its first byte. */
  calls: StoreCall[];
  /** Calls that arrived in that window but were still unanswered at the first byte: not waited for (after-path). */
  unanswered: number;
  depth: number;
  gwMs: number;
  /** Direct to the mock and through the minimal proxy, each after the same idle as gw's request. */
  directMs: number;
  proxyMs: number;
  /** Direct, sent right after the unmeasured request (while everything is awake): the measure before issue #34. */
  hotDirectMs: number;
  /** The calls as offsets from sending the request, and the first byte: `GetItem(APIKEY/APIKEY) 0.4–6.1, first byte 7.0`. */
  timeline: string;
}

async function measureScenario(scenario: AwsScenario, context: ScenarioContext, proxy: StoreProxy, plan: AwsShapedPlan, deps: AwsShapedDeps): Promise<AwsShapedRow> {
  const row: AwsShapedRow = { scenario: scenario.name, status: 'measured', goal: scenario.goal };
  let ready: ReadyScenario | { unavailable: string };
  try {
    deps.registry.assertAlive();
    ready = await scenario.setup(context);
  } catch (error) {
    deps.errors.push(`aws-shaped, "${scenario.name}", setup: ${(error as Error).message}`);
    return { ...row, status: 'error', reason: `setup: ${(error as Error).message}` };
  }
  if ('unavailable' in ready) return { ...row, status: 'not yet available', reason: ready.unavailable };

  const gwAgent = keepAliveAgent();
  const directAgent = keepAliveAgent();
  const proxyAgent = keepAliveAgent();
  const samples: Sample[] = [];
  try {
    const count = scenario.expired ? plan.expiredSamples : plan.samples;
    for (let i = 0; i < count; i++) {
      deps.registry.assertAlive();
      const probe = typeof ready.request === 'function' ? ready.request(i) : ready.request;
      // The unmeasured request fills (or refreshes) gw's caches; the measured one comes within or past the TTL.
      expectOk(await timedRequest(gwAgent, probe, REQUEST_TIMEOUT_MS), ready, 'the unmeasured request');
      const primedAt = performance.now();
      const hotDirect = await timedRequest(directAgent, directChat(context.endpoints, 'fast', false), REQUEST_TIMEOUT_MS);
      expectOk(hotDirect, { check: checkChatJson }, 'the direct request');
      if (scenario.expired) await new Promise((resolve) => setTimeout(resolve, plan.cacheTtlMs + 250));
      // Each measured request (gw, direct, minimal proxy; the order rotates) follows the same idle: nothing in
      // flight, the store quiet for quietMs (so gw's after-path of the request before is over).
      let idleSince = primedAt;
      const measured: Partial<Pick<Sample, 'directMs' | 'proxyMs'>> & { gw?: Omit<Sample, 'directMs' | 'proxyMs' | 'hotDirectMs'> } = {};
      for (const path of rotated(IDLE_PATHS, i)) {
        if (!(await waitForQuiet(proxy, plan.quietMs, 10_000, idleSince))) throw new Error('the store never went quiet between requests (background calls every few hundred ms)');
        if (path === 'gw') {
          const sincePrimedMs = performance.now() - primedAt;
          // A warm sample must come within the TTL: on a machine too busy for that, the row says so instead of
          // counting a refresh as a warm request's round trip.
          const warmTtlMs = Number(WARM_CACHE_TTLS.GW_VIRTUAL_KEY_CACHE_TTL_MS);
          if (!scenario.expired && sincePrimedMs >= warmTtlMs) throw new Error(`the store took ${Math.round(sincePrimedMs)} ms to go quiet, longer than the ${warmTtlMs} ms cache TTL: no warm request could be measured (machine too busy?)`);
          // The wall-clock time too: a counter's window (and so its lease) ends on the minute, whatever the row does.
          const sentAt = new Date().toISOString().slice(11, 23);
          const sample = await measuredRequest(gwAgent, probe, proxy, ready);
          measured.gw = { ...sample, timeline: `sent ${sentAt} UTC, ${Math.round(sincePrimedMs)} ms after the unmeasured request: ${sample.timeline}` };
        } else {
          const request = path === 'direct' ? directChat(context.endpoints, 'fast', false) : proxyChat(context.endpoints, 'fast', false);
          const response = await timedRequest(path === 'direct' ? directAgent : proxyAgent, request, REQUEST_TIMEOUT_MS);
          expectOk(response, { check: checkChatJson }, path === 'direct' ? 'the direct request' : 'the minimal proxy request');
          measured[path === 'direct' ? 'directMs' : 'proxyMs'] = response.lastByteMs;
        }
        idleSince = performance.now();
      }
      const { gw, directMs = NaN, proxyMs = NaN } = measured;
      if (!gw) throw new Error('no gw request was measured');
      samples.push({ ...gw, directMs, proxyMs, hotDirectMs: hotDirect.lastByteMs, timeline: `${gw.timeline}; direct ${directMs.toFixed(1)}, minimal proxy ${proxyMs.toFixed(1)} (each after the same idle), direct right after the unmeasured request ${hotDirect.lastByteMs.toFixed(1)}` });
    }
  } catch (error) {
    deps.errors.push(`aws-shaped, "${scenario.name}": ${(error as Error).message}`);
    return { ...row, status: 'error', reason: (error as Error).message };
  } finally {
    gwAgent.destroy();
    directAgent.destroy();
    proxyAgent.destroy();
  }
  return summarize(row, samples);
}

/** The paths measured after the same idle; the order rotates every sample, so none always goes first. */
const IDLE_PATHS = ['gw', 'direct', 'proxy'] as const;

export function rotated<T>(items: readonly T[], by: number): T[] {
  const start = by % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

async function measuredRequest(agent: ReturnType<typeof keepAliveAgent>, probe: ProbeRequest, proxy: StoreProxy, ready: Pick<ReadyScenario, 'check'>): Promise<Omit<Sample, 'directMs' | 'proxyMs' | 'hotDirectMs'>> {
  const sentAt = performance.now();
  const response = await timedRequest(agent, probe, REQUEST_TIMEOUT_MS);
  expectOk(response, ready, 'the measured request');
  const firstByteAt = sentAt + response.firstByteMs;
  const arrived = callsBetween(proxy.calls, sentAt, firstByteAt);
  // A call still unanswered at the first byte cannot have been waited for before it: it is after-path work
  // (charge, log) that started while the answer was on its way, so it is not a round trip before the first byte.
  const calls = arrived.filter((call) => call.answeredAt !== undefined && call.answeredAt <= firstByteAt);
  const offset = (at: number | undefined) => (at === undefined ? '…' : (at - sentAt).toFixed(1));
  const timeline = [...arrived.map((call) => `${call.operation}${call.target ? `(${call.target})` : ''} ${offset(call.receivedAt)}–${offset(call.answeredAt)}`), `first byte ${response.firstByteMs.toFixed(1)}`].join(', ');
  return { calls, unanswered: arrived.length - calls.length, depth: sequentialDepth(calls, firstByteAt), gwMs: response.lastByteMs, timeline };
}

function expectOk(response: TimedResponse, ready: Pick<ReadyScenario, 'check'>, what: string): void {
  const problem = ready.check(response);
  if (problem) throw new Error(`${what}: ${problem}`);
}

/** Percentile by percentile, `of` minus `over` (ms). */
const addedAt = (of: number[], over: number[]) => ({ p50: percentile(of, 50) - percentile(over, 50), p95: percentile(of, 95) - percentile(over, 95) });

export function summarize(row: AwsShapedRow, samples: Sample[]): AwsShapedRow {
  const counts = samples.map((sample) => sample.calls.length);
  const depths = samples.map((sample) => sample.depth);
  const operations: Record<string, number> = {};
  for (const sample of samples) for (const call of sample.calls) operations[call.operation] = (operations[call.operation] ?? 0) + 1 / samples.length;
  const gw = samples.map((sample) => sample.gwMs);
  const direct = samples.map((sample) => sample.directMs);
  const proxied = samples.map((sample) => sample.proxyMs);
  const hotDirect = samples.map((sample) => sample.hotDirectMs);
  const maxRoundTrips = Math.max(...counts);
  return {
    ...row,
    samples: samples.length,
    roundTrips: { median: median(counts), max: maxRoundTrips },
    depth: { median: median(depths), max: Math.max(...depths) },
    operations,
    unansweredAtFirstByte: samples.reduce((sum, sample) => sum + sample.unanswered, 0) / samples.length,
    addedVsDirect: addedAt(gw, direct),
    proxyAddedVsDirect: addedAt(proxied, direct),
    addedVsHotDirect: addedAt(gw, hotDirect),
    directP50: { afterIdle: percentile(direct, 50), hot: percentile(hotDirect, 50) },
    met: maxRoundTrips <= row.goal,
    timelines: samples.map((sample) => sample.timeline),
  };
}
