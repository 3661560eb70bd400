import type { EngineRow } from '../types.js';
import { dataColumns, type EngineColumnSpec } from './table-columns.js';

const encoder = new TextEncoder();

/**
 * One row as the JSON line Firehose's record format conversion reads with the Hive JSON SerDe into the Glue
 * table's columns: only the table's data columns (the `day` partition comes from the delivery prefix), a
 * timestamp as `yyyy-MM-dd HH:mm:ss.SSS` in UTC (what the SerDe parses by default, java.sql.Timestamp's form),
 * a map as a JSON object of strings, missing values as null. One object per record, ended by a newline.
 */
export function encodeRow(row: EngineRow, columns: readonly EngineColumnSpec[]): Uint8Array {
  const out: Record<string, unknown> = {};
  for (const column of dataColumns(columns)) {
    const value = row[column.name];
    out[column.name] = value === undefined || value === null ? null : convert(value, column);
  }
  return encoder.encode(`${JSON.stringify(out)}\n`);
}

function convert(value: NonNullable<EngineRow[string]>, column: EngineColumnSpec): unknown {
  switch (column.type) {
    case 'timestamp':
      return hiveTimestamp(value, column.name);
    case 'map<string,string>':
      if (typeof value !== 'object') throw new Error(`${column.name}: expected a map, got ${typeof value}`);
      return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, String(entry)]));
    case 'bigint':
    case 'double':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`${column.name}: expected a finite number`);
      return column.type === 'bigint' ? Math.trunc(value) : value;
    case 'boolean':
      return Boolean(value);
    case 'string':
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

/** Epoch milliseconds or an ISO 8601 string → `2026-11-27 10:15:03.123` (UTC). */
export function hiveTimestamp(value: unknown, name = 'timestamp'): string {
  const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw new Error(`${name}: not a timestamp`);
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}
