import {
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  GetQueryRuntimeStatisticsCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
  type AthenaClient,
  type ColumnInfo,
  type QueryExecution,
} from '@aws-sdk/client-athena';
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { QueryEngine, QueryResult, SqlStatement } from '../types.js';
import { bindParameters } from './athena-parameters.js';
import { convertRows } from './athena-results.js';
import { AthenaQueryFailedError, AthenaQueryTimeoutError, InvalidExportDestinationError } from './athena-errors.js';
import { resolveCompactionMarkers } from './compaction-markers.js';
import type { CompactionStateReader } from './compaction-state.js';

export interface AthenaEngineOptions {
  athena: AthenaClient;
  /** Lists what an export wrote (ListObjectsV2 on the results bucket). */
  s3: S3Client;
  workgroup: string;
  /** The Glue database the tables are in; queries name tables without it. */
  database: string;
  /** A query still running after this long is stopped and fails. */
  timeoutMs: number;
  freshnessMs: number;
  /** Waits between GetQueryExecution polls; the last one repeats. */
  pollDelaysMs?: readonly number[];
  /** Rows per GetQueryResults page (Athena's maximum is 1,000). */
  pageSize?: number;
  /**
   * Which days are compacted (compaction-state.ts): every read's markers are replaced from it when the query starts,
   * so a day is read from exactly one side. Without it no day is compacted (every day is read raw).
   */
  compactionState?: Pick<CompactionStateReader, 'days'>;
}

/** Athena answers small queries in ~0.5–2 s: poll soon, then back off to a second. */
const DEFAULT_POLL_DELAYS_MS = [100, 200, 300, 500, 800, 1_000];

const UNLOAD_FORMATS = {
  parquet: "format = 'PARQUET', compression = 'SNAPPY'",
  jsonl: "format = 'JSON', compression = 'GZIP'",
  csv: "format = 'TEXTFILE', field_delimiter = ',', compression = 'GZIP'",
} as const;

/** What the engine itself writes after `TO`: only these characters, so the unparameterisable location needs no quoting. */
const EXPORT_DESTINATION = /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\/[A-Za-z0-9/_.=-]*\/$/;

/**
 * The query engine on AWS: Athena (Trino dialect) over the Glue tables Firehose fills. A query is started in the
 * stack's workgroup (its enforced configuration sets the result location, encryption and per-query scan limit),
 * polled with backoff, stopped when it outlives the timeout, and read page by page. Exports are UNLOAD jobs: the
 * job id is the query execution id, and the files it wrote are listed when it has succeeded.
 */
export class AthenaQueryEngine implements QueryEngine {
  readonly dialect = 'trino' as const;
  readonly freshnessMs: number;

  constructor(private readonly options: AthenaEngineOptions) {
    this.freshnessMs = options.freshnessMs;
  }

  async query(statement: SqlStatement): Promise<QueryResult> {
    const id = await this.start(statement.sql, statement.params);
    const execution = await this.waitForEnd(id);
    const rows = await this.readResults(id);
    return { rows, scannedBytes: execution.Statistics?.DataScannedInBytes };
  }

  async startExport(statement: SqlStatement, format: 'jsonl' | 'parquet' | 'csv', destination: string): Promise<{ jobId: string }> {
    return { jobId: await this.unload(statement, format, destination) };
  }

  /**
   * Starts `UNLOAD (statement) TO destination`; `partitionedBy` names trailing columns of the statement that become
   * Hive-style folders under the destination (`<column>=<value>/`) instead of columns of the files.
   */
  async unload(statement: SqlStatement, format: 'jsonl' | 'parquet' | 'csv', destination: string, partitionedBy: readonly string[] = []): Promise<string> {
    // The location cannot be a parameter (it is part of the statement), so it is held to a plain form instead.
    if (!EXPORT_DESTINATION.test(destination)) throw new InvalidExportDestinationError(destination);
    if (!partitionedBy.every((column) => /^[a-z_][a-z0-9_]*$/.test(column))) throw new Error(`bad partition column in ${partitionedBy.join(', ')}`);
    const partitions = partitionedBy.length ? `, partitioned_by = ARRAY[${partitionedBy.map((column) => `'${column}'`).join(', ')}]` : '';
    return this.start(`UNLOAD (${statement.sql}) TO '${destination}' WITH (${UNLOAD_FORMATS[format]}${partitions})`, statement.params);
  }

  /**
   * An export's state; once it has succeeded, the files it wrote and how many rows: UNLOAD returns no result set,
   * so the count is the query's runtime statistics (`Rows.OutputRows`, the rows its last stage wrote).
   */
  async exportStatus(jobId: string): Promise<{ state: 'running' | 'succeeded' | 'failed'; error?: string; outputs?: string[]; rows?: number }> {
    const execution = await this.execution(jobId);
    const state = execution.Status?.State;
    if (state === 'QUEUED' || state === 'RUNNING' || state === undefined) return { state: 'running' };
    if (state !== 'SUCCEEDED') return { state: 'failed', error: failureReason(execution) };
    const destination = unloadDestination(execution.Query ?? '');
    const [outputs, rows] = await Promise.all([destination ? this.listObjects(destination) : Promise.resolve([]), this.outputRows(jobId)]);
    return { state: 'succeeded', outputs, ...(rows === undefined ? {} : { rows }) };
  }

