import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AthenaQueryEngine } from '../../../../shared/observability/engine/aws/athena-engine.js';
import { createAthenaClient, createResultsS3Client } from '../../../../shared/observability/engine/aws/clients.js';
import { AthenaQueryFailedError, AthenaQueryTimeoutError, InvalidExportDestinationError } from '../../../../shared/observability/engine/aws/athena-errors.js';
import { awsExportDestination, createAwsQueryEngine } from '../../../../shared/observability/engine/aws/index.js';
import { recordedOperationCounts, resetRecordedOperationCounts, runAsFunction } from '../../../../shared/store/recording/aws-operation-recorder.js';
import { startAwsJsonService, type AwsJsonService } from '../../../support/aws-json-service.js';

/**
 * The Athena engine with the real SDK clients against a loopback Athena (JSON protocol) and S3 (ListObjectsV2):
 * the calls it makes for a query and an export, how it reads states, pages and types, and when it stops a query.
 * Parameter quoting is tested on its own in test/unit/observability/athena-parameters.test.ts.
 */
let aws: AwsJsonService;

function engine(options: { timeoutMs?: number; pageSize?: number } = {}): AthenaQueryEngine {
  return new AthenaQueryEngine({
    athena: createAthenaClient({ region: 'us-east-1', endpoint: aws.endpoint, workgroup: 'gw-logs' }),
    s3: createResultsS3Client({ region: 'us-east-1', endpoint: aws.endpoint }),
    workgroup: 'gw-logs',
    database: 'gw_logs',
    timeoutMs: options.timeoutMs ?? 10_000,
    freshnessMs: 60_000,
    pollDelaysMs: [1, 2, 5],
    pageSize: options.pageSize,
  });
}

/** Athena's answer to GetQueryExecution: the state sequence given, the last state repeating. */
function scriptStates(states: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): void {
  let polls = 0;
  aws.on('StartQueryExecution', () => ({ json: { QueryExecutionId: 'q-1' } }));
  aws.on('GetQueryExecution', (input) => {
    const status = states[Math.min(polls++, states.length - 1)];
    return { json: { QueryExecution: { QueryExecutionId: input.QueryExecutionId, Status: status, Statistics: { DataScannedInBytes: 52_428_800 }, ...extra } } };
  });
}

const column = (Name: string, Type: string) => ({ Name, Label: Name, Type });
const row = (...values: Array<string | undefined>) => ({ Data: values.map((value) => (value === undefined ? {} : { VarCharValue: value })) });

beforeAll(async () => {
  aws = await startAwsJsonService();
  // Settings are read once per process, on first use (the recorder reads them too): these stand in for what the
  // stack sets on the function, before anything reads them.
  Object.assign(process.env, { GW_ATHENA_ENDPOINT: aws.endpoint, GW_S3_ENDPOINT: aws.endpoint, GW_ATHENA_WORKGROUP: 'gw-logs', GW_LOG_RESULTS_BUCKET: 'gw-log-results' });
});
afterAll(async () => {
  await aws.close();
});
beforeEach(() => {
  aws.calls.length = 0;
});

