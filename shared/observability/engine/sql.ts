import { createHash } from 'node:crypto';
import { columnOf, dayOf, sqlTimestamp, TABLE_COLUMNS } from './columns.js';
import type { EngineTable, SqlDialect, SqlStatement } from './types.js';

/**
 * SQL text with its parameters, built so a value can never reach the text: `sql` turns every interpolated value
 * into a `?` and appends it to `params` in textual order; only fragments (made here, from code) are inlined.
 */
export interface Fragment {
  readonly text: string;
  readonly params: SqlStatement['params'];
  readonly fragment: true;
  /** Set on the `day BETWEEN` condition of a range (rangeConditions), so rowsOf knows which days a read covers. */
  readonly days?: { from: string; to: string };
}

type Param = SqlStatement['params'][number];

const isFragment = (value: unknown): value is Fragment => typeof value === 'object' && value !== null && (value as Fragment).fragment === true;

export function sql(strings: TemplateStringsArray, ...values: Array<Param | Fragment>): Fragment {
  let text = strings[0];
  const params: Param[] = [];
  values.forEach((value, index) => {
    if (isFragment(value)) {
      text += value.text;
      params.push(...value.params);
    } else {
      text += '?';
      params.push(value);
    }
    text += strings[index + 1];
  });
  return { text, params, fragment: true };
}

/** Text from code only (keywords, function names, constants); never call it with input. */
export function trusted(text: string): Fragment {
  return { text, params: [], fragment: true };
}

export function join(fragments: readonly Fragment[], separator: string): Fragment {
  return { text: fragments.map((part) => part.text).join(separator), params: fragments.flatMap((part) => part.params), fragment: true };
}

export const and = (conditions: readonly Fragment[]): Fragment => (conditions.length === 0 ? trusted('TRUE') : join(conditions, ' AND '));

export function statement(fragment: Fragment): SqlStatement {
  return { sql: fragment.text, params: [...fragment.params] };
}

/** A column of `table`, by a name the column list knows; anything else is a programming error. */
export function col(table: EngineTable, name: string): Fragment {
  if (!columnOf(table, name)) throw new Error(`unknown column ${table}.${name}`);
  return trusted(name);
}

/** `metadata.<key>` of a request: DuckDB's map subscript, Trino's element_at (NULL when absent in both). */
export function metadataValue(dialect: SqlDialect, key: string): Fragment {
  return dialect === 'trino' ? sql`element_at(metadata, ${key})` : sql`metadata[${key}]`;
}

/** A time parameter compared with a timestamp column (both engines CAST `YYYY-MM-DD HH:MM:SS.sss`). */
export function time(iso: string): Fragment {
  return sql`CAST(${sqlTimestamp(iso)} AS TIMESTAMP)`;
}

/** Who may be read: always the organisation, and the workspace unless an org admin reads the whole organisation. */
export interface LogScope {
  organisationId: string;
  /** Undefined only for organisation-wide reads of organisation admins. */
  workspaceId?: string;
}

export function scopeConditions(table: EngineTable, scope: LogScope): Fragment[] {
  const conditions = [sql`${col(table, 'organisation_id')} = ${scope.organisationId}`];
  if (scope.workspaceId !== undefined) conditions.push(sql`${col(table, 'workspace_id')} = ${scope.workspaceId}`);
  return conditions;
}

export interface TimeRange {
  /** ISO 8601, inclusive. */
  from: string;
  to: string;
}

/**
 * The time range on `column`, and the same range as `day BETWEEN ? AND ?` so Athena reads only the partitions
 * of those days (DuckDB gets it too: one builder, and it costs nothing there). `widenDaysBefore` lets span
 * queries reach spans that started the day before their request ended.
 */
export function rangeConditions(table: EngineTable, column: 'created_at' | 'start_time', range: TimeRange, widenDaysBefore = 0): Fragment[] {
  const fromDay = dayOf(new Date(Date.parse(range.from) - widenDaysBefore * 86_400_000).toISOString());
  const from = widenDaysBefore > 0 ? new Date(Date.parse(range.from) - widenDaysBefore * 86_400_000).toISOString() : range.from;
  const between = sql`${col(table, 'day')} BETWEEN ${fromDay} AND ${dayOf(range.to)}`;
  const days: Fragment = { text: between.text, params: between.params, fragment: true, days: { from: fromDay, to: dayOf(range.to) } };
  return [days, sql`${col(table, column)} >= ${time(from)}`, sql`${col(table, column)} <= ${time(range.to)}`];
}

