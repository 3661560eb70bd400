import { settings } from '../settings.js';
import { logIndexEntries, logKeys } from '../store/log-keys.js';
import { LOGS_TABLE, tableName } from '../store/table-definitions.js';
import { BatchedTableWriter } from './batched-writer.js';
import type { RequestLogRecord } from './log-record.js';

export type { RequestLogRecord } from './log-record.js';

const DAY_SECONDS = 86_400;

let writer: BatchedTableWriter | undefined;
let gate: Promise<void> | undefined;

/**
 * Queues the record and its index rows for the logs table; written in a batch within ~20 ms (or at the
 * Lambda's drain). Each index row is a few hundred bytes pointing at the record, so every filter of
 * GET /v1/logs is a key condition (see docs/architecture.md).
 */
export async function writeRequestLog(record: RequestLogRecord): Promise<void> {
  const { GW_REQUEST_LOGS, LOG_RETENTION_DISPLAY } = settings();
  if (!GW_REQUEST_LOGS) return;
  if (gate) await gate;
  writer ??= new BatchedTableWriter(() => tableName(settings(), LOGS_TABLE));
  const ttl = Math.floor(Date.parse(record.created_at) / 1000) + LOG_RETENTION_DISPLAY * DAY_SECONDS;
  const key = logKeys.record(record.trace_id, record.created_at, record.id);
  const timeKey = logKeys.timeKey(record.created_at, record.id);
  const items: Array<Record<string, unknown>> = [
    { ...key, gsi1pk: logKeys.workspaceTimeline(record.workspace_id), gsi1sk: timeKey, ttl, ...withoutUndefined(record) },
    ...logIndexEntries(record).map(([field, value]) => ({ pk: logKeys.index(record.workspace_id, field, value), sk: timeKey, ref_pk: key.pk, ref_sk: key.sk, ttl })),
  ];
  await Promise.all(items.map((item) => writer!.put(item)));
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

function withoutUndefined(record: RequestLogRecord): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}
