import type { ColumnDefinition } from './columns.js';
import { col, join, sql, type Fragment } from './sql.js';

/**
 * A text column of a CSV export, safe to open in a spreadsheet (OWASP, "CSV Injection"): a cell that begins with
 * `=`, `+`, `-`, `@`, a tab or a carriage return is what spreadsheets run as a formula (`=cmd|' /C calc'!A0`), and
 * model names, metadata and error texts are whatever a `completions:write` caller sent, so such a cell gets a
 * leading `'`, which spreadsheets show as text. Both dialects (DuckDB, Trino) have `substr`, `chr` and `||`.
 */
export function formulaSafe(value: Fragment): Fragment {
  return sql`CASE WHEN substr(${value}, 1, 1) IN ('=', '+', '-', '@', chr(9), chr(13)) THEN '''' || ${value} ELSE ${value} END`;
}

/**
 * One CSV line per row, for Athena (Trino): its UNLOAD writes TEXTFILE as Hive does — values joined by the delimiter,
 * never quoted, NULL as `\N` — so a value holding a comma, a quote or a line break would split into cells of the
 * caller's choosing (`x,=cmd|' /C calc'!A0` puts a formula at the start of the next cell, past the first-character
 * check), and a map is written with control-character separators, its keys unneutralised. So the statement itself
 * renders each row as one text column holding the finished line, by the DuckDB export's rule (COPY … FORMAT csv):
 * text fields neutralised, then quoted with `"` doubled; `metadata` as its JSON text, likewise; numbers, booleans
 * and timestamps as text, unquoted (none holds a comma, a quote or a leading formula character); NULL as an empty
 * field. The UNLOAD then writes that single column unchanged.
 */
export function trinoCsvLine(columns: readonly ColumnDefinition[]): Fragment {
  return join(columns.map(csvField), " || ',' || ");
}

function csvField(definition: ColumnDefinition): Fragment {
  const value = col('requests', definition.name);
  if (definition.type === 'string') return quoted(value, formulaSafe(value));
  if (definition.type === 'map<string,string>') return quoted(value, formulaSafe(sql`json_format(CAST(${value} AS JSON))`));
  return sql`coalesce(CAST(${value} AS varchar), '')`;
}

function quoted(value: Fragment, text: Fragment): Fragment {
  return sql`CASE WHEN ${value} IS NULL THEN '' ELSE '"' || replace(${text}, '"', '""') || '"' END`;
}
