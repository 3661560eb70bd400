import { setImmediate as nextTurn } from 'node:timers/promises';
import type { DuckDBAppender, DuckDBConnection, DuckDBDataChunk } from '@duckdb/node-api';
import type { RequestLogRecord } from '../../log-record.js';
import type { SpanRecord } from '../../spans.js';
import { REQUEST_VALUES, SPAN_VALUES, TABLE_COLUMNS, type LogicalType } from '../columns.js';
import type { EngineRow, EngineTable, LogEventSink } from '../types.js';

/** The parts of @duckdb/node-api the sink uses, passed in so this module never loads the native package itself. */
export interface DuckDbValues {
  mapValue(entries: Array<{ key: string; value: string }>): unknown;
  timestamp(epochMicros: bigint): unknown;
  /** A data chunk of `table`'s column types holding `columns` (one array of values per column). */
  chunk(table: EngineTable, columns: unknown[][]): DuckDBDataChunk;
}

/** DuckDB's vector size: a data chunk holds at most this many rows. */
const CHUNK_ROWS = 2_048;

/**
 * Rows wait at most this long (or until MAX_BUFFERED): a request is readable within a second of its end. A flush
 * costs DuckDB's CPU ~3–4 ms for the two tables whatever its size (a transaction's local storage, then its commit),
 * on top of its rows: every 200 ms that was ~37 µs of each request at 500 req/s, every 500 ms ~15 (issue #34).
 */
export const FLUSH_DELAY_MS = 500;
const MAX_BUFFERED = 5_000;

/** What waits for a flush: rows appended as rows, and whole records whose rows are made only when they flush. */
interface Pending {
  rows: Record<EngineTable, EngineRow[]>;
  records: RequestLogRecord[];
  /** Rows the records will make: span rows count, as they cost the flush as much as request rows. */
  recordRows: number;
}

/**
 * Appends rows to the DuckDB tables in batches: one appender per table and flush, on a connection of its own.
 * The after-path hands over whole records (`appendRecord`): their `requests` and `spans` rows are built column by
 * column when they flush (issue #34), off the request and without an object per row. Every value is coerced to
 * its column's type before it is appended, so no row can break a batch (a broken appender would lose its
 * neighbours); a flush that fails anyway is logged with its size and dropped.
 */
