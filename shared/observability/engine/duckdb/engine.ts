import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import type { DuckDBConnection, DuckDBInstance, DuckDBType } from '@duckdb/node-api';
import { sqlTimestamp, TABLE_COLUMNS, type LogicalType } from '../columns.js';
import type { EngineTable, LogEventSink, QueryEngine, QueryResult, SqlStatement } from '../types.js';
import { createTableSql } from './schema.js';
import { DuckDbSink, FLUSH_DELAY_MS } from './sink.js';

export interface DuckDbLogEngineOptions {
  /** A file (its folder is created), or `:memory:`. */
  path: string;
  /** Where DuckDB may spill a sort or an export that outgrows `memoryLimit`. */
  spillDirectory: string;
  /** DuckDB's memory_limit, e.g. `256MB`: exports and big queries spill past it instead of growing the process. */
  memoryLimit: string;
  /** Rows older than this (ms) are deleted, at start and then every `retentionIntervalMs`. */
  retentionMs: number;
  retentionIntervalMs: number;
  onError: (message: string, error: unknown) => void;
}

export interface DuckDbLogEngine {
  sink: LogEventSink;
  engine: QueryEngine & {
    /** Deletes rows older than the cutoff; returns how many requests went. */
    deleteOlderThan(cutoffIso: string): Promise<number>;
  };
}

type ExportJob = { state: 'running' | 'succeeded' | 'failed'; error?: string; outputs?: string[]; rows?: number };

// Parquet row groups of 16,384 rows: the writer buffers a row group per thread, and the default (122,880) held ~130 MiB.
const FORMATS = { jsonl: 'FORMAT json', parquet: 'FORMAT parquet, ROW_GROUP_SIZE 16384', csv: 'FORMAT csv, HEADER true' } as const;

/**
 * Request logs in an embedded DuckDB (issue #32): one file under the data directory (or memory), the tables made
 * from the column list, a batched appender as the sink, a connection per query, exports as COPY jobs, retention
 * as a delete by time. `@duckdb/node-api` is a native package: it is imported here, on first use, and never by
 * the gateway's cold path (select.ts loads this module only when the DuckDB engine is chosen).
 */
export async function openDuckDbLogEngine(options: DuckDbLogEngineOptions): Promise<DuckDbLogEngine> {
  const duckdb = await import('@duckdb/node-api');
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  mkdirSync(options.spillDirectory, { recursive: true });
  const instance: DuckDBInstance = await duckdb.DuckDBInstance.create(options.path, {
    memory_limit: options.memoryLimit,
    temp_directory: options.spillDirectory,
    // Exports need no particular row order across threads; this lets COPY stream instead of buffering.
    preserve_insertion_order: 'false',
  });
  const setup = await instance.connect();
  await setup.run(createTableSql('requests'));
  await setup.run(createTableSql('spans'));
  setup.closeSync();

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
  const sink = new DuckDbSink(
    await instance.connect(),
    {
      mapValue: (entries) => duckdb.mapValue(entries),
      timestamp: (micros) => new duckdb.DuckDBTimestampValue(micros),
      chunk: (table, columns) => {
        const chunk = duckdb.DuckDBDataChunk.create(columnTypes[table], columns[0]?.length ?? 0);
        chunk.setColumns(columns as never);
        return chunk;
      },
    },
    options.onError,
  );

  const withConnection = async <T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> => {
    const connection = await instance.connect();
    try {
      return await work(connection);
    } finally {
      connection.closeSync();
    }
  };

  const jobs = new Map<string, ExportJob>();
  const running = new Set<Promise<unknown>>();

  const deleteOlderThan = async (cutoffIso: string): Promise<number> =>
    withConnection(async (connection) => {
      const cutoff = sqlTimestamp(cutoffIso);
      const requests = await connection.run('DELETE FROM requests WHERE created_at < CAST(? AS TIMESTAMP)', [cutoff]);
      await connection.run('DELETE FROM spans WHERE start_time < CAST(? AS TIMESTAMP)', [cutoff]);
      return requests.rowsChanged;
    });
  const applyRetention = () => deleteOlderThan(new Date(Date.now() - options.retentionMs).toISOString()).catch((error: unknown) => options.onError('request-log retention failed', error));
  await applyRetention();
  const retentionTimer = options.retentionIntervalMs > 0 ? setInterval(() => void applyRetention(), options.retentionIntervalMs).unref() : undefined;

  const engine: DuckDbLogEngine['engine'] = {
    dialect: 'duckdb',
    freshnessMs: FLUSH_DELAY_MS,
    async query(statement: SqlStatement): Promise<QueryResult> {
      const reader = await withConnection((connection) => connection.runAndReadAll(statement.sql, statement.params));
      return { rows: reader.getRowObjectsJS().map(plainRow) };
    },
    async startExport(statement, format, destination) {
      if (!isAbsolute(destination) || /['\\\0]/.test(destination)) throw new Error(`not a safe export path: ${destination}`);
      mkdirSync(dirname(destination), { recursive: true });
      const jobId = `duckdb-${randomUUID()}`;
      const job: ExportJob = { state: 'running' };
      jobs.set(jobId, job);
      // The path is made by gw (checked above), never by a caller: COPY takes no parameter for it.
      const copy = `COPY (${statement.sql}) TO '${destination}' (${FORMATS[format]})`;
      const work = withConnection((connection) => connection.run(copy, statement.params))
        .then((result) => Object.assign(job, { state: 'succeeded', outputs: [destination], rows: result.rowsChanged }))
        .catch((error: unknown) => {
          options.onError('export failed', error);
          Object.assign(job, { state: 'failed', error: 'The export could not be written; try again' });
        })
        .finally(() => running.delete(work));
      running.add(work);
      return { jobId };
    },
    async exportStatus(jobId) {
      // A job of an earlier process (restarted meanwhile) is gone with it.
      return jobs.get(jobId) ?? { state: 'failed', error: 'The export was interrupted (gw restarted); start it again' };
    },
    deleteOlderThan,
  };

  return {
    engine,
    sink: {
      append: (table, rows) => sink.append(table, rows),
      appendRecord: (record) => sink.appendRecord(record),
      // A drain (local shutdown, tests) also waits for exports in flight, so none is cut half written.
      flush: async () => {
        await sink.flush();
        await Promise.allSettled([...running]);
      },
      close: async () => {
        clearInterval(retentionTimer);
        await sink.close();
        await Promise.allSettled([...running]);
        instance.closeSync();
      },
    },
  };
}

/** Plain JSON-like values: bigints (counts, sums of BIGINT) as numbers, timestamps as ISO strings. */
function plainRow(row: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    result[name] = typeof value === 'bigint' ? Number(value) : value instanceof Date ? value.toISOString() : value;
  }
  return result;
}
