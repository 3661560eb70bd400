import type { RequestLogRecord } from '../log-record.js';
import type { SpanRecord } from '../spans.js';
import type { NormalisedUsage } from '../usage.js';
import { columnOf, type LogicalType } from './columns.js';
import type { EngineTable } from './types.js';

/**
 * Reading rows back, whatever engine answered: DuckDB hands over JS values (Date, bigint, map entries), Athena
 * hands over text for everything. Each value is read by its column's logical type, so both give the same record.
 */
export function readValue(type: LogicalType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'bigint':
    case 'double':
      return typeof value === 'number' ? value : Number(value);
    case 'boolean':
      return typeof value === 'boolean' ? value : String(value).toLowerCase() === 'true';
    case 'timestamp':
      return isoTime(value);
    case 'map<string,string>':
      return readMap(value);
    default:
      return String(value);
  }
}

/** A timestamp as ISO 8601 with `Z`: from a Date, or from `YYYY-MM-DD HH:MM:SS[.fff…]` text (UTC). */
export function isoTime(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  const text = String(value).trim();
  const withZone = /[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(' ', 'T')}Z`;
  return new Date(withZone).toISOString();
}

function readMap(value: unknown): Record<string, string> {
  if (Array.isArray(value)) {
    // DuckDB: [{ key, value }, …]
    return Object.fromEntries(value.map((entry: { key: unknown; value: unknown }) => [String(entry.key), String(entry.value)]));
  }
  if (typeof value === 'string') {
    const text = value.trim();
    if (text.startsWith('{') && text.includes('"')) return JSON.parse(text) as Record<string, string>;
    // Athena's map text `{a=1, b=2}`: only for rows read without JSON casting; keys and values without `=`/`,`.
    return Object.fromEntries(
      text
        .replace(/^\{|\}$/g, '')
        .split(', ')
        .filter((pair) => pair.includes('='))
        .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    );
  }
  return { ...(value as Record<string, string>) };
}

/** The row with every known column read by its type (unknown names, e.g. aggregates, kept as they are). */
export function readRow(table: EngineTable, row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([name, value]) => [name, columnOf(table, name) ? readValue(columnOf(table, name)!.type, value) : value]));
}

const parsed = (text: unknown): unknown => (typeof text === 'string' ? JSON.parse(text) : null);

/** A request log record from a `requests` row (read with `readRow`) and its spans. */
export function recordFromRow(row: Record<string, unknown>, spans: SpanRecord[]): RequestLogRecord {
  const tokens = ['prompt_tokens', 'completion_tokens', 'total_tokens', 'cached_tokens', 'reasoning_tokens'] as const;
  const hasUsage = [...tokens, ...MEDIA_USAGE_FIELDS].some((name) => row[name] !== null && row[name] !== undefined);
  const hasError = row.error_type !== null || row.error_code !== null || row.error_message !== null || row.outcome === 'error';
  const record: RequestLogRecord = {
    id: row.id as string,
    request_id: (row.request_id as string | null) ?? (row.id as string),
    trace_id: row.trace_id as string,
    span_id: row.span_id as string,
    created_at: row.created_at as string,
    organisation_id: row.organisation_id as string,
    workspace_id: row.workspace_id as string,
    api_key_id: row.api_key_id as string,
    virtual_key_id: (row.virtual_key_id as string | null) ?? null,
    endpoint: row.endpoint as string,
    provider: (row.provider as string | null) ?? null,
    model: (row.model as string | null) ?? null,
    status: row.status as number,
    latency_ms: row.latency_ms as number,
    ttft_ms: (row.ttft_ms as number | null) ?? null,
    usage: hasUsage ? usageFromRow(row, tokens) : null,
    cost: (row.cost as number | null) ?? null,
    cache_status: (row.cache_status as string | null) ?? null,
    retry_count: (row.retry_count as number | null) ?? 0,
    last_used_option: (row.last_used_option as string | null) ?? null,
    metadata: (row.metadata as Record<string, string> | null) ?? {},
    error: hasError ? { type: (row.error_type as string | null) ?? null, code: (row.error_code as string | null) ?? null, message: (row.error_message as string | null) ?? null } : null,
    stream: row.stream === true,
    outcome: row.outcome === 'error' ? 'error' : 'success',
    attempts: (parsed(row.attempts) as RequestLogRecord['attempts'] | null) ?? [],
    spans,
    request_body: parsed(row.request_body),
    response_body: parsed(row.response_body),
  };
  if (row.request_body_ref) record.request_body_ref = row.request_body_ref as string;
  if (row.response_body_ref) record.response_body_ref = row.response_body_ref as string;
  if (row.body_truncated === true) record.body_truncated = true;
  if (row.error_code) record.error_code = row.error_code as string;
  return record;
}

/** The media fields of `usage`, each a column of its own name (columns.ts); a row written before them has none. */
const MEDIA_USAGE_FIELDS = ['images', 'characters', 'audio_seconds', 'image_size', 'image_quality'] as const;

/** The usage block of a row: the five token counts (0 when not recorded), and the media fields the row holds. */
function usageFromRow(row: Record<string, unknown>, tokens: readonly string[]): NormalisedUsage {
  const usage = Object.fromEntries(tokens.map((name) => [name, (row[name] as number | null) ?? 0])) as unknown as NormalisedUsage;
  for (const name of MEDIA_USAGE_FIELDS) {
    const value = row[name];
    if (value !== null && value !== undefined) (usage as unknown as Record<string, unknown>)[name] = value;
  }
  return usage;
}

/** A span from a `spans` row (read with `readRow`), in the shape GET /v1/traces returns. */
export function spanFromRow(row: Record<string, unknown>): SpanRecord & { log_id: string; trace_id: string } {
  const span: SpanRecord & { log_id: string; trace_id: string } = {
    span_id: row.span_id as string,
    name: row.name as string,
    kind: row.kind as SpanRecord['kind'],
    start_time: row.start_time as string,
    status: row.status === 'error' ? 'error' : 'ok',
    attributes: (parsed(row.attributes) as SpanRecord['attributes'] | null) ?? {},
    log_id: row.log_id as string,
    trace_id: row.trace_id as string,
  };
  if (row.parent_span_id) span.parent_span_id = row.parent_span_id as string;
  if (row.end_time) span.end_time = row.end_time as string;
  if (row.duration_ms !== null && row.duration_ms !== undefined) span.duration_ms = row.duration_ms as number;
  if (row.error_type || row.error_code || row.error_message) {
    span.error = Object.fromEntries(
      [
        ['type', row.error_type],
        ['code', row.error_code],
        ['message', row.error_message],
      ].filter(([, value]) => value !== null && value !== undefined),
    ) as SpanRecord['error'];
  }
  return span;
}
