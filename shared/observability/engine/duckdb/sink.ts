import type { DuckDBAppender, DuckDBConnection, DuckDBDataChunk } from '@duckdb/node-api';
import { TABLE_COLUMNS, type LogicalType } from '../columns.js';
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

/** Rows wait at most this long (or until MAX_BUFFERED): a request is readable well within a second of its end. */
export const FLUSH_DELAY_MS = 200;
const MAX_BUFFERED = 5_000;

/**
 * Appends rows to the DuckDB tables in batches: one appender per table and flush, on a connection of its own.
 * Every value is coerced to its column's type before it is appended, so no row can break a batch (a broken
 * appender would lose its neighbours); a flush that fails anyway is logged with its size and dropped.
 */
export class DuckDbSink implements LogEventSink {
  private readonly buffered: Record<EngineTable, EngineRow[]> = { requests: [], spans: [] };
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly appenders: Partial<Record<EngineTable, DuckDBAppender>> = {};

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly values: DuckDbValues,
    private readonly onError: (message: string, error: unknown) => void,
  ) {}

  append(table: EngineTable, rows: EngineRow[]): void {
    if (this.closed || rows.length === 0) return;
    this.buffered[table].push(...rows);
    if (this.buffered.requests.length + this.buffered.spans.length >= MAX_BUFFERED) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS).unref();
  }

  /** Writes what is buffered; each flush runs after the one before, and returns once its rows are committed. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batches = (Object.keys(this.buffered) as EngineTable[]).map((table) => [table, this.buffered[table].splice(0)] as const);
    const current = this.flushing.then(async () => {
      for (const [table, rows] of batches) {
        if (rows.length === 0) continue;
        try {
          await this.write(table, rows);
        } catch (error) {
          this.onError(`could not append ${rows.length} ${table} rows to DuckDB`, error);
        }
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

  /** One appender per table and flush, fed column-wise in data chunks (half the CPU of appending value by value). */
  private async write(table: EngineTable, rows: EngineRow[]): Promise<void> {
    // One appender per table for the sink's life: creating and closing one per flush cost more than the rows.
    const appender = (this.appenders[table] ??= await this.connection.createAppender(table));
    const columns = TABLE_COLUMNS[table];
    try {
      for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
        const part = rows.slice(start, start + CHUNK_ROWS);
        appender.appendDataChunk(this.values.chunk(table, columns.map((column) => part.map((row) => this.coerce(column.type, row[column.name])))));
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
    if (value === null || value === undefined) return type === 'map<string,string>' ? this.values.mapValue([]) : null;
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
        const millis = Date.parse(/[zZ]$/.test(String(value)) ? String(value) : `${String(value).replace(' ', 'T')}Z`);
        return Number.isFinite(millis) ? this.values.timestamp(BigInt(millis) * 1000n) : null;
      }
      case 'map<string,string>':
        return this.values.mapValue(typeof value === 'object' ? Object.entries(value).map(([key, entry]) => ({ key, value: String(entry) })) : []);
    }
  }
}
