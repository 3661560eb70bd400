import { settings } from '../settings.js';
import { LOGS_TABLE, tableName } from '../store/table-definitions.js';
import { BatchedTableWriter } from './batched-writer.js';

/** One gateway request as recorded in the logs table. Bodies and credentials are never part of it. */
export interface RequestLogRecord {
  trace_id: string;
  request_id: string;
  organisation_id: string;
  workspace_id: string;
  api_key_id: string;
  endpoint: string;
  provider?: string;
  model?: string;
  stream: boolean;
  status: number;
  outcome: 'success' | 'error';
  error_code?: string;
  latency_ms: number;
  usage?: Record<string, unknown>;
  /** USD, from model pricing; null when the model has no price (unknown, never 0); absent without a response. */
  cost?: number | null;
  /** Every upstream try (target path, provider, status, latency, error), so a fallback can be explained. */
  attempts?: Array<Record<string, unknown> | object>;
  metadata: Record<string, string>;
  created_at: string;
}

const DAY_SECONDS = 86_400;

let writer: BatchedTableWriter | undefined;

/** Queues the record for the logs table; it is written in a batch within ~20 ms (or at the Lambda's drain). */
export async function writeRequestLog(record: RequestLogRecord): Promise<void> {
  const { GW_REQUEST_LOGS, LOG_RETENTION_DISPLAY } = settings();
  if (!GW_REQUEST_LOGS) return;
  writer ??= new BatchedTableWriter(() => tableName(settings(), LOGS_TABLE));
  await writer.put({
    pk: `TRACE#${record.trace_id}`,
    sk: `${record.created_at}#${record.request_id}`,
    gsi1pk: `WS#${record.workspace_id}#LOGS`,
    gsi1sk: `${record.created_at}#${record.request_id}`,
    ttl: Math.floor(Date.parse(record.created_at) / 1000) + LOG_RETENTION_DISPLAY * DAY_SECONDS,
    ...record,
  });
}