describe('AthenaQueryEngine.query', () => {
  it('starts the query in the workgroup and database with quoted parameters, polls to the end, and reports the bytes scanned', async () => {
    scriptStates([{ State: 'QUEUED' }, { State: 'RUNNING' }, { State: 'SUCCEEDED' }]);
    aws.on('GetQueryResults', () => ({
      json: { ResultSet: { ResultSetMetadata: { ColumnInfo: [column('model', 'varchar'), column('requests', 'bigint')] }, Rows: [row('model', 'requests'), row('gpt-4o', '12')] } },
    }));
    const result = await engine().query({ sql: 'SELECT model, count(*) AS requests FROM requests WHERE workspace_id = ? AND day >= ? GROUP BY model', params: ['ws_1', '2026-11-01'] });

    // The SDK adds an idempotency token, so a retried start never runs the query twice.
    expect(aws.callsOf('StartQueryExecution')[0].input).toEqual({
      ClientRequestToken: expect.any(String),
      QueryString: 'SELECT model, count(*) AS requests FROM requests WHERE workspace_id = ? AND day >= ? GROUP BY model',
      ExecutionParameters: ["'ws_1'", "'2026-11-01'"],
      WorkGroup: 'gw-logs',
      QueryExecutionContext: { Database: 'gw_logs' },
    });
    expect(aws.callsOf('GetQueryExecution')).toHaveLength(3);
    expect(result).toEqual({ rows: [{ model: 'gpt-4o', requests: 12 }], scannedBytes: 52_428_800 });
  });

  it('reads every page of the results, skipping only the header row of the first', async () => {
    scriptStates([{ State: 'SUCCEEDED' }]);
    const pages: Record<string, { rows: ReturnType<typeof row>[]; next?: string }> = {
      first: { rows: [row('id'), row('a'), row('b')], next: 'p2' },
      p2: { rows: [row('id'), row('c')], next: 'p3' },
      p3: { rows: [row('d')] },
    };
    aws.on('GetQueryResults', (input) => {
      const page = pages[(input.NextToken as string | undefined) ?? 'first'];
      return { json: { ResultSet: { ResultSetMetadata: { ColumnInfo: [column('id', 'varchar')] }, Rows: page.rows }, NextToken: page.next } };
    });
    const result = await engine({ pageSize: 2 }).query({ sql: 'SELECT id FROM requests', params: [] });
    // A later page's row that looks like the header is data ('id' is a real value there).
    expect(result.rows.map((entry) => entry.id)).toEqual(['a', 'b', 'id', 'c', 'd']);
    expect(aws.callsOf('GetQueryResults').map((call) => [call.input.NextToken, call.input.MaxResults])).toEqual([
      [undefined, 2],
      ['p2', 2],
      ['p3', 2],
    ]);
    expect(aws.callsOf('StartQueryExecution')[0].input).not.toHaveProperty('ExecutionParameters');
  });

  it('converts each value by its column type: numbers, exact big integers, booleans, timestamps, JSON, maps and NULLs', async () => {
    scriptStates([{ State: 'SUCCEEDED' }]);
    const columns = [
      column('status', 'integer'),
      column('tokens', 'bigint'),
      column('huge', 'bigint'),
      column('cost', 'double'),
      column('stream', 'boolean'),
      column('created_at', 'timestamp'),
      column('day', 'date'),
      column('metadata', 'json'),
      column('raw_map', 'map'),
      column('p95', 'double'),
      column('model', 'varchar'),
    ];
    aws.on('GetQueryResults', () => ({
      json: {
        ResultSet: {
          ResultSetMetadata: { ColumnInfo: columns },
          Rows: [
            row(...columns.map((entry) => entry.Name)),
            row('200', '1234', '9007199254740993', '0.00042', 'true', '2026-11-27 10:15:03.123', '2026-11-27', '{"team":"a=b, c"}', '{team=search, env=prod}', undefined, undefined),
          ],
        },
      },
    }));
    const { rows } = await engine().query({ sql: 'SELECT …', params: [] });
    expect(rows).toEqual([
      {
        status: 200,
        tokens: 1234,
        huge: '9007199254740993',
        cost: 0.00042,
        stream: true,
        created_at: '2026-11-27T10:15:03.123Z',
        day: '2026-11-27',
        metadata: { team: 'a=b, c' },
        raw_map: { team: 'search', env: 'prod' },
        p95: null,
        model: null,
      },
    ]);
  });

  it('fails with the reason Athena gives for a failed query (the workgroup scan limit included)', async () => {
    const reason = 'Query cancelled! Bytes scanned limit was exceeded';
    scriptStates([{ State: 'RUNNING' }, { State: 'FAILED', StateChangeReason: reason, AthenaError: { ErrorCategory: 2, ErrorType: 1002 } }]);
    const failure = engine().query({ sql: 'SELECT 1', params: [] });
    await expect(failure).rejects.toBeInstanceOf(AthenaQueryFailedError);
    // The read APIs answer it in the one error shape: a 502 with Athena's reason.
    await expect(failure).rejects.toMatchObject({ state: 'FAILED', errorType: 1002, message: `Athena query failed: ${reason}`, code: 'query_failed', status: 502, type: 'api_error' });
    expect(aws.callsOf('GetQueryResults')).toHaveLength(0);
  });

  it('fails when the query was cancelled', async () => {
    scriptStates([{ State: 'CANCELLED', StateChangeReason: 'Query was cancelled by user' }]);
    await expect(engine().query({ sql: 'SELECT 1', params: [] })).rejects.toMatchObject({ state: 'CANCELLED', message: 'Athena query cancelled: Query was cancelled by user' });
  });

  it('stops a query that outlives its timeout, then fails', async () => {
    scriptStates([{ State: 'RUNNING' }]);
    aws.on('StopQueryExecution', () => ({ json: {} }));
    // As the control plane, so the grant check sees StopQueryExecution from the function that issues it.
    const timedOut = runAsFunction('control-plane', () => engine({ timeoutMs: 1 }).query({ sql: 'SELECT 1', params: [] }));
    await expect(timedOut).rejects.toBeInstanceOf(AthenaQueryTimeoutError);
    await expect(timedOut).rejects.toMatchObject({ status: 504, type: 'timeout_error', code: 'query_timeout' });
    expect(aws.callsOf('StopQueryExecution').map((call) => call.input)).toEqual([{ QueryExecutionId: 'q-1' }]);
  });

  it('refuses a value that cannot be a literal at all without starting a query', async () => {
    await expect(engine().query({ sql: 'SELECT ?', params: [Number.NaN] })).rejects.toThrow(/parameter 1 is not a finite number/);
    expect(aws.callsOf('StartQueryExecution')).toHaveLength(0);
  });
});