export class DuckDbSink implements LogEventSink {
  private pending: Pending = emptyPending();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly appenders: Partial<Record<EngineTable, DuckDBAppender>> = {};
  // Most requests carry no metadata: one empty map value serves them all.
  private readonly emptyMap: unknown;

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly values: DuckDbValues,
    private readonly onError: (message: string, error: unknown) => void,
  ) {
    this.emptyMap = values.mapValue([]);
  }

  append(table: EngineTable, rows: EngineRow[]): void {
    if (this.closed || rows.length === 0) return;
    for (const row of rows) this.pending.rows[table].push(row);
    this.scheduleFlush();
  }

  /** A request's record, as its `requests` row and one `spans` row per span (see `REQUEST_VALUES`, `SPAN_VALUES`). */
  appendRecord(record: RequestLogRecord): void {
    if (this.closed) return;
    this.pending.records.push(record);
    this.pending.recordRows += 1 + (record.spans?.length ?? 0);
    this.scheduleFlush();
  }

  /** Writes what is buffered; each flush runs after the one before, and returns once its rows are committed. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = emptyPending();
    const current = this.flushing.then(async () => {
      for (const table of ['requests', 'spans'] as const) {
        let rows = 0;
        try {
          const columns = this.columnsOf(table, batch);
          rows = columns[0]?.length ?? 0;
          if (rows > 0) await this.write(table, columns);
        } catch (error) {
          this.onError(`could not append ${rows} ${table} rows to DuckDB`, error);
        }
        // Each table's commit blocks the event loop (~20 µs a record under load, issue #34): requests waiting
        // meanwhile are served between the two instead of after both.
        await nextTurn();
      }
    });
    this.flushing = current;
    return current;
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    for (const table of Object.keys(this.appenders) as EngineTable[]) this.appenders[table]?.closeSync();
  }

  private scheduleFlush(): void {
    const { rows, recordRows } = this.pending;
    if (rows.requests.length + rows.spans.length + recordRows >= MAX_BUFFERED) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS).unref();
  }

  /**
   * The batch's values of `table`, one array per column in the table's order, each value already in its column's
   * type: the appended rows first, then the records' rows, read straight from the records (no row objects).
   */
  private columnsOf(table: EngineTable, batch: Pending): unknown[][] {
    const rows = batch.rows[table];
    if (table === 'requests') {
      return TABLE_COLUMNS.requests.map(({ name, type }) => {
        const read = REQUEST_VALUES[name];
        const values: unknown[] = rows.map((row) => this.coerce(type, row[name]));
        for (const record of batch.records) values.push(this.coerce(type, readSafely(() => read(record))));
        return values;
      });
    }
    const spans: SpanRecord[] = [];
    const owners: RequestLogRecord[] = [];
    for (const record of batch.records) {
      for (const span of record.spans ?? []) {
        spans.push(span);
        owners.push(record);
      }
    }
    return TABLE_COLUMNS.spans.map(({ name, type }) => {
      const read = SPAN_VALUES[name];
      const values: unknown[] = rows.map((row) => this.coerce(type, row[name]));
      for (let index = 0; index < spans.length; index++) values.push(this.coerce(type, readSafely(() => read(spans[index], owners[index]))));
      return values;
    });
  }

  /** One appender per table and flush, fed column-wise in data chunks (half the CPU of appending value by value). */
  private async write(table: EngineTable, columns: unknown[][]): Promise<void> {
    // One appender per table for the sink's life: creating and closing one per flush cost more than the rows.
    const appender = (this.appenders[table] ??= await this.connection.createAppender(table));
    const rows = columns[0]?.length ?? 0;
    try {
      for (let start = 0; start < rows; start += CHUNK_ROWS) {
        appender.appendDataChunk(this.values.chunk(table, rows <= CHUNK_ROWS ? columns : columns.map((values) => values.slice(start, start + CHUNK_ROWS))));
      }
      appender.flushSync();
    } catch (error) {
      // An appender that failed is not used again: the next flush makes a new one.
      this.appenders[table] = undefined;
      try {
        appender.closeSync();
      } catch {
        // Already broken: nothing more to release.
      }
      throw error;
    }
  }

  /** The value in its column's type, or null: never a value the column would refuse. */
  private coerce(type: LogicalType, value: EngineRow[string] | undefined): unknown {
    if (value === null || value === undefined) return type === 'map<string,string>' ? this.emptyMap : null;
    switch (type) {
      case 'string':
        return typeof value === 'string' ? value : JSON.stringify(value);
      case 'bigint': {
        const number = Number(value);
        return Number.isFinite(number) ? BigInt(Math.trunc(number)) : null;
      }
      case 'double': {
        const number = Number(value);
        return Number.isFinite(number) ? number : null;
      }
      case 'boolean':
        return value === true || value === 'true';
      case 'timestamp': {
        const text = String(value);
        const millis = Date.parse(text.endsWith('Z') || text.endsWith('z') ? text : `${text.replace(' ', 'T')}Z`);
        return Number.isFinite(millis) ? this.values.timestamp(BigInt(millis) * 1000n) : null;
      }
      case 'map<string,string>': {
        const entries = typeof value === 'object' ? Object.entries(value) : [];
        return entries.length === 0 ? this.emptyMap : this.values.mapValue(entries.map(([key, entry]) => ({ key, value: String(entry) })));
      }
    }
  }
}

/**
 * A value read from a record, or null when reading it throws (an unparseable time): the row still has every
 * column, so the batch's columns stay aligned and its other rows are written.
 */
function readSafely(read: () => EngineRow[string]): EngineRow[string] {
  try {
    return read();
  } catch {
    return null;
  }
}

function emptyPending(): Pending {
  return { rows: { requests: [], spans: [] }, records: [], recordRows: 0 };
}
