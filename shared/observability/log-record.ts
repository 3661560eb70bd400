import type { SpanRecord } from './spans.js';
import type { NormalisedUsage } from './usage.js';

/**
 * One gateway request as stored in the logs table and returned by GET /v1/logs. The field names are a
 * contract with clients (issue #14); the few extra ones (`organisation_id`, `stream`, `attempts`, …) keep
 * what earlier records already held. Credentials never appear: `api_key_id` is the key's id, bodies and
 * errors pass through `redact` before they are stored.
 */
export interface RequestLogRecord {
  id: string;
  trace_id: string;
  span_id: string;
  created_at: string;
  organisation_id: string;
  workspace_id: string;
  api_key_id: string;
  virtual_key_id: string | null;
  endpoint: string;
  provider: string | null;
  model: string | null;
  status: number;
  latency_ms: number;
  ttft_ms: number | null;
  usage: NormalisedUsage | null;
  /** USD from the pricing chain; null when the model has no price or nothing was answered. */
  cost: number | null;
  cache_status: string | null;
  retry_count: number;
  last_used_option: string | null;
  metadata: Record<string, string>;
  error: { type: string | null; code: string | null; message: string | null } | null;
  stream: boolean;
  /** 'error' for every status ≥ 400 and for streams that ended badly. */
  outcome: 'success' | 'error';
  /** Every upstream try (target path, provider, status, latency, error), so a fallback can be explained. */
  attempts: Array<Record<string, unknown> | object>;
  spans: SpanRecord[];
  /** Inline bodies (redacted, size-capped), or null when too large (see `*_body_ref`) or not recorded. */
  request_body: unknown;
  response_body: unknown;
  /** Blob-store keys of bodies too large to sit in the item; GET /v1/logs/{id} reads them back. */
  request_body_ref?: string;
  response_body_ref?: string;
  body_truncated?: boolean;
  /** Kept from the first record shape: the request id and the error code at top level. */
  request_id: string;
  error_code?: string;
}

/** Who made a request, as a record names it (an authenticated principal). */
export interface RecordCaller {
  organisationId: string;
  workspaceId: string;
  keyId: string;
}

/** The head every request record starts with: its id (also its request id), trace, span, time and caller. */
export function recordHead(id: string, traceId: string, spanId: string, createdAt: string, caller: RecordCaller) {
  return {
    id,
    request_id: id,
    trace_id: traceId,
    span_id: spanId,
    created_at: createdAt,
    organisation_id: caller.organisationId,
    workspace_id: caller.workspaceId,
    api_key_id: caller.keyId,
  };
}

/** What a record says of a request no provider answered or priced: a refusal, an MCP call. */
export const UNANSWERED_FIELDS = { ttft_ms: null, usage: null, cost: null, cache_status: null, retry_count: 0, last_used_option: null } as const;