  /** Stops a query (a job that must not outlive its caller); one that has already ended is left as it is. */
  async stop(id: string): Promise<void> {
    await this.options.athena.send(new StopQueryExecutionCommand({ QueryExecutionId: id }));
  }

  private async outputRows(id: string): Promise<number | undefined> {
    const { QueryRuntimeStatistics: statistics } = await this.options.athena.send(new GetQueryRuntimeStatisticsCommand({ QueryExecutionId: id }));
    const rows = statistics?.Rows?.OutputRows;
    return typeof rows === 'number' && Number.isSafeInteger(rows) && rows >= 0 ? rows : undefined;
  }

  private async start(text: string, params: SqlStatement['params']): Promise<string> {
    const state = this.options.compactionState;
    const resolved = await resolveCompactionMarkers(text, params, (table) => (state ? state.days(table) : Promise.resolve(new Map())));
    // Values that cannot be one parameter (too long, or holding a NUL) are bound as several (athena-parameters.ts).
    const { sql, parameters } = bindParameters(resolved, params);
    const started = await this.options.athena.send(
      new StartQueryExecutionCommand({
        QueryString: sql,
        ExecutionParameters: parameters,
        WorkGroup: this.options.workgroup,
        QueryExecutionContext: { Database: this.options.database },
      }),
    );
    if (!started.QueryExecutionId) throw new AthenaQueryFailedError('Athena returned no query execution id', 'UNKNOWN');
    return started.QueryExecutionId;
  }

  private async execution(id: string): Promise<QueryExecution> {
    const { QueryExecution: execution } = await this.options.athena.send(new GetQueryExecutionCommand({ QueryExecutionId: id }));
    return execution ?? {};
  }

  /** Polls until the query ends; past the timeout it is stopped, so it neither runs nor bills on. */
  private async waitForEnd(id: string): Promise<QueryExecution> {
    const delays = this.options.pollDelaysMs ?? DEFAULT_POLL_DELAYS_MS;
    const giveUpAt = Date.now() + this.options.timeoutMs;
    for (let poll = 0; ; poll++) {
      const execution = await this.execution(id);
      const state = execution.Status?.State;
      if (state === 'SUCCEEDED') return execution;
      if (state === 'FAILED' || state === 'CANCELLED') throw new AthenaQueryFailedError(failureReason(execution), state, execution.Status?.AthenaError?.ErrorType);
      if (Date.now() >= giveUpAt) {
        await this.options.athena.send(new StopQueryExecutionCommand({ QueryExecutionId: id })).catch(() => undefined);
        throw new AthenaQueryTimeoutError(this.options.timeoutMs);
      }
      await new Promise((resolve) => setTimeout(resolve, delays[Math.min(poll, delays.length - 1)]));
    }
  }

  private async readResults(id: string): Promise<Array<Record<string, unknown>>> {
    const rows: Array<Record<string, unknown>> = [];
    let columns: ColumnInfo[] = [];
    let nextToken: string | undefined;
    let firstPage = true;
    do {
      const page = await this.options.athena.send(new GetQueryResultsCommand({ QueryExecutionId: id, NextToken: nextToken, MaxResults: this.options.pageSize ?? 1_000 }));
      if (firstPage) columns = page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? [];
      rows.push(...convertRows(page.ResultSet?.Rows ?? [], columns, firstPage));
      nextToken = page.NextToken;
      firstPage = false;
    } while (nextToken);
    return rows;
  }

  private async listObjects(destination: string): Promise<string[]> {
    const { bucket, prefix } = splitS3Url(destination);
    const outputs: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.options.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) if (object.Key) outputs.push(`s3://${bucket}/${object.Key}`);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return outputs.sort();
  }
}

function failureReason(execution: QueryExecution): string {
  const status = execution.Status;
  return status?.StateChangeReason ?? status?.AthenaError?.ErrorMessage ?? `query ${status?.State?.toLowerCase() ?? 'ended'} without a reason`;
}

/** The `TO '…'` location of an UNLOAD this engine started (its query text comes back with the execution). */
export function unloadDestination(query: string): string | undefined {
  const match = /\) TO '(s3:\/\/[^']+)' WITH \(format = '[A-Z]+'.*\)$/s.exec(query);
  return match?.[1];
}

function splitS3Url(url: string): { bucket: string; prefix: string } {
  const rest = url.slice('s3://'.length);
  const slash = rest.indexOf('/');
  return { bucket: rest.slice(0, slash), prefix: rest.slice(slash + 1) };
}