describe('AthenaQueryEngine exports (UNLOAD jobs)', () => {
  const destination = 's3://gw-log-results/exports/exp_1/';

  it('starts an UNLOAD of the statement to the prefix in the format asked, its parameters passed as for a query', async () => {
    aws.on('StartQueryExecution', () => ({ json: { QueryExecutionId: 'unload-1' } }));
    const logs = engine();
    const statement = { sql: 'SELECT * FROM requests WHERE workspace_id = ?', params: ["ws_'1"] };
    expect(await logs.startExport(statement, 'parquet', destination)).toEqual({ jobId: 'unload-1' });
    await logs.startExport(statement, 'jsonl', destination);
    await logs.startExport(statement, 'csv', destination);
    const starts = aws.callsOf('StartQueryExecution').map((call) => call.input);
    expect(starts.map((input) => input.QueryString)).toEqual([
      `UNLOAD (SELECT * FROM requests WHERE workspace_id = ?) TO '${destination}' WITH (format = 'PARQUET', compression = 'SNAPPY')`,
      `UNLOAD (SELECT * FROM requests WHERE workspace_id = ?) TO '${destination}' WITH (format = 'JSON', compression = 'GZIP')`,
      `UNLOAD (SELECT * FROM requests WHERE workspace_id = ?) TO '${destination}' WITH (format = 'TEXTFILE', field_delimiter = ',', compression = 'GZIP')`,
    ]);
    for (const input of starts) expect(input).toMatchObject({ ExecutionParameters: ["'ws_''1'"], WorkGroup: 'gw-logs' });
  });

  it('reports running, then succeeded with every object it wrote (listed page by page) and the rows it wrote (runtime statistics)', async () => {
    const query = `UNLOAD (SELECT 1) TO '${destination}' WITH (format = 'PARQUET', compression = 'SNAPPY')`;
    scriptStates([{ State: 'RUNNING' }, { State: 'SUCCEEDED' }], { Query: query });
    aws.on('GetQueryRuntimeStatistics', () => ({ json: { QueryRuntimeStatistics: { Rows: { InputRows: 12, InputBytes: 4096, OutputRows: 3, OutputBytes: 512 } } } }));
    aws.on('ListObjectsV2', (input) =>
      input['continuation-token'] === 'more'
        ? { json: { keys: ['exports/exp_1/part-2.parquet'] } }
        : { json: { keys: ['exports/exp_1/part-0.parquet', 'exports/exp_1/part-1.parquet'], nextToken: 'more' } },
    );
    const logs = engine();
    expect(await logs.exportStatus('unload-1')).toEqual({ state: 'running' });
    expect(aws.callsOf('ListObjectsV2')).toHaveLength(0);
    expect(aws.callsOf('GetQueryRuntimeStatistics')).toHaveLength(0);
    expect(await logs.exportStatus('unload-1')).toEqual({
      state: 'succeeded',
      outputs: ['s3://gw-log-results/exports/exp_1/part-0.parquet', 's3://gw-log-results/exports/exp_1/part-1.parquet', 's3://gw-log-results/exports/exp_1/part-2.parquet'],
      rows: 3,
    });
    expect(aws.callsOf('GetQueryRuntimeStatistics').map((call) => call.input)).toEqual([{ QueryExecutionId: 'unload-1' }]);
    expect(aws.callsOf('ListObjectsV2').map((call) => [call.input.Bucket, call.input.prefix])).toEqual([
      ['gw-log-results', 'exports/exp_1/'],
      ['gw-log-results', 'exports/exp_1/'],
    ]);
  });

  it('leaves the row count out when Athena gives none', async () => {
    scriptStates([{ State: 'SUCCEEDED' }], { Query: `UNLOAD (SELECT 1) TO '${destination}' WITH (format = 'JSON', compression = 'GZIP')` });
    aws.on('GetQueryRuntimeStatistics', () => ({ json: { QueryRuntimeStatistics: { Timeline: { TotalExecutionTimeInMillis: 5 } } } }));
    aws.on('ListObjectsV2', () => ({ json: { keys: [] } }));
    expect(await engine().exportStatus('unload-3')).toEqual({ state: 'succeeded', outputs: [] });
  });

  it('starts a partitioned UNLOAD with its partition columns named in the WITH clause', async () => {
    aws.on('StartQueryExecution', () => ({ json: { QueryExecutionId: 'unload-4' } }));
    await engine().unload({ sql: 'SELECT id, ws_bucket FROM requests WHERE day = ?', params: ['2026-11-26'] }, 'parquet', 's3://gw-log-data/compacted/requests/day=2026-11-26/', ['ws_bucket']);
    expect(aws.callsOf('StartQueryExecution')[0].input.QueryString).toBe(
      "UNLOAD (SELECT id, ws_bucket FROM requests WHERE day = ?) TO 's3://gw-log-data/compacted/requests/day=2026-11-26/' WITH (format = 'PARQUET', compression = 'SNAPPY', partitioned_by = ARRAY['ws_bucket'])",
    );
  });

  it('passes a value too long for one execution parameter as several, concatenated in the statement', async () => {
    aws.on('StartQueryExecution', () => ({ json: { QueryExecutionId: 'unload-5' } }));
    await engine().startExport({ sql: 'SELECT id FROM requests WHERE element_at(metadata, ?) = ?', params: ['team', "'".repeat(512)] }, 'jsonl', destination);
    const input = aws.callsOf('StartQueryExecution')[0].input;
    expect(input.QueryString).toBe(`UNLOAD (SELECT id FROM requests WHERE element_at(metadata, ?) = (? || ?)) TO '${destination}' WITH (format = 'JSON', compression = 'GZIP')`);
    expect((input.ExecutionParameters as string[]).map((parameter) => parameter.length)).toEqual([6, 1024, 4]);
  });

  it('reports a failed UNLOAD with its reason', async () => {
    scriptStates([{ State: 'FAILED', StateChangeReason: 'HIVE_PATH_ALREADY_EXISTS: Target directory for table already exists' }]);
    expect(await engine().exportStatus('unload-2')).toEqual({ state: 'failed', error: 'HIVE_PATH_ALREADY_EXISTS: Target directory for table already exists' });
  });

  it.each(["s3://bucket/exports/x'/ ", 's3://bucket/exports/x', 'file:///tmp/x/', "s3://bucket/a') TO 's3://evil/"])('refuses the destination %j without a call', async (bad) => {
    await expect(engine().startExport({ sql: 'SELECT 1', params: [] }, 'jsonl', bad)).rejects.toBeInstanceOf(InvalidExportDestinationError);
    await expect(engine().startExport({ sql: 'SELECT 1', params: [] }, 'jsonl', bad)).rejects.toMatchObject({ status: 400, code: 'invalid_export_destination' });
    expect(aws.callsOf('StartQueryExecution')).toHaveLength(0);
  });
});

