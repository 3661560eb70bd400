import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, DuckDBMapValue, DuckDBTimestampValue, type DuckDBConnection } from '@duckdb/node-api';
import { TABLE_COLUMNS, duckDbType } from '../../../shared/observability/engine/columns.js';
import type { EngineTable } from '../../../shared/observability/engine/types.js';
import type { ObjectBacking } from '../../../shared/store/recording/stand-ins/s3-stand-in.js';
import type { StandInAuthorizer } from '../../../shared/store/recording/stand-ins/wire.js';
import type { DeliveredRow } from './firehose-stand-in.js';
import { AwsServiceError, accessDenied, jsonProtocolHandler } from './json-protocol.js';
import { parseUnload, spliceParameters, translateTrino, type Unload } from './trino-to-duckdb.js';

/**
 * Amazon Athena on loopback, as far as the control plane's engine uses it (athena-engine.ts): StartQueryExecution
 * with ExecutionParameters, GetQueryExecution, GetQueryResults pages, StopQueryExecution, each checked against the
 * caller's statements on the execution's workgroup. A query runs in the background (the engine polls) on an
 * in-memory DuckDB holding, as the Glue tables `requests` and `spans`, the rows the Firehose stand-in received on
 * the stack's streams. As on Athena, the query touches the catalog and the buckets with the caller's own
 * permissions: the Glue table it reads, the data bucket, and a PutObject of what it writes into the results bucket
 * (here: the S3 stand-in's objects): a SELECT's result as CSV under the workgroup's result location, an UNLOAD's
 * file under its `TO` prefix and its manifest under the result location. Results come back in Athena's ResultSet shape: every value as
 * text, NULL as no value, a header row first on a SELECT's first page, Trino's type names in ColumnInfo.
 */
export interface AthenaStandInOptions {
  region: string;
  account: string;
  workgroup: string;
  database: string;
  /** Each table's delivery stream rows (the Firehose stand-in's). */
  tables: Record<EngineTable, () => readonly DeliveredRow[]>;
  /** The bucket Firehose delivers to (Athena lists it with the caller's permissions). */
  dataBucket: string;
  /** The workgroup's enforced result location (`s3://<results bucket>/results/`): each query's CSV goes there. */
  outputLocation: string;
  /** Buckets queries may write into (results, UNLOAD), by name. */
  buckets: Record<string, ObjectBacking>;
  authorize: StandInAuthorizer;
}

interface Execution {
  id: string;
  query: string;
  workgroup: string;
  parameters: string[];
  state: 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
  reason?: string;
  submitted: number;
  completed?: number;
  columns: Array<{ name: string; type: string }>;
  /** Every value as Athena's text, null for NULL. */
  rows: Array<Array<string | null>>;
  unload: boolean;
}

export interface AthenaStandIn {
  handler: ReturnType<typeof jsonProtocolHandler>;
  /** Every execution, by id (for assertions: the query text as the engine sent it). */
  executions: Map<string, Execution>;
  close(): Promise<void>;
}

/** DuckDB's type → the Trino type name Athena reports (sums of BIGINT are BIGINT in Trino, HUGEINT in DuckDB). */
function trinoType(duckdb: string): string {
  if (/^(HUGEINT|BIGINT|UBIGINT)$/.test(duckdb)) return 'bigint';
  if (/^(INTEGER|SMALLINT|TINYINT)$/.test(duckdb)) return duckdb.toLowerCase();
  if (/^(DOUBLE|FLOAT)$/.test(duckdb)) return 'double';
  if (duckdb.startsWith('DECIMAL')) return 'decimal';
  if (duckdb.startsWith('TIMESTAMP')) return 'timestamp';
  if (duckdb.startsWith('MAP')) return 'map';
  if (duckdb.endsWith('[]')) return 'array';
  return { BOOLEAN: 'boolean', DATE: 'date' }[duckdb] ?? 'varchar';
}

/** One value as Athena renders it: timestamps with milliseconds, maps as `{k=v, …}`. */
function athenaText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof DuckDBTimestampValue) {
    const text = value.toString();
    return /\.\d+$/.test(text) ? text : `${text}.000`;
  }
  if (value instanceof DuckDBMapValue) return `{${value.entries.map(({ key, value: entry }) => `${athenaText(key)}=${athenaText(entry)}`).join(', ')}}`;
  return String(value);
}

/** A result as Athena's CSV: a header, every value in double quotes (doubled inside), NULL as nothing. */
function resultCsv(execution: Execution): string {
  const quote = (value: string | null) => (value === null ? '' : `"${value.replaceAll('"', '""')}"`);
  return [execution.columns.map((column) => column.name), ...execution.rows].map((row) => `${row.map(quote).join(',')}\n`).join('');
}

function splitS3Url(url: string): { bucket: string; key: string } {
  const rest = url.slice('s3://'.length);
  return { bucket: rest.slice(0, rest.indexOf('/')), key: rest.slice(rest.indexOf('/') + 1) };
}

