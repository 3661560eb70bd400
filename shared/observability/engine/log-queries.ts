import { REQUEST_COLUMNS, SPAN_COLUMNS, TABLE_COLUMNS } from './columns.js';
import {
  col,
  join,
  limit,
  metadataValue,
  rangeConditions,
  rowsOf,
  scopeConditions,
  sql,
  statement,
  time,
  trusted,
  WORKSPACE_BUCKET_COLUMN,
  workspaceBucketSql,
  type Fragment,
  type LogScope,
  type TimeRange,
} from './sql.js';
import type { EngineTable, SqlDialect, SqlStatement } from './types.js';

/** The filters of GET /v1/logs, traces and exports; all optional, all combined with AND. */
export interface LogFilter {
  trace_id?: string;
  metadata?: Record<string, string>;
  provider?: string;
  model?: string;
  /** An HTTP status, or `error` for every failed request. */
  status?: number | 'error';
  cache_status?: string;
  api_key_id?: string;
  virtual_key_id?: string;
  /** Equality on any other column of `requests` by name (checked against the column list). */
  columns?: Record<string, string | number | boolean>;
  from?: string;
  to?: string;
}

export interface LogQuery {
  scope: LogScope;
  range: TimeRange;
  filter?: LogFilter;
}

/** Keyset cursor of a newest-first list: the last row's time and id. */
export interface LogCursor {
  created_at: string;
  id: string;
}

/** The columns the read APIs present (all but the partition column). */
const RECORD_COLUMNS = join(
  REQUEST_COLUMNS.filter((definition) => !definition.partition).map((definition) => col('requests', definition.name)),
  ', ',
);
const SPAN_SELECT = join(
  SPAN_COLUMNS.filter((definition) => !definition.partition).map((definition) => col('spans', definition.name)),
  ', ',
);

export function filterConditions(dialect: SqlDialect, filter: LogFilter = {}): Fragment[] {
  const conditions: Fragment[] = [];
  const equal = (name: string, value: string | number | boolean | undefined) => {
    if (value !== undefined) conditions.push(sql`${col('requests', name)} = ${value}`);
  };
  equal('trace_id', filter.trace_id);
  equal('provider', filter.provider);
  equal('model', filter.model);
  equal('cache_status', filter.cache_status);
  equal('api_key_id', filter.api_key_id);
  equal('virtual_key_id', filter.virtual_key_id);
  if (filter.status === 'error') conditions.push(sql`${col('requests', 'outcome')} = ${'error'}`);
  else equal('status', filter.status);
  for (const [name, value] of Object.entries(filter.columns ?? {})) equal(name, value);
  for (const [key, value] of Object.entries(filter.metadata ?? {})) conditions.push(sql`${metadataValue(dialect, key)} = ${value}`);
  return conditions;
}

/** The scope, range and filters of a request query (every query of `requests` starts from these). */
function requestConditions(dialect: SqlDialect, query: LogQuery): Fragment[] {
  return [...scopeConditions('requests', query.scope), ...rangeConditions('requests', 'created_at', query.range), ...filterConditions(dialect, query.filter)];
}

/** The request rows a query selects from, with more conditions (rowsOf: one table on DuckDB, both on Athena). */
function requestRows(dialect: SqlDialect, query: LogQuery, more: Fragment[] = []): Fragment {
  return rowsOf(dialect, 'requests', query.scope, [...requestConditions(dialect, query), ...more]);
}

/** A page of request records, newest first; one row more than `rows` tells whether another page follows. */
export function listRequests(dialect: SqlDialect, query: LogQuery, rows: number, after?: LogCursor): SqlStatement {
  const cursor = after ? [sql`(created_at < ${time(after.created_at)} OR (created_at = ${time(after.created_at)} AND id < ${after.id}))`] : [];
  return statement(sql`SELECT ${RECORD_COLUMNS} FROM ${requestRows(dialect, query, cursor)} ORDER BY created_at DESC, id DESC ${limit(rows + 1)}`);
}

export function getRequest(dialect: SqlDialect, query: LogQuery, id: string): SqlStatement {
  return statement(sql`SELECT ${RECORD_COLUMNS} FROM ${requestRows(dialect, query, [sql`id = ${id}`])} ${limit(1)}`);
}

/** Every request of a trace, oldest first (a trace is a handful of requests; at most 1,000 are read). */
export function traceRequests(dialect: SqlDialect, query: LogQuery, traceId: string): SqlStatement {
  return statement(sql`SELECT ${RECORD_COLUMNS} FROM ${requestRows(dialect, query, [sql`trace_id = ${traceId}`])} ORDER BY created_at, id ${limit(1_000)}`);
}

/**
 * Spans of some requests (by log id) or of a trace, in start order. A request's record is written when it ends,
 * its spans carry their start: the range reaches one day further back, for requests that crossed midnight.
 */