describe('the recorded operations (grant check input)', () => {
  it('attributes Athena calls to the workgroup and the export listing to the results bucket', async () => {
    scriptStates([{ State: 'SUCCEEDED' }], { Query: `UNLOAD (SELECT 1) TO '${'s3://gw-log-results/exports/e/'}' WITH (format = 'JSON', compression = 'GZIP')` });
    aws.on('GetQueryResults', () => ({ json: { ResultSet: { ResultSetMetadata: { ColumnInfo: [] }, Rows: [] } } }));
    aws.on('StopQueryExecution', () => ({ json: {} }));
    aws.on('ListObjectsV2', () => ({ json: { keys: [] } }));
    aws.on('GetQueryRuntimeStatistics', () => ({ json: { QueryRuntimeStatistics: { Rows: { OutputRows: 0 } } } }));
    resetRecordedOperationCounts();
    await runAsFunction('control-plane', async () => {
      const logs = engine();
      await logs.query({ sql: 'SELECT 1', params: [] });
      await logs.exportStatus('q-1');
    });
    const seen = recordedOperationCounts().map(({ fn, service, action, resource }) => `${fn} ${service}:${action} ${resource}`).sort();
    expect([...new Set(seen)]).toEqual([
      'control-plane athena:GetQueryExecution workgroup/gw-logs',
      'control-plane athena:GetQueryResults workgroup/gw-logs',
      'control-plane athena:GetQueryRuntimeStatistics workgroup/gw-logs',
      'control-plane athena:StartQueryExecution workgroup/gw-logs',
      'control-plane s3:ListBucket bucket/log-results',
    ]);
  });
});

describe('the query engine from settings', () => {
  it('runs in the workgroup and database the stack names, its Athena client loaded with the first query', async () => {
    scriptStates([{ State: 'SUCCEEDED' }]);
    aws.on('GetQueryResults', () => ({ json: { ResultSet: { ResultSetMetadata: { ColumnInfo: [column('n', 'bigint')] }, Rows: [row('n'), row('3')] } } }));
    const logs = createAwsQueryEngine();
    expect([logs.dialect, logs.freshnessMs]).toEqual(['trino', 60_000]);
    expect(aws.calls).toHaveLength(0);
    expect((await logs.query({ sql: 'SELECT count(*) AS n FROM requests WHERE workspace_id = ?', params: ['ws_1'] })).rows).toEqual([{ n: 3 }]);
    expect(aws.callsOf('StartQueryExecution')[0].input).toMatchObject({ WorkGroup: 'gw-logs', QueryExecutionContext: { Database: 'gw_logs' } });
    expect(awsExportDestination('exp_9')).toBe('s3://gw-log-results/exports/exp_9/');
  });
});
