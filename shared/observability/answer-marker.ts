import { UNANSWERED_FIELDS, type RequestLogRecord } from './log-record.js';

/**
 * What is known of a request when its answer leaves gw (issue #42, kill -9): the record's identity and outcome,
 * nothing a caller wrote (no metadata, no bodies, no error message: none of it is redacted yet). The local sink
 * journals it before the answer's last byte is released; the full record follows from the after-path. A marker
 * whose record never came (the process was killed in between) becomes the record at the next start.
 */
export type AnswerMarker = Pick<
  RequestLogRecord,
  'id' | 'trace_id' | 'span_id' | 'created_at' | 'organisation_id' | 'workspace_id' | 'api_key_id' | 'virtual_key_id' | 'endpoint' | 'provider' | 'model' | 'status' | 'latency_ms' | 'stream'
> & { error_code: string | null; error_type: string | null };

/** The record a marker stands for when its full record was lost: no usage, cost, bodies, spans or metadata. */
export function recordFromMarker(marker: AnswerMarker): RequestLogRecord {
  const { error_code: code, error_type: type, ...head } = marker;
  const errored = marker.status >= 400 || code !== null;
  return {
    request_id: marker.id,
    metadata: {},
    error: errored ? { type, code, message: null } : null,
    error_code: code ?? undefined,
    outcome: errored ? 'error' : 'success',
    attempts: [],
    spans: [],
    request_body: null,
    response_body: null,
    ...UNANSWERED_FIELDS,
    ...head,
  } as RequestLogRecord;
}
