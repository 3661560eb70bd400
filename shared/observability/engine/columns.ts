import { serialisedBody } from '../serialised-body.js';
import type { RequestLogRecord } from '../log-record.js';
import type { SpanRecord } from '../spans.js';
import type { EngineRow, EngineTable } from './types.js';

/**
 * THE columns of the `requests` and `spans` tables (issue #32). The DuckDB DDL (duckdb/schema.ts) and the Glue
 * table on AWS are both built from these lists, and the query builder only ever names a column found here, so a
 * column exists in every engine or in none. `day` ('YYYY-MM-DD', UTC) is the partition column: of `created_at`
 * for a request, of `start_time` for a span.
 */
export type LogicalType = 'string' | 'bigint' | 'double' | 'boolean' | 'timestamp' | 'map<string,string>';

export interface ColumnDefinition {
  name: string;
  type: LogicalType;
  /** The Hive partition column (not a data column of the Parquet files on AWS). */
  partition?: true;
}

const column = (name: string, type: LogicalType): ColumnDefinition => ({ name, type });

export const REQUEST_COLUMNS: readonly ColumnDefinition[] = [
  column('id', 'string'),
  column('request_id', 'string'),
  column('trace_id', 'string'),
  column('span_id', 'string'),
  column('created_at', 'timestamp'),
  column('organisation_id', 'string'),
  column('workspace_id', 'string'),
  column('api_key_id', 'string'),
  column('virtual_key_id', 'string'),
  column('endpoint', 'string'),
  column('provider', 'string'),
  column('model', 'string'),
  column('status', 'bigint'),
  column('outcome', 'string'),
  column('latency_ms', 'double'),
  column('ttft_ms', 'double'),
  column('prompt_tokens', 'bigint'),
  column('completion_tokens', 'bigint'),
  column('total_tokens', 'bigint'),
  column('cached_tokens', 'bigint'),
  column('reasoning_tokens', 'bigint'),
  column('cost', 'double'),
  column('cache_status', 'string'),
  column('retry_count', 'bigint'),
  column('last_used_option', 'string'),
  column('stream', 'boolean'),
  column('metadata', 'map<string,string>'),
  column('error_type', 'string'),
  column('error_code', 'string'),
  column('error_message', 'string'),
  // Every upstream try as JSON text (target path, provider, status, latency, error).
  column('attempts', 'string'),
  // Bodies inline as JSON text (redacted, size-capped), or a key of the blob store when too large to inline.
  column('request_body', 'string'),
  column('response_body', 'string'),
  column('request_body_ref', 'string'),
  column('response_body_ref', 'string'),
  column('body_truncated', 'boolean'),
  { name: 'day', type: 'string', partition: true },
  // Media units (issue #47), what an image, speech or transcription request is billed by (pricing/media-units.ts),
  // with the image size and quality that set an image's price. After `day` on purpose: DuckDB appends by position,
  // and a database file from before these columns gains them at the end (duckdb/migrate.ts), so a new file must
  // have them there too. Null on every row without them (chat, and every row written before them).
  column('images', 'bigint'),
  column('characters', 'bigint'),
  column('audio_seconds', 'double'),
  column('image_size', 'string'),
  column('image_quality', 'string'),
];

/** The media unit columns, summed like tokens (analytics, reconcile); hidden with them from who may not see usage. */
export const MEDIA_UNIT_COLUMNS = ['images', 'characters', 'audio_seconds'] as const;

export const SPAN_COLUMNS: readonly ColumnDefinition[] = [
  column('span_id', 'string'),
  column('parent_span_id', 'string'),
  // The request (log record) the span belongs to, and its trace and owners, so a span is found without a join.
  column('log_id', 'string'),
  column('trace_id', 'string'),
  column('organisation_id', 'string'),
  column('workspace_id', 'string'),
  column('name', 'string'),
  column('kind', 'string'),
  column('start_time', 'timestamp'),
  column('end_time', 'timestamp'),
  column('duration_ms', 'double'),
  column('status', 'string'),
  // String, number and boolean values: JSON text keeps their types (a map<string,string> would not).
  column('attributes', 'string'),
  column('error_type', 'string'),
  column('error_code', 'string'),
  column('error_message', 'string'),
  { name: 'day', type: 'string', partition: true },
];

export const TABLE_COLUMNS: Readonly<Record<EngineTable, readonly ColumnDefinition[]>> = { requests: REQUEST_COLUMNS, spans: SPAN_COLUMNS };

/** The column of `table` called `name`, or undefined: the query builder accepts no other identifier. */
export function columnOf(table: EngineTable, name: string): ColumnDefinition | undefined {
  return TABLE_COLUMNS[table].find((definition) => definition.name === name);
}

const DUCKDB_TYPES: Record<LogicalType, string> = {
  string: 'VARCHAR',
  bigint: 'BIGINT',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMP',
  'map<string,string>': 'MAP(VARCHAR, VARCHAR)',
};

/** The DuckDB type of a logical type (timestamps are UTC without a zone). */
export function duckDbType(type: LogicalType): string {
  return DUCKDB_TYPES[type];
}

/** The Glue / Hive type of a logical type: the logical names are Hive's own. */
export function glueType(type: LogicalType): string {
  return type;
}

/** Glue table columns (partition keys excluded) and partition keys of `table`, for the CDK Glue table. */
export function glueColumns(table: EngineTable): { columns: Array<{ name: string; type: string }>; partitionKeys: Array<{ name: string; type: string }> } {
  const definitions = TABLE_COLUMNS[table];
  return {
    columns: definitions.filter((definition) => !definition.partition).map(({ name, type }) => ({ name, type: glueType(type) })),
    partitionKeys: definitions.filter((definition) => definition.partition).map(({ name, type }) => ({ name, type: glueType(type) })),
  };
}

