/**
 * What a caller may see of usage (tokens) and cost in request logs, traces, spans and exports. The workspace
 * settings `membersViewAnalytics` / `managersViewAnalytics` (false) hide them from members' / managers' own keys
 * and tokens, exactly as they refuse those callers analytics (analytics/visibility.ts decides `seesUsage`).
 *
 * Pure on purpose: every read path (logs, traces, spans, exports) calls it on each row it returns, whatever
 * store or engine the row came from, so moving the logs to another engine only re-wires the calls.
 */
export interface UsageViewer {
  seesUsage: boolean;
}

/**
 * The columns of an exported requests row that carry tokens or cost: exports made by such a caller leave them
 * out. Attempts and response bodies carry the provider's usage too, so they go with them.
 */
export const USAGE_EXPORT_COLUMNS: readonly string[] = ['prompt_tokens', 'completion_tokens', 'total_tokens', 'cached_tokens', 'reasoning_tokens', 'images', 'characters', 'audio_seconds', 'cost', 'attempts', 'response_body', 'response_body_ref'];

/** Names of fields and attributes that carry tokens or cost: `usage`, `cost`, `*_tokens`, `gen_ai.usage.*`, … */
const USAGE_KEY = /(^|[._])(usage|cost|costs|price|tokens?)($|[._])|_tokens$|^tokens_/i;

/**
 * `row` with tokens and cost removed for a viewer that may not see them (unchanged, the same object, otherwise):
 * a request log's `usage` and `cost` (null), its attempts' and spans' usage fields and attributes, and `usage`
 * anywhere in its response body (JSON, or the text of a stream); a trace summary's `cost` and `total_tokens`
 * (null); a trace's requests and spans; a span's attributes.
 */
export function hideUsageForMembers<Row>(row: Row, viewer: UsageViewer): Row {
  if (viewer.seesUsage || typeof row !== 'object' || row === null) return row;
  const record = row as Record<string, unknown>;
  const hidden: Record<string, unknown> = { ...record };
  if (record.object === 'request_log') {
    hidden.usage = null;
    hidden.cost = null;
    if (Array.isArray(record.attempts)) hidden.attempts = record.attempts.map((attempt) => withoutUsageKeys(attempt));
    if (Array.isArray(record.spans)) hidden.spans = record.spans.map((span) => hideSpan(span));
    if ('response_body' in record) hidden.response_body = withoutUsageInBody(record.response_body);
    return hidden as Row;
  }
  if (record.object === 'trace') {
    if ('cost' in record) hidden.cost = null;
    if ('total_tokens' in record) hidden.total_tokens = null;
    if (Array.isArray(record.requests)) hidden.requests = record.requests.map((request) => hideUsageForMembers(request, viewer));
    if (Array.isArray(record.spans)) hidden.spans = record.spans.map((span) => hideSpan(span));
    return hidden as Row;
  }
  if ('span_id' in record && 'attributes' in record) return hideSpan(record) as Row;
  return row;
}

function hideSpan(span: unknown): unknown {
  if (typeof span !== 'object' || span === null) return span;
  const { attributes } = span as { attributes?: unknown };
  return { ...span, attributes: withoutUsageKeys(attributes) };
}

/** A flat object without its usage keys (attempt records, span attributes). */
function withoutUsageKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !USAGE_KEY.test(key)));
}

/** A response body without `usage` at any depth (a JSON body), or with every `"usage":{…}` nulled (stream text). */
function withoutUsageInBody(body: unknown): unknown {
  if (typeof body === 'string') return body.replace(/"usage"\s*:\s*\{(?:[^{}]|\{[^{}]*\})*\}/g, '"usage":null');
  if (Array.isArray(body)) return body.map((item) => withoutUsageInBody(item));
  if (typeof body !== 'object' || body === null) return body;
  return Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'usage').map(([key, value]) => [key, withoutUsageInBody(value)]));
}
