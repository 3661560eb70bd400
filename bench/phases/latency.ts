import type { MockMode } from '../mock/payloads.js';
import { TreeCpuMeter } from '../measure/proc-tree.js';
import { runSequential, type SequentialResult } from '../measure/sequential.js';
import { added, percentiles } from '../measure/stats.js';
import type { LatencySeriesPlan } from '../options.js';
import type { LatencyRow } from '../report/results.js';
import { checkChatJson, checkChatStream, directChat, gwChat, portkeyChat, proxyChat } from '../scenarios/requests.js';
import { MAX_ERRORS_PER_SERIES, REQUEST_TIMEOUT_MS, type PhaseContext } from './context.js';

interface SeriesSpec {
  label: string;
  upstream: MockMode;
  stream: boolean;
  plan: LatencySeriesPlan;
  /** The rows this series yields: JSON gives the whole answer; a stream gives first and last byte. */
  metrics: ReadonlyArray<LatencyRow['metric']>;
}

export interface LatencyPhaseResult {
  rows: LatencyRow[];
  /** CPU of gw and its child processes per request over the sequential JSON series (fast upstream). */
  cpuMicrosPerRequest?: number;
}

/**
 * Added latency: sequential requests direct to the mock, through the minimal reference proxy and Portkey (when they
 * run) and through gw, interleaved in a rotating order, per percentile.
 */
export async function measureAddedLatency(context: PhaseContext): Promise<LatencyPhaseResult> {
  const { plan } = context;
  const series: SeriesSpec[] = [
    { label: 'JSON', upstream: 'fast', stream: false, plan: plan.latency.json, metrics: ['last byte'] },
    { label: 'stream', upstream: 'fast', stream: true, plan: plan.latency.stream, metrics: ['first byte', 'last byte'] },
    { label: 'JSON, 20 ms upstream', upstream: 'delayed', stream: false, plan: plan.latency.delayed, metrics: ['last byte'] },
  ];
  const rows: LatencyRow[] = [];
  let cpuMicrosPerRequest: number | undefined;
  // Portkey is a comparison: once it fails a series, the series runs again without it, and so do the rest.
  let withPortkey = context.endpoints.portkeyUrl !== undefined;
  for (const spec of series) {
    const meter = new TreeCpuMeter(context.gw.child.pid);
    const mockBefore = await context.mock.stats();
    let result: SequentialResult;
    try {
      result = await runSeries(context, spec, withPortkey);
    } catch (error) {
      const message = (error as Error).message;
      context.errors.push(`latency, ${spec.label}: ${message}${withPortkey && message.startsWith('portkey:') ? ' (the series ran again without Portkey)' : ''}`);
      if (!withPortkey || !message.startsWith('portkey:')) continue;
      withPortkey = false;
      try {
        result = await runSeries(context, spec, false);
      } catch (again) {
        context.errors.push(`latency, ${spec.label}: ${(again as Error).message}`);
        continue;
      }
    }
    const [direct, gw] = result.paths;
    const proxy = result.paths.find((path) => path.name === 'reference proxy');
    const portkey = result.paths.find((path) => path.name === 'portkey');
    // Every path keeps its connections alive: a handful of new ones is normal, one per request is not.
    const upstreamConnections = (await context.mock.stats()).connections - mockBefore.connections;
    for (const path of result.paths) {
      if (path.errors > 0) context.errors.push(`latency, ${spec.label}, ${path.name}: ${path.errors} failed requests, e.g. ${path.errorSamples.join(' | ')}`);
    }
    if (spec.label === 'JSON') cpuMicrosPerRequest = meter.perUnitMicros(spec.plan.warmup + gw.lastByteMs.length).tree;
    for (const metric of spec.metrics) {
      const pick = (samples: typeof direct) => (metric === 'first byte' ? samples.firstByteMs : samples.lastByteMs);
      const directStats = percentiles(pick(direct));
      const gwStats = percentiles(pick(gw));
      const proxyStats = proxy ? percentiles(pick(proxy)) : undefined;
      const portkeyStats = portkey ? percentiles(pick(portkey)) : undefined;
      rows.push({
        name: spec.stream ? `${spec.label}, ${metric}` : spec.label,
        metric,
        samples: Math.min(directStats.count, gwStats.count),
        truncated: result.truncated,
        direct: directStats,
        gw: gwStats,
        added: added(gwStats, directStats),
        proxy: proxyStats,
        proxyAdded: proxyStats ? added(proxyStats, directStats) : undefined,
        portkey: portkeyStats,
        portkeyAdded: portkeyStats ? added(portkeyStats, directStats) : undefined,
        upstreamConnections,
      });
    }
  }
  return { rows, cpuMicrosPerRequest };
}

/** How much longer a series may take when Portkey is one of its paths. */
export const PORTKEY_DEADLINE_FACTOR = 2;

/** One series: direct, gw, and the minimal proxy and Portkey when they run, interleaved. */
function runSeries(context: PhaseContext, spec: SeriesSpec, withPortkey: boolean): Promise<SequentialResult> {
  const check = spec.stream ? checkChatStream : checkChatJson;
  const { endpoints, plan } = context;
  return runSequential(
    [
      { name: 'direct', request: directChat(endpoints, spec.upstream, spec.stream), check },
      { name: 'gw', request: gwChat(endpoints, spec.upstream, spec.stream), check },
      ...(endpoints.proxyUrl !== undefined ? [{ name: 'reference proxy', request: proxyChat(endpoints, spec.upstream, spec.stream), check }] : []),
      ...(withPortkey ? [{ name: 'portkey', request: portkeyChat(endpoints, spec.upstream, spec.stream), check }] : []),
    ],
    // Portkey's streams wait 25 ms each (its own timer): with it, a series gets twice the time, so that its extra
    // time does not cut gw's samples short (a full run's stream series reached 934 of 2,000 within 45 s).
    { ...spec.plan, deadlineMs: plan.latency.deadlineMs * (withPortkey ? PORTKEY_DEADLINE_FACTOR : 1), timeoutMs: REQUEST_TIMEOUT_MS, maxErrors: MAX_ERRORS_PER_SERIES, guard: () => context.registry.assertAlive() },
  );
}
