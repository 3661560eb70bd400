import { TABLE_COLUMNS } from '../columns.js';
import { col, join, sql, statement, trusted, WORKSPACE_BUCKET_COLUMN, workspaceBucketSql } from '../sql.js';
import type { EngineTable, SqlStatement } from '../types.js';

/**
 * What the daily compaction (compaction.ts) writes of one finished day of `table` on Athena: the raw rows of the day
 * in files modified at or before `cutoff` (the newest raw file it listed: later files stay raw and are read raw, see
 * compaction-state.ts), every data column and `day` (a column of the compacted files, whose folders are runs, not
 * days), sorted by workspace and time (so within a file a workspace's rows are together, and its row groups'
 * statistics exclude the others as the files grow), then `ws_bucket`, the last column, which the UNLOAD turns into
 * the folder the rows go in (`partitioned_by`). Trino only: DuckDB keeps one table.
 */
export function compactionRows(table: EngineTable, day: string, cutoff: Date): SqlStatement {
  const data = join(TABLE_COLUMNS[table].map((definition) => col(table, definition.name)), ', ');
  const time = col(table, table === 'requests' ? 'created_at' : 'start_time');
  return statement(
    sql`SELECT ${data}, ${workspaceBucketSql()} AS ${trusted(WORKSPACE_BUCKET_COLUMN)} FROM ${trusted(table)} WHERE ${col(table, 'day')} = ${day} AND "$file_modified_time" <= from_iso8601_timestamp(${cutoff.toISOString()}) ORDER BY workspace_id, ${time}`,
  );
}
