import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DuckDBInstance, DuckDBType } from '@duckdb/node-api';
import { TABLE_COLUMNS, type LogicalType } from '../columns.js';
import type { EngineTable } from '../types.js';
import type { DuckDbValues } from './batch-columns.js';
import { migrateTable } from './migrate.js';
import { createTableSql } from './schema.js';

export interface OpenOptions {
  /** A file (its folder is created), or `:memory:`. */
  path: string;
  /** Where DuckDB may spill a sort or an export that outgrows `memoryLimit`. */
  spillDirectory: string;
  /** DuckDB's memory_limit, e.g. `256MB`: exports and big queries spill past it instead of growing the process. */
  memoryLimit: string;
}

/**
 * Opens (or creates) the request-log database with its tables, and the value makers the writer needs. Loads the
 * native package here, in the worker thread: the gateway's own thread never does.
 */
export async function openDuckDb(options: OpenOptions): Promise<{ instance: DuckDBInstance; values: DuckDbValues }> {
  const duckdb = await import('@duckdb/node-api');
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  mkdirSync(options.spillDirectory, { recursive: true });
  const instance = await duckdb.DuckDBInstance.create(options.path, {
    memory_limit: options.memoryLimit,
    temp_directory: options.spillDirectory,
    // Exports need no particular row order across threads; this lets COPY stream instead of buffering.
    preserve_insertion_order: 'false',
  });
  try {
    const setup = await instance.connect();
    await setup.run(createTableSql('requests'));
    await setup.run(createTableSql('spans'));
    // A file from an earlier gw lacks the newest columns: added (null on its rows) before anything is appended.
    await migrateTable(setup, 'requests');
    await migrateTable(setup, 'spans');
    setup.closeSync();
  } catch (error) {
    instance.closeSync();
    throw error;
  }
  const types: Record<LogicalType, DuckDBType> = {
    string: duckdb.VARCHAR,
    bigint: duckdb.BIGINT,
    double: duckdb.DOUBLE,
    boolean: duckdb.BOOLEAN,
    timestamp: duckdb.TIMESTAMP,
    'map<string,string>': duckdb.MAP(duckdb.VARCHAR, duckdb.VARCHAR),
  };
  const columnTypes: Record<EngineTable, DuckDBType[]> = {
    requests: TABLE_COLUMNS.requests.map((column) => types[column.type]),
    spans: TABLE_COLUMNS.spans.map((column) => types[column.type]),
  };
  const values: DuckDbValues = {
    mapValue: (entries) => duckdb.mapValue(entries),
    timestamp: (micros) => new duckdb.DuckDBTimestampValue(micros),
    chunk: (table, columns) => {
      const chunk = duckdb.DuckDBDataChunk.create(columnTypes[table], columns[0]?.length ?? 0);
      chunk.setColumns(columns as never);
      return chunk;
    },
  };
  return { instance, values };
}
