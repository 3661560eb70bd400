import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, DuckDBMapValue, DuckDBTimestampValue, type DuckDBConnection } from '@duckdb/node-api';
import { TABLE_COLUMNS, duckDbType } from '../../../shared/observability/engine/columns.js';
import type { ObjectBacking } from '../../../shared/store/recording/stand-ins/s3-stand-in.js';
import type { StandInAuthorizer } from '../../../shared/store/recording/stand-ins/wire.js';
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
  /**
   * The bucket Firehose delivers to, one of `buckets`: the raw tables are its `<table>/day=D/` files (JSON lines, as
   * the Firehose stand-in writes them), the compacted ones its `compacted/<table>/day=D/ws_bucket=K/` Parquet files
   * (as the compaction's UNLOAD writes them). Athena lists and reads it with the caller's permissions.
   */
  dataBucket: string;
  /** The workgroup's enforced result location (`s3://<results bucket>/results/`): each query's CSV goes there. */
  outputLocation: string;
  /**
   * Further workgroups by name, each with its own enforced result location (the stack's compaction workgroup,
   * `s3://<results bucket>/compaction/`); a query names its workgroup and its results go where that one says.
   */
  otherWorkgroups?: Record<string, string>;
  /** Buckets queries may write into (results, UNLOAD), by name. */
  buckets: Record<string, ObjectBacking>;
  authorize: StandInAuthorizer;
}

interface Execution {
  id: string;
  query: string;
  workgroup: string;
  /** The execution's workgroup's enforced result location. */
  outputLocation: string;
  parameters: string[];
  state: 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
  reason?: string;
  submitted: number;
  completed?: number;
  columns: Array<{ name: string; type: string }>;
  /** Every value as Athena's text, null for NULL. */
  rows: Array<Array<string | null>>;
  unload: boolean;
  /** Rows the query read and wrote (GetQueryRuntimeStatistics). */
  inputRows?: number;
  outputRows?: number;
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
  TEXTFILE: (unload) => textfileCopyOptions(unload.fieldDelimiter ?? ',', unload.compression),
};

/**
 * TEXTFILE as Athena's UNLOAD writes it (Hive's LazySimpleSerDe): values joined by the delimiter, nothing quoted or
 * escaped, NULL as `\N`; DuckDB's CSV writer would quote what Athena does not (and hid issue #43's unquoted export).
 */
export function textfileCopyOptions(delimiter: string, compression?: string): string {
  return `FORMAT CSV, HEADER false, DELIMITER '${delimiter}', QUOTE '', ESCAPE '', NULLSTR '\\N'${compression === 'GZIP' ? ', COMPRESSION GZIP' : ''}`;
}

