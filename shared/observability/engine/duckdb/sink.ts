import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import { TABLE_COLUMNS, type LogicalType } from '../columns.js';
import type { EngineRow, EngineTable, LogEventSink } from '../types.js';

/** The parts of @duckdb/node-api the sink uses, passed in so this module never loads the native package itself. */
export interface DuckDbValues {
  mapValue(entries: Array<{ key: string; value: string }>): unknown;
  timestamp(epochMicros: bigint): unknown;
  mapType: unknown;
}

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
  }

  private async write(table: EngineTable, rows: EngineRow[]): Promise<void> {
    const appender: DuckDBAppender = await this.connection.createAppender(table);
    const columns = TABLE_COLUMNS[table];
    try {
      for (const row of rows) {
        for (const column of columns) this.appendValue(appender, column.type, row[column.name]);
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }

  private appendValue(appender: DuckDBAppender, type: LogicalType, value: EngineRow[string] | undefined): void {
    if (value === null || value === undefined) {
      if (type === 'map<string,string>') appender.appendValue(this.values.mapValue([]) as never, this.values.mapType as never);
      else appender.appendNull();
      return;
    }
    switch (type) {
      case 'string':
        appender.appendVarchar(typeof value === 'string' ? value : JSON.stringify(value));
        return;
      case 'bigint': {
        const number = Number(value);
        if (Number.isFinite(number)) appender.appendBigInt(BigInt(Math.trunc(number)));
        else appender.appendNull();
        return;
      }
      case 'double': {
        const number = Number(value);
        if (Number.isFinite(number)) appender.appendDouble(number);
        else appender.appendNull();
        return;
      }
      case 'boolean':
        appender.appendBoolean(value === true || value === 'true');
        return;
      case 'timestamp': {
        const millis = Date.parse(/[zZ]$/.test(String(value)) ? String(value) : `${String(value).replace(' ', 'T')}Z`);
        if (Number.isFinite(millis)) appender.appendTimestamp(this.values.timestamp(BigInt(millis) * 1000n) as never);
        else appender.appendNull();
        return;
      }
      case 'map<string,string>': {
        const entries = typeof value === 'object' ? Object.entries(value).map(([key, entry]) => ({ key, value: String(entry) })) : [];
        appender.appendValue(this.values.mapValue(entries) as never, this.values.mapType as never);
        return;
      }
    }
  }
}
