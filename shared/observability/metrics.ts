import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { onDrain } from './background.js';
import type { RequestLogRecord } from './log-record.js';
import { prettyLogFormat } from './request-line.js';

/**
 * Powertools Metrics (CloudWatch EMF lines on stdout; locally the same lines). Dimensions stay low-cardinality:
 * the service, and the provider only on upstream-error metrics. Values are buffered and published at the
 * drain (end of a Lambda invocation) or every 10 s in a long-lived process, never per request on the hot path.
 */
const metrics = new Metrics({ namespace: 'gw', serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'gw' });
// A SILENT log level (the test harness) silences metrics lines too, unless metrics are asked for explicitly. A
// terminal (GW_LOG_FORMAT=pretty, never on Lambda) gets no EMF blobs: they are for CloudWatch, not for people.
const silent = () => (process.env.POWERTOOLS_LOG_LEVEL === 'SILENT' && process.env.POWERTOOLS_METRICS_DISABLED === undefined) || prettyLogFormat();
let timer: NodeJS.Timeout | undefined;
let stored = false;

/**
 * Count metrics summed between publishes (one value each per EMF line, not one per request): Powertools validates
 * every `addMetric` and copies the metric's stored values on each (issue #34). CloudWatch's Sum is the same either
 * way. `latency` and `ttft` stay one value per request: their percentiles need every sample.
 */
const COUNTS = ['requests', 'prompt_tokens', 'completion_tokens', 'cache_hits', 'errors', 'policy_rejections'] as const;
const counts: Record<(typeof COUNTS)[number], number> = { requests: 0, prompt_tokens: 0, completion_tokens: 0, cache_hits: 0, errors: 0, policy_rejections: 0 };
let costUsd = 0;
const upstreamErrors = new Map<string, number>();

onDrain(async () => publish());

function publish(): void {
  clearTimeout(timer);
  timer = undefined;
  if (!stored) return;
  stored = false;
  for (const name of COUNTS) {
    if (counts[name] > 0) metrics.addMetric(name, MetricUnit.Count, counts[name]);
    counts[name] = 0;
  }
  if (costUsd > 0) metrics.addMetric('cost_usd', MetricUnit.NoUnit, costUsd);
  costUsd = 0;
  for (const [provider, errors] of upstreamErrors) {
    const single = metrics.singleMetric();
    single.addDimension('provider', provider);
    single.addMetric('upstream_errors', MetricUnit.Count, errors);
  }
  upstreamErrors.clear();
  metrics.publishStoredMetrics();
}

function schedule(): void {
  stored = true;
  timer ??= setTimeout(publish, 10_000).unref();
}

const POLICY_CODES = new Set(['rate_limit_exceeded', 'token_limit_exceeded', 'budget_exceeded', 'usage_limit_exceeded', 'policy_limit_exceeded']);

/** The metrics of one finished gateway request. */
export function recordRequestMetrics(record: Pick<RequestLogRecord, 'latency_ms' | 'ttft_ms' | 'usage' | 'cost' | 'cache_status' | 'outcome' | 'status' | 'error' | 'attempts'>): void {
  if (silent()) return;
  counts.requests++;
  metrics.addMetric('latency', MetricUnit.Milliseconds, record.latency_ms);
  if (record.ttft_ms !== null) metrics.addMetric('ttft', MetricUnit.Milliseconds, record.ttft_ms);
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
  const single = metrics.singleMetric();
  single.addDimension('reason', code);
  single.addMetric('authentication_failures', MetricUnit.Count, 1);
}

/** Request-log records given up because a bound was reached (the engine or the disk failed too long; issue #42). */
export function recordDroppedLogRecordsMetric(count: number): void {
  if (silent()) return;
  metrics.singleMetric().addMetric('request_log_records_dropped', MetricUnit.Count, count);
}

/** The request-log engine's worker died and was started again (issue #42): each restart replays the journal. */
export function recordLogWorkerRestartMetric(): void {
  if (silent()) return;
  metrics.singleMetric().addMetric('request_log_worker_restarts', MetricUnit.Count, 1);
}
