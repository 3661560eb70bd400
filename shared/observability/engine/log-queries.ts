import { REQUEST_COLUMNS, SPAN_COLUMNS } from './columns.js';
import { formulaSafe, trinoCsvLine } from './csv-cells.js';
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
  type Fragment,
  type LogScope,
  type TimeRange,
} from './sql.js';
import type { SqlDialect, SqlStatement } from './types.js';

/** The filters of GET /v1/logs, traces and exports; all optional, all combined with AND. */
export interface LogFilter {
  trace_id?: string;
  metadata?: Record<string, string>;
  provider?: string;
  model?: string;
  /** An HTTP status, a class of them (`4xx`), or `error` for every failed request. */
  status?: number | 'error' | StatusClass;
  cache_status?: string;
  api_key_id?: string;
  virtual_key_id?: string;
  /** Equality on any other column of `requests` by name (checked against the column list). */
  columns?: Record<string, string | number | boolean>;
  from?: string;
  to?: string;
}

export type StatusClass = `${1 | 2 | 3 | 4 | 5}xx`;

export interface LogQuery {
  scope: LogScope;
  range: TimeRange;
  filter?: LogFilter;
}

/** The columns a request list may be sorted by (GET /v1/logs `sort`), each a number or a time of `requests`. */
export const LOG_SORT_FIELDS = ['created_at', 'cost', 'latency_ms', 'total_tokens'] as const;
export type LogSortField = (typeof LOG_SORT_FIELDS)[number];

export interface LogSort {
  field: LogSortField;
  order: 'asc' | 'desc';
}

/** Newest first: the list's order when the caller names none. */
export const NEWEST_FIRST: LogSort = { field: 'created_at', order: 'desc' };

/**
 * Keyset cursor of a request list: the last row's sort value (numeric sorts only), time and id. The id breaks every
 * tie, so a page boundary never repeats or skips a row, however many rows share a cost or a millisecond.
 */
export interface LogCursor {
  created_at: string;
  id: string;
  /** The last row's sort key as `sortKeyOf` computes it (absent when sorting by time). */
  value?: number;
}

/**
 * A numeric sort reads a NULL (an unpriced request, a failure without usage) as a value beyond every real one, so
 * rows without one come last in either direction and the keyset comparison never meets a NULL: costs, tokens and
 * latencies are never negative, and never near 2^53.
 */
const NULL_LAST: Record<LogSort['order'], number> = { desc: -1, asc: Number.MAX_SAFE_INTEGER };

/** The sort key of a read row, as the statement computes it: what a cursor carries. */
export function sortKeyOf(row: Record<string, unknown>, sort: LogSort): number | undefined {
  if (sort.field === 'created_at') return undefined;
  const value = row[sort.field];
  return typeof value === 'number' && Number.isFinite(value) ? value : NULL_LAST[sort.order];
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
  else if (typeof filter.status === 'string') {
    const hundred = Number(filter.status.charAt(0)) * 100;
    conditions.push(sql`${col('requests', 'status')} BETWEEN ${hundred} AND ${hundred + 99}`);
  } else equal('status', filter.status);
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

/**
 * A page of request records in `sort` order (newest first by default), ties broken by time then id in the same
 * direction; one row more than `rows` tells whether another page follows. The same text runs on DuckDB and Trino:
 * only `coalesce`, comparisons and ORDER BY on an expression, all of which both have.
 */
export function listRequests(dialect: SqlDialect, query: LogQuery, rows: number, after?: LogCursor, sort: LogSort = NEWEST_FIRST): SqlStatement {
  const direction = trusted(sort.order === 'asc' ? 'ASC' : 'DESC');
  const beyond = trusted(sort.order === 'asc' ? '>' : '<');
  const key = sort.field === 'created_at' ? undefined : sql`coalesce(${col('requests', sort.field)}, ${trusted(String(NULL_LAST[sort.order]))})`;
  const conditions: Fragment[] = [];
  if (after) {
    const byTime = sql`(created_at ${beyond} ${time(after.created_at)} OR (created_at = ${time(after.created_at)} AND id ${beyond} ${after.id}))`;
    if (key === undefined) conditions.push(byTime);
    else {
      if (typeof after.value !== 'number' || !Number.isFinite(after.value)) throw new Error('a cursor of a numeric sort needs its value');
      conditions.push(sql`(${key} ${beyond} ${after.value} OR (${key} = ${after.value} AND ${byTime}))`);
    }
  }
  const order = key === undefined ? sql`created_at ${direction}, id ${direction}` : sql`${key} ${direction}, created_at ${direction}, id ${direction}`;
  return statement(sql`SELECT ${RECORD_COLUMNS} FROM ${requestRows(dialect, query, conditions)} ORDER BY ${order} ${limit(rows + 1)}`);
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
  const exported = REQUEST_COLUMNS.filter((definition) => !definition.partition && !omitted.has(definition.name));
  // A CSV: Athena's UNLOAD quotes nothing, so its rows are finished CSV lines already (csv-cells.ts); DuckDB's COPY
  // quotes itself, and only needs the formula-safe text cells.
  if (options.neutraliseFormulas && dialect === 'trino') return statement(sql`SELECT ${trinoCsvLine(exported)} AS csv_line FROM ${requestRows(dialect, query)}`);
  const columns = join(
    exported.map((definition) => {
      const value = col('requests', definition.name);
      return options.neutraliseFormulas && definition.type === 'string' ? sql`${formulaSafe(value)} AS ${value}` : value;
    }),
    ', ',
  );
  return statement(sql`SELECT ${columns} FROM ${requestRows(dialect, query)}`);
}
