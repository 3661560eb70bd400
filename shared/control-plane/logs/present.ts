import type { RequestLogRecord } from '../../observability/log-record.js';
import type { RequestLog } from './schemas.js';

/** The API shape of a log record: the field names, storage details (organisation, blob keys) left out. */
export function presentLog(record: RequestLogRecord): RequestLog {
  const result: RequestLog = {
    object: 'request_log',
    id: record.id,
    trace_id: record.trace_id,
    span_id: record.span_id,
    created_at: record.created_at,
    workspace_id: record.workspace_id,
    api_key_id: record.api_key_id,
    virtual_key_id: record.virtual_key_id ?? null,
    endpoint: record.endpoint,
    provider: record.provider ?? null,
    model: record.model ?? null,
    status: record.status,
    latency_ms: record.latency_ms,
    ttft_ms: record.ttft_ms ?? null,
    usage: record.usage ?? null,
    cost: record.cost ?? null,
    cache_status: record.cache_status ?? null,
    retry_count: record.retry_count ?? 0,
    last_used_option: record.last_used_option ?? null,
    metadata: record.metadata ?? {},
    error: record.error ?? null,
    stream: record.stream === true,
    attempts: (record.attempts ?? []) as Array<Record<string, unknown>>,
    spans: record.spans ?? [],
    request_body: record.request_body ?? null,
    response_body: record.response_body ?? null,
  };
  if (record.body_truncated) result.body_truncated = true;
  return result;
}
