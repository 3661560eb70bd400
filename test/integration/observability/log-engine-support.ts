import type { RequestLogRecord } from '../../../shared/observability/log-record.js';
import type { SpanRecord } from '../../../shared/observability/spans.js';

/** A complete request-log record, as the after-path builds it; `overrides` change any field. */
export function logRecord(overrides: Partial<RequestLogRecord> & { id: string; created_at: string }): RequestLogRecord {
  const spans: SpanRecord[] = overrides.spans ?? [
    {
      span_id: `${overrides.id}-auth`,
      parent_span_id: `${overrides.id}-root`,
      name: 'auth',
      kind: 'stage',
      start_time: new Date(Date.parse(overrides.created_at) - 50).toISOString(),
      end_time: new Date(Date.parse(overrides.created_at) - 45).toISOString(),
      duration_ms: 5,
      status: 'ok',
      attributes: { 'gw.cached': true, 'gw.count': 2, 'gw.name': 'x' },
    },
  ];
  return {
    request_id: overrides.id,
    trace_id: `trace-${overrides.id}`,
    span_id: `${overrides.id}-root`,
    organisation_id: 'org-1',
    workspace_id: 'ws-1',
    api_key_id: 'key-1',
    virtual_key_id: null,
    endpoint: 'chat.completions',
    provider: 'openai',
    model: 'gpt-4o-mini',
    status: 200,
    latency_ms: 100,
    ttft_ms: null,
    usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21, cached_tokens: 0, reasoning_tokens: 0 },
    cost: 0.0001,
    cache_status: 'DISABLED',
    retry_count: 0,
    last_used_option: null,
    metadata: {},
    error: null,
    stream: false,
    outcome: 'success',
    attempts: [{ target_path: 'config', provider: 'openai', status: 200, latency_ms: 90, retry: 0 }],
    request_body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] },
    response_body: { object: 'chat.completion' },
    ...overrides,
    spans,
  };
}

/** `?` placeholders of a statement (none of the seeded texts holds a literal `?`). */
export const placeholders = (sql: string) => (sql.match(/\?/g) ?? []).length;
