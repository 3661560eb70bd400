/**
 * The contract between the gateway's after-path, the engines that hold request logs, and the read APIs
 * (issue #32). Locally DuckDB implements both ports in process; on AWS the sink is Firehose (records land in
 * S3 as Parquet, partitioned by `day`) and the query engine is Athena over a Glue table with the same
 * columns. `columns.ts` is the one column list both the DuckDB DDL and the Glue table are built from.
 */

import type { AnswerMarker } from '../answer-marker.js';
import type { RequestLogRecord } from '../log-record.js';

/** One flat row of the `requests` or `spans` table; values are already in the column's type. */
export type EngineRow = Record<string, string | number | boolean | null | Record<string, string>>;

export type EngineTable = 'requests' | 'spans';

/** Where the after-path appends rows. Appends are buffered; nothing here can fail a request. */
export interface LogEventSink {
  append(table: EngineTable, rows: EngineRow[]): void;
  /**
   * A sink that builds its rows when it flushes takes the whole (redacted, never changed again) record instead:
   * its `requests` row and its `spans` rows are made in bulk off the request (DuckDB, issue #34). Without it the
   * after-path appends the rows (`requestRow`, `spanRows`).
   */
  appendRecord?(record: RequestLogRecord): void;
  /**
   * A sink that can lose the after-path's record to a crash (the local journal) takes a marker of each answer
   * before it is released (issue #42); the record written later supersedes it.
   */
  appendAnswer?(marker: AnswerMarker): void;
  /** Sends what is buffered; a Lambda drain and the local shutdown await it. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** SQL dialects the one query builder renders. */
export type SqlDialect = 'duckdb' | 'trino';

/** A parameterised statement: `?` placeholders, bound positionally, never spliced into the text. */
export interface SqlStatement {
  sql: string;
  params: Array<string | number | boolean | null>;
}

export interface QueryResult {
  /**
   * Column name → value. Engines may hand values over as their drivers give them (DuckDB: numbers, Dates, map
   * entries; Athena: text): the read side reads every known column by its logical type (rows.ts).
   */
  rows: Array<Record<string, unknown>>;
  /** Bytes the engine read for the query, where it reports them (Athena); undefined for DuckDB. */
  scannedBytes?: number;
}

/** Runs statements rendered for its dialect. Exports run as jobs, never inside a request's time limit. */
export interface QueryEngine {
  readonly dialect: SqlDialect;
  query(statement: SqlStatement): Promise<QueryResult>;
  /** Starts writing the statement's result to `destination` (a file path locally, an s3:// prefix on AWS). */
  startExport(statement: SqlStatement, format: 'jsonl' | 'parquet' | 'csv', destination: string): Promise<{ jobId: string }>;
  exportStatus(jobId: string): Promise<{ state: 'running' | 'succeeded' | 'failed'; error?: string; outputs?: string[]; rows?: number }>;
  /** How fresh reads are: rows appended more than this long ago are visible (ms). */
  readonly freshnessMs: number;
}
