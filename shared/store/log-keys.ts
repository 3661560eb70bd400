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
