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
 * Added latency: sequential requests direct to the mock, through the minimal reference proxy and through gw,
 * interleaved in a rotating order, per percentile; then, when it runs, Portkey in a rotation of its own with the
 * direct call. Portkey keeps working after each answer (it builds a log record for its UI), and in one rotation with
 * gw that work fell on the samples after its own: the direct stream's first byte measured 0.81 ms instead of 0.29.
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
  // Portkey is a comparison: once it fails a series it is left out of the rest; gw's rows never wait on it.
  let withPortkey = context.endpoints.portkeyUrl !== undefined;
  for (const spec of series) {
    const meter = new TreeCpuMeter(context.gw.child.pid);
    const mockBefore = await context.mock.stats();
    let result: SequentialResult;
    try {
      result = await runSeries(context, spec, false);
    } catch (error) {
      context.errors.push(`latency, ${spec.label}: ${(error as Error).message}`);
      continue;
    }
    // Read before Portkey's rotation starts: its CPU and connections are not gw's series'.
    const gwTreeMicros = meter.perUnitMicros(spec.plan.warmup + result.paths[1].lastByteMs.length).tree;
    // Every path keeps its connections alive: a handful of new ones is normal, one per request is not.
    const upstreamConnections = (await context.mock.stats()).connections - mockBefore.connections;
    let portkeyRun: SequentialResult | undefined;
    if (withPortkey) {
      try {
        portkeyRun = await runSeries(context, spec, true);
      } catch (error) {
        context.errors.push(`latency, ${spec.label}: ${(error as Error).message} (Portkey left out of the remaining series)`);
        withPortkey = false;
      }
    }
    const [direct, gw] = result.paths;
    const proxy = result.paths.find((path) => path.name === 'reference proxy');
    const portkey = portkeyRun?.paths.find((path) => path.name === 'portkey');
    const portkeyDirect = portkeyRun?.paths[0];
    for (const path of [...result.paths, ...(portkeyRun?.paths ?? [])]) {
      if (path.errors > 0) context.errors.push(`latency, ${spec.label}, ${path.name}: ${path.errors} failed requests, e.g. ${path.errorSamples.join(' | ')}`);
    }
    if (spec.label === 'JSON') cpuMicrosPerRequest = gwTreeMicros;
    for (const metric of spec.metrics) {
      const pick = (samples: typeof direct) => (metric === 'first byte' ? samples.firstByteMs : samples.lastByteMs);
      const directStats = percentiles(pick(direct));
      const gwStats = percentiles(pick(gw));
      const proxyStats = proxy ? percentiles(pick(proxy)) : undefined;
      const portkeyStats = portkey ? percentiles(pick(portkey)) : undefined;
      const portkeyDirectStats = portkeyDirect ? percentiles(pick(portkeyDirect)) : undefined;
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
        // Against the direct calls of Portkey's own rotation.
        portkeyAdded: portkeyStats && portkeyDirectStats ? added(portkeyStats, portkeyDirectStats) : undefined,
        upstreamConnections,
      });
    }
  }
  return { rows, cpuMicrosPerRequest };
}

/** How much longer a series may take when Portkey is one of its paths. */
export const PORTKEY_DEADLINE_FACTOR = 2;

/** One series: direct, gw and the minimal proxy interleaved; or (`portkey`) direct and Portkey, interleaved. */
function runSeries(context: PhaseContext, spec: SeriesSpec, portkey: boolean): Promise<SequentialResult> {
  const check = spec.stream ? checkChatStream : checkChatJson;
  const { endpoints, plan } = context;
  const direct = { name: 'direct', request: directChat(endpoints, spec.upstream, spec.stream), check };
  return runSequential(
    portkey
      ? [direct, { name: 'portkey', request: portkeyChat(endpoints, spec.upstream, spec.stream), check }]
      : [
          direct,
          { name: 'gw', request: gwChat(endpoints, spec.upstream, spec.stream), check },
          ...(endpoints.proxyUrl !== undefined ? [{ name: 'reference proxy', request: proxyChat(endpoints, spec.upstream, spec.stream), check }] : []),
        ],
    // Portkey's streams wait 25 ms each (its own timer): its rotation gets twice the time, so that its stream series
    // is not cut short (a full run's reached 934 of 2,000 within 45 s).
    { ...spec.plan, deadlineMs: plan.latency.deadlineMs * (portkey ? PORTKEY_DEADLINE_FACTOR : 1), timeoutMs: REQUEST_TIMEOUT_MS, maxErrors: MAX_ERRORS_PER_SERIES, guard: () => context.registry.assertAlive() },
  );
}
