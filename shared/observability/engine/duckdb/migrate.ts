import type { DuckDBConnection } from '@duckdb/node-api';
import { TABLE_COLUMNS, duckDbType } from '../columns.js';
import type { EngineTable } from '../types.js';

/**
 * Brings a request-log database file made by an earlier gw up to the column list (columns.ts): every column it lacks
 * is added, null on the rows it already holds (the media unit columns of issue #47 were the first). `ALTER TABLE …
 * ADD COLUMN` appends, and the writer appends rows by position (transactional-writer.ts), so new columns are only
 * ever added at the end of the list; a file whose columns still differ in order afterwards is refused with the
 * difference named, rather than written into the wrong columns.
 */
export async function migrateTable(connection: DuckDBConnection, table: EngineTable): Promise<string[]> {
  const present = await columnNames(connection, table);
  const added: string[] = [];
  for (const definition of TABLE_COLUMNS[table]) {
    if (present.includes(definition.name)) continue;
    // Names and types come from the code's own list, never from input.
    await connection.run(`ALTER TABLE ${table} ADD COLUMN ${definition.name} ${duckDbType(definition.type)}`);
    added.push(definition.name);
  }
  const now = added.length === 0 ? present : await columnNames(connection, table);
  const expected = TABLE_COLUMNS[table].map((definition) => definition.name);
  if (now.join(',') !== expected.join(',')) {
    throw new Error(`the request-log database's ${table} table has columns (${now.join(', ')}) where gw writes (${expected.join(', ')}): move the file aside, or point GW_LOG_DUCKDB_PATH elsewhere, and gw starts a new one`);
  }
  return added;
}

async function columnNames(connection: DuckDBConnection, table: EngineTable): Promise<string[]> {
  const result = await connection.runAndReadAll(`SELECT column_name FROM information_schema.columns WHERE table_schema = 'main' AND table_name = '${table}' ORDER BY ordinal_position`);
  return result.getRowObjectsJS().map((row) => String(row.column_name));
}