export function athenaStandIn(options: AthenaStandInOptions): AthenaStandIn {
  const { region, account, authorize } = options;
  const executions = new Map<string, Execution>();
  const scratch = mkdtempSync(join(tmpdir(), 'gw-athena-stand-in-'));
  let connection: Promise<DuckDBConnection> | undefined;
  // One query at a time on the one connection: each reloads the tables from what Firehose has received.
  let queue: Promise<unknown> = Promise.resolve();
  const workgroupArn = (workgroup: string) => `arn:aws:athena:${region}:${account}:workgroup/${workgroup}`;
  const outputLocations = new Map<string, string>([[options.workgroup, options.outputLocation], ...Object.entries(options.otherWorkgroups ?? {})]);

  const check = (caller: string | undefined, action: string, resource: string) => {
    if (!authorize(caller, action, resource)) throw accessDenied(caller, action, resource);
  };
  const executionOf = (input: Record<string, unknown>, caller: string | undefined, action: string): Execution => {
    const execution = executions.get(String(input.QueryExecutionId ?? ''));
    if (!execution) throw new AwsServiceError('InvalidRequestException', `QueryExecution ${String(input.QueryExecutionId)} was not found`);
    check(caller, action, workgroupArn(execution.workgroup));
    return execution;
  };

  const data = () => {
    const backing = options.buckets[options.dataBucket];
    if (!backing?.list) throw new Error(`the data bucket ${options.dataBucket} is not served`);
    return backing as Required<ObjectBacking>;
  };

  /** The tables as the data bucket holds them now: raw days from Firehose's files, compacted days from UNLOAD's. */
  async function loadTables(db: DuckDBConnection, referenced: ReadonlySet<string>, caller: string | undefined): Promise<number> {
    let inputRows = 0;
    for (const table of ['requests', 'spans'] as const) {
      const columns = TABLE_COLUMNS[table];
      const ddl = columns.map((column) => `${column.name} ${duckDbType(column.type)}`).join(', ');
      // The raw table has Athena's `$file_modified_time` (the file's LastModified); the compacted one its partitions,
      // the run's folder (`compacted_slice`, injected) and the workspace bucket, and `day` as a column of the files.
      await db.run(`CREATE OR REPLACE TABLE ${table} (${ddl}, "$file_modified_time" TIMESTAMPTZ)`);
      await db.run(`CREATE OR REPLACE TABLE ${table}_compacted (${ddl}, compacted_slice VARCHAR, ws_bucket INTEGER)`);
      const read = async (key: string) => {
        // Athena reads each file of a table the query names with the caller's own permissions.
        if (referenced.has(table) && !authorize(caller, 's3:GetObject', `arn:aws:s3:::${options.dataBucket}/${key}`)) throw new Error(`Access denied reading s3://${options.dataBucket}/${key}`);
        return (await data().get(key)) ?? Buffer.alloc(0);
      };
      const lines: string[] = [];
      for (const key of await data().list(`${table}/day=`)) {
        const day = /\/day=(\d{4}-\d{2}-\d{2})\//.exec(key)?.[1];
        const modified = (data().modifiedAt?.(key) ?? new Date(0)).toISOString();
        for (const line of (await read(key)).toString('utf8').split('\n').filter((entry) => entry.trim() !== '')) {
          lines.push(JSON.stringify({ ...(JSON.parse(line) as object), day, $file_modified_time: modified }));
        }
      }
      if (lines.length > 0) {
        // The partition column comes from the object's prefix, every other one from the record.
        const file = join(scratch, `${table}.jsonl`);
        writeFileSync(file, lines.join('\n'));
        const types = [...columns.map((column) => `${column.name}: '${duckDbType(column.type)}'`), `'$file_modified_time': 'TIMESTAMPTZ'`].join(', ');
        await db.run(`INSERT INTO ${table} SELECT * FROM read_json('${file}', format = 'newline_delimited', columns = {${types}})`);
      }
      let part = 0;
      for (const key of await data().list(`compacted/${table}/day=`)) {
        // `compacted/<table>/<slice>/ws_bucket=K/<file>`: a run's folder (`day=D.<run id>`, or a legacy `day=D`).
        const match = /^compacted\/\w+\/(day=\d{4}-\d{2}-\d{2}(?:\.[a-z0-9-]+)?)\/ws_bucket=(\d+)\/[^_/][^/]*$/.exec(key);
        if (!match) continue;
        const file = join(scratch, `${table}-compacted-${part++}.parquet`);
        writeFileSync(file, await read(key));
        await db.run(`INSERT INTO ${table}_compacted BY NAME SELECT *, '${match[1]}' AS compacted_slice, ${Number(match[2])} AS ws_bucket FROM read_parquet('${file}')`);
      }
      if (referenced.has(table)) {
        const counted = await db.runAndReadAll(`SELECT (SELECT count(*) FROM ${table}) + (SELECT count(*) FROM ${table}_compacted) AS n`);
        inputRows += Number(counted.getRows()[0][0]);
      }
    }
    return inputRows;
  }

  /** What Athena checks of the caller before reading: the Glue database and tables the query names, the data bucket. */
  function checkReads(caller: string | undefined, sql: string): Set<string> {
    check(caller, 'glue:GetDatabase', `arn:aws:glue:${region}:${account}:database/${options.database}`);
    const named = new Set([...sql.matchAll(/\bFROM ((?:requests|spans)(?:_compacted)?)\b/g)].map((match) => match[1]));
    for (const table of named) check(caller, 'glue:GetTable', `arn:aws:glue:${region}:${account}:table/${options.database}/${table}`);
    // `compacted_slice` is an injected projection: Athena refuses a query of the table that names no value of it.
    for (const branch of sql.split(/\bFROM (?=(?:requests|spans)_compacted\b)/).slice(1)) {
      if (!/^\w+ WHERE .*?\bcompacted_slice (?:IN \('|= ')/s.test(branch.split(/\bUNION ALL\b/)[0])) {
        throw new Error('CONSTRAINT_VIOLATION: For the injected projected partition column compacted_slice, the WHERE clause must contain only static equality conditions, and at least one such condition must be present.');
      }
    }
    check(caller, 's3:ListBucket', `arn:aws:s3:::${options.dataBucket}`);
    return new Set([...named].map((table) => table.replace(/_compacted$/, '')));
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
    const suffix = unload.compression === 'GZIP' ? '.gz' : '';
    const urls: string[] = [];
    if (unload.partitionedBy.length > 0) {
      // One folder per partition value (`<column>=<value>/`), the partition columns not in the files, as Athena writes them.
      const directory = join(scratch, `${execution.id}.parts`);
      await db.run(`COPY (${sql}) TO '${directory}' (${COPY_OPTIONS[unload.format](unload)}, PARTITION_BY (${unload.partitionedBy.join(', ')}))`);
      const files = (readdirSync(directory, { recursive: true }) as string[]).filter((path) => path.includes('/')).sort();
      for (const [index, path] of files.entries()) {
        const folder = path.slice(0, path.lastIndexOf('/') + 1);
        const url = `s3://${unload.bucket}/${unload.prefix}${folder}${execution.id}_${String(index).padStart(5, '0')}${suffix}`;
        await writeObject(caller, url, readFileSync(join(directory, path)));
        urls.push(url);
      }
      rmSync(directory, { recursive: true, force: true });
    } else {
      const url = `s3://${unload.bucket}/${unload.prefix}${execution.id}_00000${suffix}`;
      const file = join(scratch, `${execution.id}.out`);
      await db.run(`COPY (${sql}) TO '${file}' (${COPY_OPTIONS[unload.format](unload)})`);
      await writeObject(caller, url, readFileSync(file));
      rmSync(file, { force: true });
      urls.push(url);
    }
    const counted = await db.runAndReadAll(`SELECT count(*) FROM (${sql})`);
    execution.outputRows = Number(counted.getRows()[0][0]);
    await writeObject(caller, `${execution.outputLocation}${execution.id}-manifest.csv`, Buffer.from(urls.map((url) => `${url}\n`).join('')));
  }

  async function run(execution: Execution, caller: string | undefined): Promise<void> {
    const db = await (connection ??= DuckDBInstance.create(':memory:').then((instance) => instance.connect()));
    execution.state = 'RUNNING';
    try {
      const referenced = checkReads(caller, execution.query);
      execution.inputRows = await loadTables(db, referenced, caller);
      const unload = parseUnload(execution.query);
      const sql = spliceParameters(translateTrino(unload?.query ?? execution.query), execution.parameters);
      if (unload) await writeUnload(db, execution, unload, sql, caller);
      else {
        const result = await db.runAndReadAll(sql);
        const types = result.columnTypes().map(String);
        execution.columns = result.columnNames().map((name, index) => ({ name, type: trinoType(types[index]) }));
        execution.rows = result.getRows().map((row) => row.map(athenaText));
        execution.outputRows = execution.rows.length;
        await writeObject(caller, `${execution.outputLocation}${execution.id}.csv`, Buffer.from(resultCsv(execution)));
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
      const outputLocation = outputLocations.get(workgroup);
      if (outputLocation === undefined) throw new AwsServiceError('InvalidRequestException', `WorkGroup ${workgroup} is not found.`);
      const query = String(input.QueryString ?? '');
      const parameters = (input.ExecutionParameters as string[] | undefined) ?? [];
      const execution: Execution = { id: randomUUID(), query, workgroup, outputLocation, parameters, state: 'QUEUED', submitted: Date.now(), columns: [], rows: [], unload: parseUnload(query) !== undefined };
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
          ResultConfiguration: { OutputLocation: `${execution.outputLocation}${execution.id}${execution.unload ? '-manifest' : ''}.csv` },
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
    GetQueryRuntimeStatistics: ({ input, caller }) => {
      const execution = executionOf(input, caller, 'athena:GetQueryRuntimeStatistics');
      const ended = execution.state === 'SUCCEEDED' || execution.state === 'FAILED' || execution.state === 'CANCELLED';
      const timeline = { QueryQueueTimeInMillis: 0, TotalExecutionTimeInMillis: (execution.completed ?? Date.now()) - execution.submitted };
      // Row figures once the query has run (the stand-in reads no bytes it could count as Athena does).
      return { QueryRuntimeStatistics: { Timeline: timeline, ...(ended ? { Rows: { InputRows: execution.inputRows ?? 0, InputBytes: 0, OutputBytes: 0, OutputRows: execution.outputRows ?? 0 } } : {}) } };
    },
    StopQueryExecution: ({ input, caller }) => {
      const execution = executionOf(input, caller, 'athena:StopQueryExecution');
      if (execution.state === 'QUEUED' || execution.state === 'RUNNING') {
        execution.state = 'CANCELLED';
        execution.reason = 'Query cancelled by user';
      }
      return {};
    },
  }, {
    iamPrefix: 'athena',
    authorize,
    // An operation this stand-in lacks acts on the workgroup it names, or on that of the execution it names.
    resourceOf: (input) => workgroupArn(String(input.WorkGroup ?? executions.get(String(input.QueryExecutionId ?? ''))?.workgroup ?? '*')),
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
