import type { ColumnInfo, Row } from '@aws-sdk/client-athena';

/**
 * Athena returns every value of a result set as text (`VarCharValue`, absent for NULL); the result set's column
 * types say what it was. Converted to what the DuckDB engine returns for the same column, so the read APIs see
 * one shape: numbers for integer and floating types (integers past 2^53 stay exact as strings), booleans, ISO
 * 8601 UTC strings for timestamps, JSON values for `json` (the query builder casts maps and arrays to JSON for
 * Trino, since Athena renders a bare map as `{k=v, …}`, which cannot be read back unambiguously).
 */
export function convertValue(text: string | undefined, column: ColumnInfo): unknown {
  if (text === undefined) return null;
  const type = (column.Type ?? 'varchar').toLowerCase();
  switch (type) {
    case 'tinyint':
    case 'smallint':
    case 'integer':
    case 'int':
    case 'bigint': {
      const value = Number(text);
      return Number.isSafeInteger(value) ? value : text;
    }
    case 'double':
    case 'real':
    case 'float':
    case 'decimal':
      return Number(text);
    case 'boolean':
      return text === 'true';
    case 'timestamp':
    case 'timestamp with time zone':
      return isoTimestamp(text);
    case 'json':
      return JSON.parse(text) as unknown;
    case 'map':
      return parseRenderedMap(text);
    default:
      // varchar, char, date ('YYYY-MM-DD'), varbinary (hex), row, array: as Athena wrote them.
      return text;
  }
}

/** `2026-11-27 10:15:03.123` (optionally with a zone) → `2026-11-27T10:15:03.123Z`. */
function isoTimestamp(text: string): string {
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(\.\d+)?/.exec(text);
  if (!match) return text;
  const millis = (match[3] ?? '.000').slice(0, 4).padEnd(4, '0');
  return `${match[1]}T${match[2]}${millis}Z`;
}

/** Best effort for a map the query did not cast to JSON: `{a=1, b=2}` → `{a: '1', b: '2'}`. */
function parseRenderedMap(text: string): Record<string, string> {
  const inner = text.replace(/^\{|\}$/g, '');
  if (inner.trim() === '') return {};
  return Object.fromEntries(
    inner.split(', ').map((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/** The result set's rows as objects keyed by column name; the header row Athena puts first on a SELECT's first page is skipped. */
export function convertRows(rows: readonly Row[], columns: readonly ColumnInfo[], firstPage: boolean): Array<Record<string, unknown>> {
  const isHeader = (row: Row) => columns.length > 0 && columns.every((column, index) => row.Data?.[index]?.VarCharValue === (column.Label ?? column.Name));
  const data = firstPage && rows.length > 0 && isHeader(rows[0]) ? rows.slice(1) : rows;
  return data.map((row) => Object.fromEntries(columns.map((column, index) => [column.Name ?? `_col${index}`, convertValue(row.Data?.[index]?.VarCharValue, column)])));
}
