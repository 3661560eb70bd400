import { columnOf, dayOf, sqlTimestamp } from './columns.js';
import type { EngineTable, SqlDialect, SqlStatement } from './types.js';

/**
 * SQL text with its parameters, built so a value can never reach the text: `sql` turns every interpolated value
 * into a `?` and appends it to `params` in textual order; only fragments (made here, from code) are inlined.
 */
export interface Fragment {
  readonly text: string;
  readonly params: SqlStatement['params'];
  readonly fragment: true;
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
  return [sql`${col(table, 'day')} BETWEEN ${fromDay} AND ${dayOf(range.to)}`, sql`${col(table, column)} >= ${time(from)}`, sql`${col(table, column)} <= ${time(range.to)}`];
}

/** A row limit: code-made integers only, checked, so it can sit in the text (Athena takes no parameter there). */
export function limit(rows: number): Fragment {
  if (!Number.isSafeInteger(rows) || rows < 1 || rows > 10_000) throw new Error(`bad row limit ${rows}`);
  return trusted(`LIMIT ${rows}`);
}