const COPY_OPTIONS: Record<Unload['format'], (unload: Unload) => string> = {
  JSON: (unload) => `FORMAT JSON${unload.compression === 'GZIP' ? ', COMPRESSION GZIP' : ''}`,
  PARQUET: (unload) => `FORMAT PARQUET, COMPRESSION ${unload.compression ?? 'SNAPPY'}`,
  TEXTFILE: (unload) => `FORMAT CSV, HEADER false, DELIMITER '${unload.fieldDelimiter ?? ','}'${unload.compression === 'GZIP' ? ', COMPRESSION GZIP' : ''}`,
};

export function athenaStandIn(options: AthenaStandInOptions): AthenaStandIn {
  const { region, account, authorize } = options;
  const executions = new Map<string, Execution>();
  const scratch = mkdtempSync(join(tmpdir(), 'gw-athena-stand-in-'));
  let connection: Promise<DuckDBConnection> | undefined;
  // One query at a time on the one connection: each reloads the tables from what Firehose has received.
  let queue: Promise<unknown> = Promise.resolve();
  const workgroupArn = (workgroup: string) => `arn:aws:athena:${region}:${account}:workgroup/${workgroup}`;

  const check = (caller: string | undefined, action: string, resource: string) => {
    if (!authorize(caller, action, resource)) throw accessDenied(caller, action, resource);
  };
  const executionOf = (input: Record<string, unknown>, caller: string | undefined, action: string): Execution => {
    const execution = executions.get(String(input.QueryExecutionId ?? ''));
    if (!execution) throw new AwsServiceError('InvalidRequestException', `QueryExecution ${String(input.QueryExecutionId)} was not found`);
    check(caller, action, workgroupArn(execution.workgroup));
    return execution;
  };

  async function loadTables(db: DuckDBConnection): Promise<void> {
    for (const table of ['requests', 'spans'] as const) {
      const columns = TABLE_COLUMNS[table];
      await db.run(`CREATE OR REPLACE TABLE ${table} (${columns.map((column) => `${column.name} ${duckDbType(column.type)}`).join(', ')})`);
      const delivered = options.tables[table]();
      if (delivered.length === 0) continue;
      // The partition column comes from the object's prefix (its arrival day), every other one from the record.
      const file = join(scratch, `${table}.jsonl`);
      writeFileSync(file, delivered.map(({ row, day }) => JSON.stringify({ ...row, day })).join('\n'));
      const types = columns.map((column) => `${column.name}: '${duckDbType(column.type)}'`).join(', ');
      await db.run(`INSERT INTO ${table} SELECT * FROM read_json('${file}', format = 'newline_delimited', columns = {${types}})`);
    }
  }

  /** What Athena checks of the caller before reading: the Glue database and tables the query names, the data bucket. */
  function checkReads(caller: string | undefined, sql: string): void {
    check(caller, 'glue:GetDatabase', `arn:aws:glue:${region}:${account}:database/${options.database}`);
    for (const table of new Set([...sql.matchAll(/\bFROM (requests|spans)\b/g)].map((match) => match[1]))) {
      check(caller, 'glue:GetTable', `arn:aws:glue:${region}:${account}:table/${options.database}/${table}`);
    }
    check(caller, 's3:ListBucket', `arn:aws:s3:::${options.dataBucket}`);
  }

  /** Writes `bytes` at `s3://bucket/key` as the caller, as Athena does; a refusal fails the query. */
  async function writeObject(caller: string | undefined, url: string, bytes: Uint8Array): Promise<void> {
    const { bucket, key } = splitS3Url(url);
    const backing = options.buckets[bucket];
    if (!backing) throw new Error(`NoSuchBucket: ${bucket}`);
    if (!authorize(caller, 's3:PutObject', `arn:aws:s3:::${bucket}/${key}`)) throw new Error(`Access denied when writing output to url: ${url}`);
    await backing.put(key, bytes);
  }

  async function writeUnload(db: DuckDBConnection, execution: Execution, unload: Unload, sql: string, caller: string | undefined): Promise<void> {
    const backing = options.buckets[unload.bucket];
    if (!backing) throw new Error(`NoSuchBucket: ${unload.bucket}`);
    // UNLOAD refuses a destination that already holds objects.
    if (((await backing.list?.(unload.prefix)) ?? []).length > 0) throw new Error(`HIVE_PATH_ALREADY_EXISTS: s3://${unload.bucket}/${unload.prefix} is not empty`);
    const url = `s3://${unload.bucket}/${unload.prefix}${execution.id}_00000${unload.compression === 'GZIP' ? '.gz' : ''}`;
    const file = join(scratch, `${execution.id}.out`);
    await db.run(`COPY (${sql}) TO '${file}' (${COPY_OPTIONS[unload.format](unload)})`);
    await writeObject(caller, url, readFileSync(file));
    rmSync(file, { force: true });
    await writeObject(caller, `${options.outputLocation}${execution.id}-manifest.csv`, Buffer.from(`${url}\n`));
  }

  async function run(execution: Execution, caller: string | undefined): Promise<void> {
    const db = await (connection ??= DuckDBInstance.create(':memory:').then((instance) => instance.connect()));
    execution.state = 'RUNNING';
    try {
      checkReads(caller, execution.query);
      await loadTables(db);
      const unload = parseUnload(execution.query);
      const sql = spliceParameters(translateTrino(unload?.query ?? execution.query), execution.parameters);
      if (unload) await writeUnload(db, execution, unload, sql, caller);
      else {
        const result = await db.runAndReadAll(sql);
        const types = result.columnTypes().map(String);
        execution.columns = result.columnNames().map((name, index) => ({ name, type: trinoType(types[index]) }));
        execution.rows = result.getRows().map((row) => row.map(athenaText));
        await writeObject(caller, `${options.outputLocation}${execution.id}.csv`, Buffer.from(resultCsv(execution)));
      }
      if (execution.state === 'RUNNING') execution.state = 'SUCCEEDED';
    } catch (error) {
      if (execution.state === 'RUNNING') {
        execution.state = 'FAILED';
        execution.reason = (error as Error).message;
      }
    } finally {
      execution.completed = Date.now();
    }
  }

  const handler = jsonProtocolHandler('AmazonAthena', {
    StartQueryExecution: ({ input, caller }) => {
      const workgroup = String(input.WorkGroup ?? 'primary');
      check(caller, 'athena:StartQueryExecution', workgroupArn(workgroup));
      if (workgroup !== options.workgroup) throw new AwsServiceError('InvalidRequestException', `WorkGroup ${workgroup} is not found.`);
      const query = String(input.QueryString ?? '');
      const parameters = (input.ExecutionParameters as string[] | undefined) ?? [];
      const execution: Execution = { id: randomUUID(), query, workgroup, parameters, state: 'QUEUED', submitted: Date.now(), columns: [], rows: [], unload: parseUnload(query) !== undefined };
      executions.set(execution.id, execution);
      queue = queue.then(() => run(execution, caller));
      return { QueryExecutionId: execution.id };
    },
    GetQueryExecution: ({ input, caller }) => {
      const execution = executionOf(input, caller, 'athena:GetQueryExecution');
      return {
        QueryExecution: {
          QueryExecutionId: execution.id,
          Query: execution.query,
          StatementType: 'DML',
          WorkGroup: execution.workgroup,
          ExecutionParameters: execution.parameters.length ? execution.parameters : undefined,
          QueryExecutionContext: { Database: options.database },
          ResultConfiguration: { OutputLocation: `${options.outputLocation}${execution.id}${execution.unload ? '-manifest' : ''}.csv` },
          Status: {
            State: execution.state,
            StateChangeReason: execution.reason,
            SubmissionDateTime: execution.submitted / 1000,
            CompletionDateTime: execution.completed === undefined ? undefined : execution.completed / 1000,
            ...(execution.state === 'FAILED' ? { AthenaError: { ErrorCategory: 2, ErrorType: 1100, ErrorMessage: execution.reason } } : {}),
          },
          Statistics: { DataScannedInBytes: 0, EngineExecutionTimeInMillis: (execution.completed ?? Date.now()) - execution.submitted },
        },
      };
    },
    GetQueryResults: ({ input, caller }) => {
      const execution = executionOf(input, caller, 'athena:GetQueryResults');
      if (execution.state !== 'SUCCEEDED') throw new AwsServiceError('InvalidRequestException', `Query has not yet finished. Current state: ${execution.state}`);
      const header = execution.unload ? [] : [execution.columns.map((column) => column.name)];
      const all = [...header, ...execution.rows];
      const start = Number(input.NextToken ?? 0);
      const size = Math.min(Number(input.MaxResults ?? 1_000), 1_000);
      const page = all.slice(start, start + size);
      return {
        ResultSet: {
          Rows: page.map((row) => ({ Data: row.map((value) => (value === null ? {} : { VarCharValue: value })) })),
          ResultSetMetadata: {
            ColumnInfo: execution.columns.map((column) => ({ CatalogName: 'hive', SchemaName: '', TableName: '', Name: column.name, Label: column.name, Type: column.type, Precision: 0, Scale: 0, Nullable: 'UNKNOWN', CaseSensitive: column.type === 'varchar' })),
          },
        },
        NextToken: start + size < all.length ? String(start + size) : undefined,
        UpdateCount: 0,
      };
    },
    StopQueryExecution: ({ input, caller }) => {
      const execution = executionOf(input, caller, 'athena:StopQueryExecution');
      if (execution.state === 'QUEUED' || execution.state === 'RUNNING') {
        execution.state = 'CANCELLED';
        execution.reason = 'Query cancelled by user';
      }
      return {};
    },
  });

  return {
    handler,
    executions,
    async close() {
      await queue.catch(() => undefined);
      (await connection)?.closeSync();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
