import { loadOnce } from '../cache/load-once.js';
import { settings } from '../settings.js';
import { logEngines } from './engine/select.js';
import type { RequestLogRecord } from './log-record.js';

export type { RequestLogRecord } from './log-record.js';

let gate: Promise<void> | undefined;
// Imported once: an import() of a module already loaded still goes through the ESM loader, on every request.
const rowBuilder = loadOnce(() => import('./engine/columns.js'));

/**
 * Appends the record as one `requests` row and its spans as `spans` rows to the log engine's sink (issue #32):
 * appended, never updated; no index rows, no rollups. The sink sends them in batches (DuckDB: within ~200 ms;
 * Firehose: PutRecordBatch at the drain), so the after-path costs an array push. DuckDB takes the record itself
 * and makes its rows in bulk when it flushes (issue #34); the record is not changed after this call.
 */
export async function writeRequestLog(record: RequestLogRecord): Promise<void> {
  if (!settings().GW_REQUEST_LOGS) return;
  if (gate) await gate;
  const { sink } = await logEngines();
  if (sink.appendRecord) {
    sink.appendRecord(record);
    return;
  }
  // The row builder loads with the engine, after the first response: neither is on the gateway's cold start.
  const { requestRow, spanRows } = await rowBuilder();
  sink.append('requests', [requestRow(record)]);
  const spans = spanRows(record);
  if (spans.length > 0) sink.append('spans', spans);
}

/**
 * Tests: holds every log write until the returned release is called, to show that the client has its answer
 * before the record exists.
 */
export function holdRequestLogWritesForTesting(): () => void {
  let release!: () => void;
  gate = new Promise<void>((resolve) => (release = resolve));
  return () => {
    gate = undefined;
    release();
  };
}
