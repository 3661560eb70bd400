import { readRow, recordFromRow } from '../../shared/observability/engine/rows.js';
import { logEngines } from '../../shared/observability/engine/select.js';
import type { RequestLogRecord } from '../../shared/observability/log-record.js';

/**
 * The request-log records of a trace, read straight from this process's log engine (DuckDB in tests), whatever
 * workspace they belong to: for tests that check what the after-path wrote without going through the read API.
 */
export async function requestLogsOfTrace(traceId: string): Promise<RequestLogRecord[]> {
  const { engine } = await logEngines();
  const result = await engine.query({ sql: 'SELECT * EXCLUDE (day) FROM requests WHERE trace_id = ? ORDER BY created_at, id', params: [traceId] });
  return result.rows.map((row) => recordFromRow(readRow('requests', row), []));
}

/**
 * The rows `sql` selects from a stopped gw's request-log file (DuckDB, opened read-only and closed again): for the
 * tests that crash, cut or stop gw and then count what it wrote.
 */
export async function rowsOfStoppedLogFile(path: string, sql: string, params: string[] = []): Promise<Record<string, unknown>[]> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const database = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  try {
    const connection = await database.connect();
    try {
      return (await connection.runAndReadAll(sql, params)).getRowObjectsJS();
    } finally {
      connection.closeSync();
    }
  } finally {
    database.closeSync();
  }
}
