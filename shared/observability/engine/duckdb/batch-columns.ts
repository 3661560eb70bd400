import type { DuckDBDataChunk } from '@duckdb/node-api';
import type { RequestLogRecord } from '../../log-record.js';
import type { SpanRecord } from '../../spans.js';
import { REQUEST_VALUES, SPAN_VALUES, TABLE_COLUMNS, type LogicalType } from '../columns.js';
import type { EngineRow, EngineTable } from '../types.js';

/** The parts of @duckdb/node-api the writer uses, passed in so this module never loads the native package itself. */
export interface DuckDbValues {
  mapValue(entries: Array<{ key: string; value: string }>): unknown;
  timestamp(epochMicros: bigint): unknown;
  /** A data chunk of `table`'s column types holding `columns` (one array of values per column). */
  chunk(table: EngineTable, columns: unknown[][]): DuckDBDataChunk;
}

/** What one write holds: rows appended as rows, and whole records whose rows are made only now. */
export interface Batch {
  rows: Record<EngineTable, EngineRow[]>;
  records: RequestLogRecord[];
}

export function emptyBatch(): Batch {
  return { rows: { requests: [], spans: [] }, records: [] };
}

/**
 * A batch's values of each table, column by column, each value already in its column's type (issue #34: no
 * object per row): appended rows first, then the records' rows read straight from the records. Every value is
 * coerced, so no row can break a batch (a broken appender would lose its neighbours).
 */
export class BatchColumns {
  // Most requests carry no metadata: one empty map value serves them all.
  private readonly emptyMap: unknown;

  constructor(private readonly values: DuckDbValues) {
    this.emptyMap = values.mapValue([]);
  }

  of(table: EngineTable, batch: Batch): unknown[][] {
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
