import type { Metrics, MetricUnit as MetricUnits } from '@aws-lambda-powertools/metrics';
import { onDrain } from './background.js';
import type { RequestLogRecord } from './log-record.js';
import { logger } from './logger.js';
import { prettyLogFormat } from './request-line.js';

/**
 * Powertools Metrics (CloudWatch EMF lines on stdout; locally the same lines). Dimensions stay low-cardinality:
 * the service, and the provider only on upstream-error metrics. Values are buffered here and published at the
 * drain (end of a Lambda invocation), every 10 s in a long-lived process, or once 100 latency samples wait (an EMF
 * metric holds at most 100 values), never per request on the hot path. Powertools itself (~10 KiB) is imported on
 * the first publish, after a response has gone, so it stays out of the gateway's cold start, and a request only
 * pushes numbers (Powertools validates and copies its store on every `addMetric`, issue #34).
 */
interface Powertools {
  metrics: Metrics;
  unit: typeof MetricUnits;
}
let powertools: Powertools | undefined;
let loading: Promise<Powertools | undefined> | undefined;

function loadPowertools(): Promise<Powertools | undefined> {
  loading ??= import('@aws-lambda-powertools/metrics').then(
    ({ Metrics: MetricsClass, MetricUnit }) => (powertools = { metrics: new MetricsClass({ namespace: 'gw', serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'gw' }), unit: MetricUnit }),
    (error: unknown) => {
      loading = undefined; // tried again at the next publish
      logger.warn('metrics are not published: Powertools Metrics failed to load', { reason: (error as Error).message });
      return undefined;
    },
  );
  return loading;
}

/** Runs `emit` with Powertools now when it is loaded, else once it is (a drain waits for it). */
function withPowertools(emit: (loaded: Powertools) => void): void {
  if (powertools) return emit(powertools);
  const pending = loadPowertools().then((loaded) => loaded && emit(loaded));
  waitingEmits.add(pending);
  void pending.finally(() => waitingEmits.delete(pending));
}
const waitingEmits = new Set<Promise<unknown>>();

// A SILENT log level (the test harness) silences metrics lines too, unless metrics are asked for explicitly. A
// terminal (GW_LOG_FORMAT=pretty, never on Lambda) gets no EMF blobs: they are for CloudWatch, not for people.
const silent = () => (process.env.POWERTOOLS_LOG_LEVEL === 'SILENT' && process.env.POWERTOOLS_METRICS_DISABLED === undefined) || prettyLogFormat();
let timer: NodeJS.Timeout | undefined;
let stored = false;

/**
 * Count metrics summed between publishes (one value each per EMF line, not one per request). CloudWatch's Sum is
 * the same either way. `latency` and `ttft` stay one value per request: their percentiles need every sample.
 */
const COUNTS = ['requests', 'prompt_tokens', 'completion_tokens', 'cache_hits', 'errors', 'policy_rejections'] as const;
const counts: Record<(typeof COUNTS)[number], number> = { requests: 0, prompt_tokens: 0, completion_tokens: 0, cache_hits: 0, errors: 0, policy_rejections: 0 };
let costUsd = 0;
const upstreamErrors = new Map<string, number>();
/** One EMF metric holds at most 100 values: a full batch of samples is published at once. */
const MAX_SAMPLES = 100;
let latencies: number[] = [];
let ttfts: number[] = [];

onDrain(async () => {
  publish();
  await Promise.all(waitingEmits);
});

function publish(): void {
  clearTimeout(timer);
  timer = undefined;
  if (!stored) return;
  stored = false;
  const batch = { counts: { ...counts }, costUsd, upstreamErrors: [...upstreamErrors], latencies, ttfts };
  for (const name of COUNTS) counts[name] = 0;
  costUsd = 0;
  upstreamErrors.clear();
  latencies = [];
  ttfts = [];
  withPowertools(({ metrics, unit }) => {
    for (const value of batch.latencies) metrics.addMetric('latency', unit.Milliseconds, value);
    for (const value of batch.ttfts) metrics.addMetric('ttft', unit.Milliseconds, value);
    for (const name of COUNTS) if (batch.counts[name] > 0) metrics.addMetric(name, unit.Count, batch.counts[name]);
    if (batch.costUsd > 0) metrics.addMetric('cost_usd', unit.NoUnit, batch.costUsd);
    for (const [provider, errors] of batch.upstreamErrors) {
      const single = metrics.singleMetric();
      single.addDimension('provider', provider);
      single.addMetric('upstream_errors', unit.Count, errors);
    }
    metrics.publishStoredMetrics();
  });
}

function schedule(): void {
  stored = true;
  if (latencies.length >= MAX_SAMPLES || ttfts.length >= MAX_SAMPLES) publish();
  else timer ??= setTimeout(publish, 10_000).unref();
}

const POLICY_CODES = new Set(['rate_limit_exceeded', 'token_limit_exceeded', 'budget_exceeded', 'usage_limit_exceeded', 'policy_limit_exceeded']);

/** The metrics of one finished gateway request. */
export function recordRequestMetrics(record: Pick<RequestLogRecord, 'latency_ms' | 'ttft_ms' | 'usage' | 'cost' | 'cache_status' | 'outcome' | 'status' | 'error' | 'attempts'>): void {
  if (silent()) return;
  counts.requests++;
  latencies.push(record.latency_ms);
  if (record.ttft_ms !== null) ttfts.push(record.ttft_ms);
  if (record.usage) {
    counts.prompt_tokens += record.usage.prompt_tokens;
    counts.completion_tokens += record.usage.completion_tokens;
  }
  if (record.cost) costUsd += record.cost;
  if (record.cache_status === 'HIT' || record.cache_status === 'SEMANTIC HIT') counts.cache_hits++;
  if (record.outcome === 'error') counts.errors++;
  if (record.status === 429 || record.status === 412 || (record.error?.code && POLICY_CODES.has(record.error.code))) counts.policy_rejections++;
  for (const attempt of record.attempts as Array<{ provider?: string; status?: number }>) {
    if (attempt.provider && attempt.status !== undefined && attempt.status >= 400) upstreamErrors.set(attempt.provider, (upstreamErrors.get(attempt.provider) ?? 0) + 1);
  }
  schedule();
}

/** A refused gateway authentication (missing, invalid, revoked, expired key), by reason. */
export function recordAuthenticationFailureMetric(code: string): void {
  if (silent()) return;
  withPowertools(({ metrics, unit }) => {
    const single = metrics.singleMetric();
    single.addDimension('reason', code);
    single.addMetric('authentication_failures', unit.Count, 1);
  });
}

/** Request-log records given up because a bound was reached (the engine or the disk failed too long; issue #42). */
export function recordDroppedLogRecordsMetric(count: number): void {
  if (silent()) return;
  withPowertools(({ metrics, unit }) => metrics.singleMetric().addMetric('request_log_records_dropped', unit.Count, count));
}

/** The request-log engine's worker died and was started again (issue #42): each restart replays the journal. */
export function recordLogWorkerRestartMetric(): void {
  if (silent()) return;
  withPowertools(({ metrics, unit }) => metrics.singleMetric().addMetric('request_log_worker_restarts', unit.Count, 1));
}
