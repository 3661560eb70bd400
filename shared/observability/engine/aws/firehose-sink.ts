import { PutRecordBatchCommand, type FirehoseClient } from '@aws-sdk/client-firehose';
import { captureFunctionContext } from '../../../store/recording/aws-operation-recorder.js';
import { logger } from '../../logger.js';
import type { EngineRow, EngineTable, LogEventSink } from '../types.js';
import { encodeRow } from './row-json.js';
import type { EngineColumnsByTable } from './table-columns.js';

/** PutRecordBatch's own limits: records per call, bytes per call, bytes per record (before base64). */
export const MAX_RECORDS_PER_CALL = 500;
export const MAX_BYTES_PER_CALL = 4 * 1024 * 1024;
export const MAX_BYTES_PER_RECORD = 1_000 * 1024;
/**
 * Rows per record: the streams deaggregate each record into its JSON lines (RecordDeAggregation, SubRecordType JSON,
 * infra/cdk/constructs/request-logs.ts), which Firehose caps at 500 per record.
 */
export const MAX_ROWS_PER_RECORD = 500;

/** Backoff before each retry of the records a call reported as failed; its length bounds the retries. */
const DEFAULT_RETRY_DELAYS_MS = [100, 400, 1_600];

export interface FirehoseSinkOptions {
  client: FirehoseClient;
  /** One delivery stream per table. */
  streams: Readonly<Record<EngineTable, string>>;
  columns: EngineColumnsByTable;
  /** A long-lived process sends appended rows at most this long after the first of them (a Lambda drains at once). */
  maxDelayMs?: number;
  retryDelaysMs?: readonly number[];
}

interface Queued {
  table: EngineTable;
  /** One row's JSON line. */
  row: Uint8Array;
  /** Test-only attribution: sends as the function that appended the row, whoever flushes (no-op when deployed). */
  sendAs: <R>(work: () => R) => R;
}

/** One Firehose record: the JSON lines of up to MAX_ROWS_PER_RECORD rows of one table. */
export interface PackedRecord {
  record: Uint8Array;
  rows: number;
}

/**
 * Request-log rows to Amazon Data Firehose as JSON lines (the input record format conversion expects), which
 * Firehose turns into Parquet under `<table>/day=YYYY-MM-DD/`. Firehose bills each record rounded up to 5 KB, and a
 * row is ~1 KB, so rows are packed many to a record (up to 500 rows and 1,000 KiB) and the streams split them again
 * (multi-record deaggregation, before the day is read out of each row): a flush sends about one record per table,
 * not one per row. Rows wait in memory and go out as PutRecordBatch calls of at most 500 records and 4 MiB; records
 * a call reports as failed (`FailedPutCount`, `RequestResponses[i].ErrorCode`) are sent again with backoff, a
 * bounded number of times. Nothing here throws into a request: a row that cannot be sent is counted (rows, not
 * records) and logged.
 */
