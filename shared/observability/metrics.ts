import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { onDrain } from './background.js';
import type { RequestLogRecord } from './log-record.js';

/**
 * Powertools Metrics (CloudWatch EMF lines on stdout; locally the same lines). Dimensions stay low-cardinality:
 * the service, and the provider only on upstream-error metrics. Values are buffered and published at the
 * drain (end of a Lambda invocation) or every 10 s in a long-lived process, never per request on the hot path.
 */
const metrics = new Metrics({ namespace: 'gw', serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'gw' });
// A SILENT log level (the test harness) silences metrics lines too, unless metrics are asked for explicitly.
const silent = () => process.env.POWERTOOLS_LOG_LEVEL === 'SILENT' && process.env.POWERTOOLS_METRICS_DISABLED === undefined;
let timer: NodeJS.Timeout | undefined;
let stored = false;

onDrain(async () => publish());

function publish(): void {
  clearTimeout(timer);
  timer = undefined;
  if (!stored) return;
  stored = false;
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
  metrics.addMetric('requests', MetricUnit.Count, 1);
  metrics.addMetric('latency', MetricUnit.Milliseconds, record.latency_ms);
  if (record.ttft_ms !== null) metrics.addMetric('ttft', MetricUnit.Milliseconds, record.ttft_ms);
  if (record.usage) {
    metrics.addMetric('prompt_tokens', MetricUnit.Count, record.usage.prompt_tokens);
    metrics.addMetric('completion_tokens', MetricUnit.Count, record.usage.completion_tokens);
  }
  if (record.cost) metrics.addMetric('cost_usd', MetricUnit.NoUnit, record.cost);
  if (record.cache_status === 'HIT' || record.cache_status === 'SEMANTIC HIT') metrics.addMetric('cache_hits', MetricUnit.Count, 1);
  if (record.outcome === 'error') metrics.addMetric('errors', MetricUnit.Count, 1);
  if (record.status === 429 || record.status === 412 || (record.error?.code && POLICY_CODES.has(record.error.code))) metrics.addMetric('policy_rejections', MetricUnit.Count, 1);
  for (const attempt of record.attempts as Array<{ provider?: string; status?: number }>) {
    if (attempt.provider && attempt.status !== undefined && attempt.status >= 400) {
      const single = metrics.singleMetric();
      single.addDimension('provider', attempt.provider);
      single.addMetric('upstream_errors', MetricUnit.Count, 1);
    }
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
