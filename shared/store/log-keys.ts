/**
 * Keys of the logs table (docs/architecture.md, "Logs table access patterns"). Every filter of GET /v1/logs
 * is served by one of these keys: the record itself sits under its trace, the workspace's time line is gsi1,
 * and each other filterable field gets a small index row pointing back at the record.
 */
export const LOG_INDEX_FIELDS = ['id', 'api_key', 'virtual_key', 'provider', 'model', 'status', 'outcome', 'cache_status'] as const;
export type LogIndexField = (typeof LOG_INDEX_FIELDS)[number] | `meta.${string}`;

export const logKeys = {
  /** The record: all requests of one trace together, oldest first. */
  record: (traceId: string, createdAt: string, id: string) => ({ pk: `TRACE#${traceId}`, sk: `${createdAt}#${id}` }),
  tracePartition: (traceId: string) => `TRACE#${traceId}`,
  /** gsi1: a workspace's requests by time. */
  workspaceTimeline: (workspaceId: string) => `WS#${workspaceId}#LOGS`,
  /** An index row: the requests of a workspace with `field` = `value`, by time. */
  index: (workspaceId: string, field: LogIndexField, value: string) => `WS#${workspaceId}#LOGIDX#${field}#${value}`,
  /** Sort key shared by the record's sk, gsi1sk and every index row: time first, so ranges are key conditions. */
  timeKey: (createdAt: string, id: string) => `${createdAt}#${id}`,
  /** Rollups: one item per hour bucket and group key. */
  rollupPartition: (scope: 'WS' | 'ORG', id: string, dimension: string) => `${scope}#${id}#ROLLUP#${dimension}`,
  rollupSort: (hour: string, key: string) => `${hour}#${key}`,
  exportJob: (workspaceId: string, exportId: string) => ({ pk: `WS#${workspaceId}#EXPORT#${exportId}`, sk: 'EXPORT' }),
};

/** The fields of a stored request-log record that its index rows are made from. */
export interface IndexedLogFields {
  id: string;
  api_key_id: string;
  status: number | string;
  outcome: string;
  virtual_key_id?: string | null;
  provider?: string | null;
  model?: string | null;
  cache_status?: string | null;
  metadata?: Record<string, string>;
}

/**
 * Values most records share, which get no index row: `outcome=success` is never read through an index (the
 * `status=error` filter reads `outcome=error`), and `status=200` and `cache_status=DISABLED` (every request
 * without a cache config) are served by the workspace time line, where nearly every record matches, as well as
 * by an index. Skipping them saves three of a typical record's eight items, a write each on every request
 * (DynamoDB write units on AWS; most of the embedded store's work locally). Records written before this kept
 * such rows; no query reads them, they expire with their TTL, and the local log cap takes them with their record.
 */
const UNINDEXED_VALUES: Partial<Record<LogIndexField, string>> = { status: '200', outcome: 'success', cache_status: 'DISABLED' };

/** Whether records with `field` = `value` have index rows (the log reader picks its driving index with this). */
export function isIndexedLogValue(field: LogIndexField, value: string): boolean {
  return UNINDEXED_VALUES[field] !== value;
}

/**
 * The (field, value) pairs a record is findable by, besides its trace and the workspace time line: one index row
 * each. The writer makes the rows from these, and the local log cap finds them again from the stored record;
 * the cap passes `withUnindexed`, so rows records kept from before a value stopped being indexed go with them too.
 */
export function logIndexEntries(record: IndexedLogFields, { withUnindexed = false } = {}): Array<[LogIndexField, string]> {
  const indexed = (field: LogIndexField, value: string) => withUnindexed || isIndexedLogValue(field, value);
  const entries: Array<[LogIndexField, string]> = [
    ['id', record.id],
    ['api_key', record.api_key_id],
  ];
  for (const [field, value] of [['status', String(record.status)], ['outcome', record.outcome]] as const) {
    if (indexed(field, value)) entries.push([field, value]);
  }
  if (record.virtual_key_id) entries.push(['virtual_key', record.virtual_key_id]);
  if (record.provider) entries.push(['provider', record.provider]);
  if (record.model) entries.push(['model', record.model]);
  if (record.cache_status && indexed('cache_status', record.cache_status)) entries.push(['cache_status', record.cache_status]);
  for (const [name, value] of Object.entries(record.metadata ?? {})) entries.push([`meta.${name}`, value]);
  return entries;
}