export class FirehoseSink implements LogEventSink {
  private queue: Queued[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private readonly retryDelaysMs: readonly number[];
  private readonly maxDelayMs: number;
  private queuedBytes = 0;
  /** Rows given up on since start (for logs and tests). */
  dropped = 0;

  constructor(private readonly options: FirehoseSinkOptions) {
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.maxDelayMs = options.maxDelayMs ?? 1_000;
  }

  append(table: EngineTable, rows: EngineRow[]): void {
    const sendAs = captureFunctionContext();
    for (const row of rows) {
      let record: Uint8Array;
      try {
        record = encodeRow(row, this.options.columns[table]);
      } catch (error) {
        this.drop(table, 1, `row could not be encoded: ${(error as Error).message}`);
        continue;
      }
      // Bodies are blob references, so a row this large is a defect upstream; Firehose would refuse the whole call.
      if (record.byteLength > MAX_BYTES_PER_RECORD) {
        this.drop(table, 1, `row of ${record.byteLength} bytes is over Firehose's ${MAX_BYTES_PER_RECORD}-byte record limit`);
        continue;
      }
      this.queue.push({ table, row: record, sendAs });
      this.queuedBytes += record.byteLength;
    }
    // A full record's worth of rows (or a call's worth of bytes) goes at once; otherwise a timer bounds how long
    // rows wait in a long-lived process.
    if (this.queue.length >= MAX_ROWS_PER_RECORD || this.queuedBytes >= MAX_BYTES_PER_CALL) this.startSending();
    else if (this.queue.length > 0) this.timer ??= setTimeout(() => this.startSending(), this.maxDelayMs).unref();
  }

  /** Sends everything queued and waits for every send in flight (the Lambda drain and shutdown call it). */
  async flush(): Promise<void> {
    this.startSending();
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  async close(): Promise<void> {
    await this.flush();
  }

  private startSending(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length === 0) return;
    const queued = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    for (const table of ['requests', 'spans'] as const) {
      const entries = queued.filter((entry) => entry.table === table);
      if (entries.length === 0) continue;
      const sendAs = entries[0].sendAs;
      for (const batch of batches(packRecords(entries.map((entry) => entry.row)))) {
        const sending: Promise<void> = sendAs(() => this.sendWithRetries(table, batch))
          .catch((error: unknown) => this.drop(table, rowsIn(batch), `PutRecordBatch failed: ${(error as Error).message}`))
          .finally(() => this.inFlight.delete(sending));
        this.inFlight.add(sending);
      }
    }
  }

  /** One call, then only the records it reported as failed, after each delay of the backoff. */
  private async sendWithRetries(table: EngineTable, records: PackedRecord[]): Promise<void> {
    let pending = records;
    let lastError: string | undefined;
    for (let attempt = 0; ; attempt++) {
      const result = await this.options.client.send(
        new PutRecordBatchCommand({ DeliveryStreamName: this.options.streams[table], Records: pending.map(({ record }) => ({ Data: record })) }),
      );
      if (!result.FailedPutCount) return;
      const responses = result.RequestResponses ?? [];
      const failed = pending.filter((_record, index) => responses[index]?.ErrorCode !== undefined || responses[index] === undefined);
      lastError = responses.find((response) => response.ErrorCode)?.ErrorCode ?? 'unknown';
      pending = failed;
      if (pending.length === 0) return;
      if (attempt >= this.retryDelaysMs.length) break;
      // Full jitter: retries from many sandboxes spread out instead of hitting the stream together.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * this.retryDelaysMs[attempt]));
    }
    this.drop(table, rowsIn(pending), `${pending.length} records (${rowsIn(pending)} rows) still failed after ${this.retryDelaysMs.length} retries (last error ${lastError})`);
  }

  private drop(table: EngineTable, count: number, reason: string): void {
    this.dropped += count;
    logger.error('request-log rows dropped', { table, count, reason });
  }
}

const rowsIn = (records: readonly PackedRecord[]) => records.reduce((sum, record) => sum + record.rows, 0);

/**
 * Packs rows (JSON lines of one table) into records of at most MAX_ROWS_PER_RECORD rows and MAX_BYTES_PER_RECORD
 * bytes, in order: the fewest records, each billed once (rounded up to 5 KB) instead of once per row.
 */
export function packRecords(rows: readonly Uint8Array[]): PackedRecord[] {
  const packed: PackedRecord[] = [];
  let current: Uint8Array[] = [];
  let bytes = 0;
  const close = () => {
    if (current.length === 0) return;
    packed.push({ record: Buffer.concat(current, bytes), rows: current.length });
    current = [];
    bytes = 0;
  };
  for (const row of rows) {
    if (current.length === MAX_ROWS_PER_RECORD || bytes + row.byteLength > MAX_BYTES_PER_RECORD) close();
    current.push(row);
    bytes += row.byteLength;
  }
  close();
  return packed;
}

/** Splits records into PutRecordBatch calls within both per-call limits, in order. */
export function batches<T extends { record: Uint8Array }>(entries: readonly T[]): T[][] {
  const calls: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const entry of entries) {
    if (current.length === MAX_RECORDS_PER_CALL || (current.length > 0 && bytes + entry.record.byteLength > MAX_BYTES_PER_CALL)) {
      calls.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += entry.record.byteLength;
  }
  if (current.length > 0) calls.push(current);
  return calls;
}
