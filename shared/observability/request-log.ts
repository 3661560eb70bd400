import { loadOnce } from '../cache/load-once.js';
import { settings } from '../settings.js';
import type { AnswerMarker } from './answer-marker.js';
import { loadedLogSink, logEngines } from './engine/select.js';
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
 * Journals an answer's marker now, synchronously (one `write(2)`), when the sink keeps one (issue #42, kill -9):
 * called just before the answer (a JSON body) or its end (a stream) is released, so an answered request has a
 * record at the next start even when the process dies before its after-path. Costs nothing when logs are off or
 * the sink is not the local journal (a Lambda drains its after-path before its invocation ends).
 */
export function noteAnswered(marker: () => AnswerMarker): void {
  if (!settings().GW_REQUEST_LOGS) return;
  const sink = loadedLogSink();
  if (sink?.appendAnswer) sink.appendAnswer(marker());
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