/** A row limit: code-made integers only, checked, so it can sit in the text (Athena takes no parameter there). */
export function limit(rows: number): Fragment {
  if (!Number.isSafeInteger(rows) || rows < 1 || rows > 10_000) throw new Error(`bad row limit ${rows}`);
  return trusted(`LIMIT ${rows}`);
}

/**
 * On AWS a finished day's rows are rewritten once by the daily compaction (engine/aws/compaction.ts) into
 * `<table>_compacted`: a few Parquet files per day instead of Firehose's ~2,000, under a run's own folder (the
 * `compacted_slice` partition) and `ws_bucket`, a hash of the workspace id into WORKSPACE_BUCKETS folders, so a
 * workspace's query opens only its folder of each day (partition projection, not file statistics, does the pruning).
 * A day is read from exactly one side: which days are compacted, by which run, is the engine's state, read when the
 * query runs (engine/aws/compaction-state.ts), so each branch of a read carries a marker the Athena engine replaces.
 */
export const WORKSPACE_BUCKETS = 32;
export const WORKSPACE_BUCKET_COLUMN = 'ws_bucket';

export function compactedTable(table: EngineTable): string {
  return `${table}_compacted`;
}

/**
 * The `ws_bucket` of a workspace: the low 5 bits of the 8th byte of the MD5 of its id, which is what
 * `workspaceBucketSql` computes in Trino (from_big_endian_64 of the first 8 bytes, AND 31).
 */
export function workspaceBucket(workspaceId: string): number {
  return createHash('md5').update(workspaceId, 'utf8').digest()[7] & (WORKSPACE_BUCKETS - 1);
}

/** The same bucket in Trino, over the `workspace_id` column (the compaction's UNLOAD writes it as a folder). */
export function workspaceBucketSql(): Fragment {
  return trusted(`bitwise_and(from_big_endian_64(substr(md5(to_utf8(workspace_id)), 1, 8)), ${WORKSPACE_BUCKETS - 1})`);
}

/** Every column of `table`, partition column included, named (the two branches of `rowsOf` line up by them). */
function allColumns(table: EngineTable): Fragment {
  return join(TABLE_COLUMNS[table].map((definition) => col(table, definition.name)), ', ');
}

/**
 * What the Athena engine replaces with a day's compaction state (engine/aws/compaction-markers.ts): a comment naming
 * the branch and the table, then `TRUE` so the text is valid SQL as it stands. `range`: the days read are the two
 * parameters of the next `day BETWEEN ? AND ?` after the marker (no value is ever written into the text); `all`: the
 * read names no days.
 */
export const COMPACTION_MARKER = /\/\*gw:(compacted|raw) (requests|spans) (range|all)\*\/TRUE/;

export function compactionMarker(side: 'compacted' | 'raw', table: EngineTable, ranged: boolean): Fragment {
  return trusted(`/*gw:${side} ${table} ${ranged ? 'range' : 'all'}*/TRUE`);
}

/**
 * The rows of `table` that meet `conditions`, as what follows FROM. DuckDB has one table. On Athena it is both
 * tables, each filtered by every condition itself (so each prunes its own partitions and Parquet columns), and each
 * by its marker, so that a day is read from exactly one side: the compacted branch only the slices of compacted
 * days (and the workspace's `ws_bucket` when the scope names a workspace; not the `day` range, which the slices
 * already bound and which days compacted before issue #41 do not hold as a column), the raw branch every raw file but
 * those slices' own. The result keeps the table's name, so the statement around it reads as on DuckDB.
 */
export function rowsOf(dialect: SqlDialect, table: EngineTable, scope: LogScope, conditions: readonly Fragment[]): Fragment {
  if (dialect === 'duckdb') return sql`${trusted(table)} WHERE ${and(conditions)}`;
  const days = conditions.find((condition) => condition.days !== undefined)?.days;
  const columns = allColumns(table);
  const bucket = scope.workspaceId === undefined ? [] : [sql`${trusted(WORKSPACE_BUCKET_COLUMN)} = ${workspaceBucket(scope.workspaceId)}`];
  // Each marker comes before the raw branch's `day BETWEEN ? AND ?`, whose parameters are the days it stands for.
  const compacted = and([compactionMarker('compacted', table, days !== undefined), ...conditions.filter((condition) => condition.days === undefined), ...bucket]);
  const raw = and([compactionMarker('raw', table, days !== undefined), ...conditions]);
  return sql`(SELECT ${columns} FROM ${trusted(compactedTable(table))} WHERE ${compacted} UNION ALL SELECT ${columns} FROM ${trusted(table)} WHERE ${raw}) AS ${trusted(table)}`;
}