export function spansOf(dialect: SqlDialect, query: Omit<LogQuery, 'filter'>, of: { logIds: readonly string[] } | { traceId: string }): SqlStatement {
  const which = 'traceId' in of ? sql`trace_id = ${of.traceId}` : sql`log_id IN (${join(of.logIds.map((id) => sql`${id}`), ', ')})`;
  const conditions = [...scopeConditions('spans', query.scope), ...rangeConditions('spans', 'start_time', query.range, 1), which];
  return statement(sql`SELECT ${SPAN_SELECT} FROM ${rowsOf(dialect, 'spans', query.scope, conditions)} ORDER BY start_time, span_id ${limit(10_000)}`);
}

/** Separator of the distinct models of a trace summary (a model name never holds it). */
export const MODEL_SEPARATOR = '\u001f';

export interface TraceCursor {
  ended_at: string;
  trace_id: string;
}

/**
 * Trace summaries, newest trace first: every trace with a request that matches the filters, summarised over all
 * of its requests in the range. A trace sorts by its last request, so paging never repeats one.
 */
export function traceSummaries(dialect: SqlDialect, query: LogQuery, rows: number, after?: TraceCursor): SqlStatement {
  // On Athena the matching traces' subquery stands in both branches of the outer rows (rowsOf): a query of ids only.
  const matching = sql`trace_id IN (SELECT trace_id FROM ${requestRows(dialect, query)})`;
  const inScope = rowsOf(dialect, 'requests', query.scope, [...scopeConditions('requests', query.scope), ...rangeConditions('requests', 'created_at', query.range), matching]);
  const models = dialect === 'trino' ? sql`array_join(array_distinct(array_agg(model)), ${MODEL_SEPARATOR})` : sql`string_agg(DISTINCT model, ${MODEL_SEPARATOR})`;
  const having = after ? sql` HAVING (max(created_at) < ${time(after.ended_at)} OR (max(created_at) = ${time(after.ended_at)} AND trace_id < ${after.trace_id}))` : trusted('');
  return statement(
    sql`SELECT trace_id, min(created_at) AS started_at, max(created_at) AS ended_at, count(*) AS requests, sum(CASE WHEN outcome = ${'error'} THEN 1 ELSE 0 END) AS errors, sum(coalesce(cost, 0)) AS cost, sum(coalesce(total_tokens, 0)) AS total_tokens, ${models} AS models FROM ${inScope} GROUP BY trace_id${having} ORDER BY ended_at DESC, trace_id DESC ${limit(rows + 1)}`,
  );
}

/**
 * The rows an export writes: the record columns, in no particular order (the engine wraps it in COPY or UNLOAD). No
 * ORDER BY on purpose: unsorted, the engine streams rows from its scan to the file, where a sort would hold (or
 * spill) the whole result first; every row carries `created_at` for whoever wants it sorted.
 */
export function exportRequests(dialect: SqlDialect, query: LogQuery, options: { omitColumns?: readonly string[]; neutraliseFormulas?: boolean } = {}): SqlStatement {
  // Exported rows never pass through gw: a column a caller may not see is left out here, in the statement.
  const omitted = new Set(options.omitColumns ?? []);
  const columns = join(
    REQUEST_COLUMNS.filter((definition) => !definition.partition && !omitted.has(definition.name)).map((definition) =>
      options.neutraliseFormulas && definition.type === 'string' ? formulaSafe(definition.name) : col('requests', definition.name),
    ),
    ', ',
  );
  return statement(sql`SELECT ${columns} FROM ${requestRows(dialect, query)}`);
}

/**
 * What the daily compaction (engine/aws/compaction.ts) writes of one finished day of `table` on Athena: every data
 * column, sorted by workspace and time (so within a file a workspace's rows are together, and its row groups'
 * statistics exclude the others as the files grow), then `ws_bucket`, the last column, which the UNLOAD turns into
 * the folder the rows go in (`partitioned_by`). Trino only: DuckDB keeps one table.
 */
export function compactionRows(table: EngineTable, day: string): SqlStatement {
  const data = join(
    TABLE_COLUMNS[table].filter((definition) => !definition.partition).map((definition) => col(table, definition.name)),
    ', ',
  );
  const time = col(table, table === 'requests' ? 'created_at' : 'start_time');
  return statement(
    sql`SELECT ${data}, ${workspaceBucketSql()} AS ${trusted(WORKSPACE_BUCKET_COLUMN)} FROM ${trusted(table)} WHERE ${col(table, 'day')} = ${day} ORDER BY workspace_id, ${time}`,
  );
}

/**
 * A text column of a CSV export, safe to open in a spreadsheet (OWASP, "CSV Injection"): a cell that begins with
 * `=`, `+`, `-`, `@`, a tab or a carriage return is what spreadsheets run as a formula (`=cmd|' /C calc'!A0`), and
 * model names, metadata and error texts are whatever a `completions:write` caller sent, so such a cell gets a
 * leading `'`, which spreadsheets show as text. Both dialects (DuckDB, Trino) have `substr`, `chr` and `||`.
 */
function formulaSafe(name: string): Fragment {
  const value = col('requests', name);
  return sql`CASE WHEN substr(${value}, 1, 1) IN ('=', '+', '-', '@', chr(9), chr(13)) THEN '''' || ${value} ELSE ${value} END AS ${value}`;
}
