import { TABLE_COLUMNS, duckDbType } from '../columns.js';
import type { EngineTable } from '../types.js';

/** CREATE TABLE of `table` in DuckDB, from the one column list (columns.ts). */
export function createTableSql(table: EngineTable): string {
  const columns = TABLE_COLUMNS[table].map((definition) => `${definition.name} ${duckDbType(definition.type)}`).join(', ');
  return `CREATE TABLE IF NOT EXISTS ${table} (${columns})`;
}