// What Date.prototype.toISOString gives for years 0–9999.
const CANONICAL_ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * A time as the engines' timestamp text: `YYYY-MM-DD HH:MM:SS.sss`, UTC, no zone. DuckDB and Trino both CAST it
 * to TIMESTAMP, and Firehose's JSON-to-Parquet conversion (Hive JSON SerDe) reads it as one.
 */
export function sqlTimestamp(iso: string): string {
  // gw's own times are already canonical (toISOString): cut, not parsed and printed again (a dozen per request).
  if (CANONICAL_ISO.test(iso)) return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
  return new Date(iso).toISOString().replace('T', ' ').replace('Z', '');
}

/** The partition value of a time: its UTC day. */
export function dayOf(iso: string): string {
  if (CANONICAL_ISO.test(iso)) return iso.slice(0, 10);
  return new Date(iso).toISOString().slice(0, 10);
}

/** A column's value read from a record (requests) or from a span and its record (spans). */
export type RequestValue = (record: RequestLogRecord) => EngineRow[string];
export type SpanValue = (span: SpanRecord, record: RequestLogRecord) => EngineRow[string];

/**
 * How each `requests` column is read from a (redacted) record: the one mapping both the row objects (`requestRow`,
 * the Firehose sink) and the DuckDB sink's column-wise build (no row object per request) use.
 */
export const REQUEST_VALUES: Readonly<Record<string, RequestValue>> = {
  id: (record) => record.id,
  request_id: (record) => record.request_id ?? record.id,
  trace_id: (record) => record.trace_id,
  span_id: (record) => record.span_id,
  created_at: (record) => sqlTimestamp(record.created_at),
  organisation_id: (record) => record.organisation_id,
  workspace_id: (record) => record.workspace_id,
  api_key_id: (record) => record.api_key_id,
  virtual_key_id: (record) => record.virtual_key_id ?? null,
  endpoint: (record) => record.endpoint,
  provider: (record) => record.provider ?? null,
  model: (record) => record.model ?? null,
  status: (record) => record.status,
  outcome: (record) => record.outcome,
  latency_ms: (record) => record.latency_ms,
  ttft_ms: (record) => record.ttft_ms ?? null,
  prompt_tokens: (record) => (record.usage ? record.usage.prompt_tokens : null),
  completion_tokens: (record) => (record.usage ? record.usage.completion_tokens : null),
  total_tokens: (record) => (record.usage ? record.usage.total_tokens : null),
  cached_tokens: (record) => (record.usage ? record.usage.cached_tokens : null),
  reasoning_tokens: (record) => (record.usage ? record.usage.reasoning_tokens : null),
  cost: (record) => record.cost ?? null,
  cache_status: (record) => record.cache_status ?? null,
  retry_count: (record) => record.retry_count ?? 0,
  last_used_option: (record) => record.last_used_option ?? null,
  stream: (record) => record.stream === true,
  metadata: (record) => ({ ...(record.metadata ?? {}) }),
  error_type: (record) => record.error?.type ?? null,
  error_code: (record) => record.error?.code ?? record.error_code ?? null,
  error_message: (record) => record.error?.message ?? null,
  attempts: (record) => JSON.stringify(record.attempts ?? []),
  request_body: (record) => serialisedBody(record.request_body),
  response_body: (record) => serialisedBody(record.response_body),
  request_body_ref: (record) => record.request_body_ref ?? null,
  response_body_ref: (record) => record.response_body_ref ?? null,
  body_truncated: (record) => record.body_truncated === true,
  day: (record) => dayOf(record.created_at),
  images: (record) => record.usage?.images ?? null,
  characters: (record) => record.usage?.characters ?? null,
  audio_seconds: (record) => record.usage?.audio_seconds ?? null,
  image_size: (record) => record.usage?.image_size ?? null,
  image_quality: (record) => record.usage?.image_quality ?? null,
};

/** How each `spans` column is read from a span and the record it belongs to (its request, trace and owners). */
export const SPAN_VALUES: Readonly<Record<string, SpanValue>> = {
  span_id: (span) => span.span_id,
  parent_span_id: (span) => span.parent_span_id ?? null,
  log_id: (_span, record) => record.id,
  trace_id: (_span, record) => record.trace_id,
  organisation_id: (_span, record) => record.organisation_id,
  workspace_id: (_span, record) => record.workspace_id,
  name: (span) => span.name,
  kind: (span) => span.kind,
  start_time: (span) => sqlTimestamp(span.start_time),
  end_time: (span) => (span.end_time ? sqlTimestamp(span.end_time) : null),
  duration_ms: (span) => span.duration_ms ?? null,
  status: (span) => span.status,
  attributes: (span) => JSON.stringify(span.attributes ?? {}),
  error_type: (span) => span.error?.type ?? null,
  error_code: (span) => span.error?.code ?? null,
  error_message: (span) => span.error?.message ?? null,
  day: (span) => dayOf(span.start_time),
};

/** One flat `requests` row of a (redacted) record; spans go to their own rows (`spanRows`). */
export function requestRow(record: RequestLogRecord): EngineRow {
  const row: EngineRow = {};
  for (const { name } of REQUEST_COLUMNS) row[name] = REQUEST_VALUES[name](record);
  return row;
}

/** One `spans` row per span of the record, each naming its request, trace and owners. */
export function spanRows(record: RequestLogRecord): EngineRow[] {
  return (record.spans ?? []).map((span) => {
    const row: EngineRow = {};
    for (const { name } of SPAN_COLUMNS) row[name] = SPAN_VALUES[name](span, record);
    return row;
  });
}
