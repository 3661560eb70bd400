import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildConsole } from '../../scripts/build-console.js';
import { OPENAI_MOCK_TEXT } from '../support/mock-openai-dialects.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { verifySigV4 } from '../fixtures/bedrock/sigv4-verifier.js';
import { isAllowed } from '../support/iam-policy.js';
import { checkConsoleUnderStage } from './support/console-check.js';
import { describeRequestLogCompaction } from './support/compaction-suite.js';
import { parseCsv } from './support/csv.js';
import { REQUEST_COLUMNS } from '../../shared/observability/engine/columns.js';
import { FUNCTION_SECRET_ACCESS_KEY, type ApiResponse, type DeployedStack } from './support/deployed-stack.js';
import { useDeployedStack } from './support/stack-lifecycle.js';

/**
 * The AWS-shaped end-to-end suite (issue #33): the stack as `cdk synth` builds it, each function its BUILT bundle
 * (`npm run build`'s output, built here) under a Lambda-like runtime, reached through the template's REST API
 * (REST proxy events under the `/prod` stage, the response-streaming integration for the gateway) and its
 * EventBridge schedules, against the embedded DynamoDB-compatible store and stand-ins for S3, Secrets Manager,
 * Firehose and Athena (which runs the engine's Trino statements on DuckDB over the rows Firehose received);
 * every AWS call is checked against the calling function's IAM statements in the template, and a call outside them
 * fails the test that made it (afterEach). The harness: test/aws-shaped/support/.
 */
const ADMIN_KEY = 'gwk_awsshaped_admin_key_0123456789abcdef';
let bundles: string;
let stack: DeployedStack;
let upstream: MockUpstream;
useDeployedStack(
  {
    tempPrefix: 'gw-aws-shaped-',
    adminKey: ADMIN_KEY,
    // The control-plane bundle carries the console beside it, as deployed (support/console-check.ts checks it under
    // /prod once the console addresses itself relative to where it is mounted).
    beforeDeploy: (built) => buildConsole(join(built, 'control-plane', 'console')),
    // The operator's bootstrap (npm run cli -- bootstrap) with its own credentials: straight to the store.
    afterDeploy: async (deployed) => {
      const { settings } = await import('../../shared/settings.js');
      expect(settings().GW_DYNAMODB_ENDPOINT, 'this process talks to the stand-in store').toBe(deployed.operatorEnv.GW_DYNAMODB_ENDPOINT);
    },
  },
  (started) => ({ bundles, stack, upstream } = started),
);

const viaMock = () => ({ 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-aws-shaped-provider' });
const json = <T = Record<string, unknown>>(response: ApiResponse) => JSON.parse(response.body) as T;
const admin = (method: string, path: string, body?: unknown) => stack.request(method, `/prod${path}`, { headers: { 'x-gw-api-key': ADMIN_KEY }, body });
const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };

describe('the gateway function (response streaming)', () => {
  it('answers chat completions under /prod', async () => {
    const response = await stack.request('POST', '/prod/v1/chat/completions', { headers: viaMock(), body: chat });
    expect(response.status, response.body).toBe(200);
    expect(response.route).toMatchObject({ target: 'gateway', mode: 'STREAM' });
    expect(response.headers['x-gw-provider']).toBe('openai');
    expect(json<{ choices: Array<{ message: { content: string } }> }>(response).choices[0].message.content).toBe(OPENAI_MOCK_TEXT);
  });

  it('streams chat completions as server-sent events through the streaming integration', async () => {
    const response = await stack.request('POST', '/prod/v1/chat/completions', { headers: viaMock(), body: { ...chat, stream: true } });
    expect(response.status, response.body).toBe(200);
    expect(response.route).toMatchObject({ target: 'gateway', mode: 'STREAM' });
    expect(response.headers['content-type']).toContain('text/event-stream');
    const events = response.body.split('\n\n').filter((event) => event.startsWith('data: '));
    expect(events.length).toBeGreaterThan(2);
    expect(events.at(-1)).toBe('data: [DONE]');
    const text = events.slice(0, -1).map((event) => (JSON.parse(event.slice(6)) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe(OPENAI_MOCK_TEXT);
  });

  it('answers the Responses API and the Messages API through the same function', async () => {
    const responses = await stack.request('POST', '/prod/v1/responses', { headers: viaMock(), body: { model: 'gpt-4o-mini', input: 'Hi' } });
    expect(responses.status, responses.body).toBe(200);
    expect(json(responses)).toMatchObject({ object: 'response', status: 'completed' });
    const messages = await stack.request('POST', '/prod/v1/messages', { headers: viaMock(), body: { model: 'gpt-4o-mini', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] } });
    expect(messages.status, messages.body).toBe(200);
    expect(json(messages)).toMatchObject({ type: 'message', role: 'assistant' });
    expect([responses.route?.target, messages.route?.target]).toEqual(['gateway', 'gateway']);
  });

  it('uses a virtual key created by the control plane: its credential in Secrets Manager, read by the gateway', async () => {
    const created = await admin('POST', '/v1/virtual-keys', { name: 'aws-shaped', provider: 'openai', credential: 'sk-aws-shaped-stored-credential', custom_host: upstream.url });
    expect(created.status, created.body).toBe(201);
    expect([...stack.standIns.secrets.secrets.keys()].some((name) => name.startsWith('gw/'))).toBe(true);
    const response = await stack.request('POST', '/prod/v1/chat/completions', { headers: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-virtual-key': json<{ id: string }>(created).id }, body: chat });
    expect(response.status, response.body).toBe(200);
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer sk-aws-shaped-stored-credential');
  });

  it('signs a Bedrock call without credentials with its own role, which the template lets it invoke the model with', async () => {
    const model = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
    const converse = JSON.parse(readFileSync(new URL('../fixtures/bedrock/converse-response-reasoning.json', import.meta.url), 'utf8')) as unknown;
    const bedrock = await startMockUpstream(() => ({ json: converse }));
    try {
      const response = await stack.request('POST', '/prod/v1/chat/completions', { headers: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'bedrock', 'x-gw-custom-host': bedrock.url }, body: { ...chat, model } });
      expect(response.status, response.body).toBe(200);
      const seen = bedrock.requests[0];
      expect(verifySigV4({ method: seen.method, rawPath: seen.path, query: seen.query, headers: seen.headers, body: seen.body }, FUNCTION_SECRET_ACCESS_KEY)).toMatchObject({ valid: true, accessKeyId: stack.accessKeyOf('gateway') });
      // What Bedrock's IAM check would ask of that role (Converse is authorised as InvokeModel).
      expect(isAllowed(stack.statements.get('gateway')!, 'bedrock:InvokeModel', `arn:aws:bedrock:us-east-1::foundation-model/${model}`)).toBe(true);
      expect(isAllowed(stack.statements.get('control-plane')!, 'bedrock:InvokeModel', `arn:aws:bedrock:us-east-1::foundation-model/${model}`)).toBe(false);
    } finally {
      await bedrock.close();
    }
  });

  it('answers /health at the API root, with the version compiled into the bundle', async () => {
    const response = await stack.request('GET', '/prod/health');
    expect(response.status, response.body).toBe(200);
    expect(response.route).toMatchObject({ target: 'gateway', mode: 'STREAM' });
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(json(response)).toEqual({ status: 'ok', version });
  });

  it('is not reached without the stage prefix, as on the default API URL', async () => {
    expect((await stack.request('POST', '/v1/chat/completions', { headers: viaMock(), body: chat })).status).toBe(403);
  });
});

describe('the control-plane function (buffered)', () => {
  it('lists and creates through the buffered integration', async () => {
    const list = await admin('GET', '/v1/workspaces');
    expect(list.status, list.body).toBe(200);
    expect(list.route).toMatchObject({ target: 'control-plane', mode: 'BUFFERED' });
    expect(json<{ data: unknown[] }>(list).data.length).toBeGreaterThan(0);
    const created = await admin('POST', '/v1/workspaces', { name: `aws shaped ${Date.now()}` });
    expect(created.status, created.body).toBe(201);
    const listed = await admin('GET', '/v1/workspaces');
    expect(json<{ data: Array<{ id: string }> }>(listed).data.map((workspace) => workspace.id)).toContain(json<{ id: string }>(created).id);
  });
});

describe('request logs on the AWS engine: the gateway appends through Firehose, the control plane reads through Athena', () => {
  const traceId = `aws-shaped-logs-${Date.now()}`;
  const model = 'gpt-4o-aws-shaped-logs';
  const requestsStream = () => [...stack.standIns.delivered.keys()][0];
  const rowsOfTrace = () => (stack.standIns.delivered.get(requestsStream()) ?? []).filter(({ row }) => row.trace_id === traceId);

  beforeAll(async () => {
    const headers = { ...viaMock(), 'x-gw-trace-id': traceId, 'x-gw-metadata': JSON.stringify({ team: traceId }) };
    const sent = await stack.request('POST', '/prod/v1/chat/completions', { headers, body: { ...chat, model } });
    expect(sent.status, sent.body).toBe(200);
  });

  it("the gateway puts the request's row on its delivery stream once it has answered, signed with its own role", () => {
    // The invocation has ended (the Lambda drain ran after the response): its row is on the stream.
    const rows = rowsOfTrace();
    expect(rows).toHaveLength(1);
    expect(rows[0].row).toMatchObject({ trace_id: traceId, model, provider: 'openai', status: 200, endpoint: expect.any(String) });
    expect(rows[0].row.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
    expect(stack.checked).toContain(`gateway firehose:PutRecordBatch arn:aws:firehose:us-east-1:123456789012:deliverystream/${requestsStream()}`);
  });

  it('GET /v1/logs?trace_id= finds it through Athena, with the parameters bound by Athena', async () => {
    const listed = await admin('GET', `/v1/logs?trace_id=${encodeURIComponent(traceId)}`);
    expect(listed.status, listed.body).toBe(200);
    const data = json<{ data: Array<Record<string, unknown>> }>(listed).data;
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ object: 'request_log', trace_id: traceId, model, provider: 'openai', status: 200 });
    const executions = [...stack.standIns.executions.values()];
    // The trace id went as an execution parameter, never in the query text.
    const read = executions.find((execution) => execution.parameters.includes(`'${traceId}'`));
    expect(read, 'an Athena execution bound the trace id').toBeDefined();
    expect(read!.query).not.toContain(traceId);
    expect(read!.state).toBe('SUCCEEDED');
    // Athena wrote the result where the workgroup puts results, with the control plane's permissions.
    expect(stack.standIns.results.objects.get(`results/${read!.id}.csv`)?.toString('utf8')).toContain(`"${traceId}"`);
  });

  it('filters and groups by a metadata key through Athena (element_at on the map column)', async () => {
    const listed = await admin('GET', `/v1/logs?metadata.team=${encodeURIComponent(traceId)}`);
    expect(listed.status, listed.body).toBe(200);
    expect(json<{ data: Array<{ trace_id: string; metadata: Record<string, string> }> }>(listed).data).toEqual([expect.objectContaining({ trace_id: traceId, metadata: { team: traceId } })]);
    const grouped = await admin('GET', '/v1/analytics?group_by=metadata.team');
    expect(grouped.status, grouped.body).toBe(200);
    expect(json<{ rows: Array<{ key: string; requests: number }> }>(grouped).rows).toContainEqual(expect.objectContaining({ key: traceId, requests: 1 }));
  });

  it('matches a filter value Athena cannot take as one parameter (as DuckDB does: read-apis.test.ts), bound as several', async () => {
    // 512 quotes is within the filter's limit, but quoted as a Trino literal (quotes doubled) it is over the 1,024
    // characters Athena accepts for one execution parameter; a NUL cannot be in a Trino literal at all.
    for (const value of ["'".repeat(512), 'a\u0000b']) {
      const headers = { ...viaMock(), 'x-gw-metadata': JSON.stringify({ whole: traceId, value }) };
      expect((await stack.request('POST', '/prod/v1/chat/completions', { headers, body: chat })).status).toBe(200);
      const response = await admin('GET', `/v1/logs?metadata.whole=${encodeURIComponent(traceId)}&metadata.value=${encodeURIComponent(value)}`);
      expect(response.status, response.body).toBe(200);
      expect(json<{ data: Array<{ metadata: Record<string, string> }> }>(response).data.map((record) => record.metadata)).toEqual([{ whole: traceId, value }]);
      const read = [...stack.standIns.executions.values()].reverse().find((execution) => execution.parameters.includes(`'${traceId}'`) && execution.query.includes('FROM requests'))!;
      expect(read.query).toMatch(/element_at\(metadata, \?\) = \(\? \|\| /);
      for (const parameter of read.parameters) expect(parameter.length).toBeLessThanOrEqual(1024);
    }
  });

  it('reports the row count of an export on AWS (GetQueryRuntimeStatistics: UNLOAD returns no rows)', async () => {
    const done = await exportTrace('jsonl');
    expect(json<{ row_count: number | null }>(await admin('GET', `/v1/exports/${done.id}`)).row_count).toBe(1);
  });

  it('analytics grouped by model answer through Athena (approx_percentile and all)', async () => {
    const response = await admin('GET', '/v1/analytics?group_by=model&interval=hour');
    expect(response.status, response.body).toBe(200);
    const analytics = json<{ rows: Array<{ key: string; requests: number; latency_p50_ms: number | null }>; series: Array<{ key: string; time: string }> }>(response);
    const row = analytics.rows.find((entry) => entry.key === model);
    expect(row).toMatchObject({ requests: 1, errors: 0 });
    expect(row!.latency_p50_ms).toEqual(expect.any(Number));
    expect(analytics.series.find((point) => point.key === model)?.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00Z$/);
    expect([...stack.standIns.executions.values()].some((execution) => execution.query.includes('approx_percentile('))).toBe(true);
  });

  it('GET /v1/traces summarises the trace, and GET /v1/traces/{id} returns its request and spans, through Athena', async () => {
    const listed = await admin('GET', `/v1/traces?trace_id=${encodeURIComponent(traceId)}`);
    expect(listed.status, listed.body).toBe(200);
    expect(json<{ data: unknown[] }>(listed).data).toEqual([expect.objectContaining({ object: 'trace', trace_id: traceId, models: [model] })]);
    const trace = await admin('GET', `/v1/traces/${encodeURIComponent(traceId)}`);
    expect(trace.status, trace.body).toBe(200);
    expect(json<{ requests: Array<{ trace_id: string }> }>(trace).requests.map((request) => request.trace_id)).toEqual([traceId]);
    // The spans the gateway put on the spans stream come back through Athena with their typed attributes.
    const delivered = (stack.standIns.delivered.get([...stack.standIns.delivered.keys()][1]) ?? []).filter(({ row }) => row.trace_id === traceId);
    expect(delivered.length).toBeGreaterThan(0);
    const spans = json<{ spans: Array<{ span_id: string; name: string; attributes: Record<string, unknown> }> }>(trace).spans;
    expect(spans.map((span) => span.span_id).sort()).toEqual(delivered.map(({ row }) => row.span_id).sort());
    expect(spans.find((span) => span.name === 'attempt')?.attributes).toMatchObject({ 'gw.retry': 0, 'gen_ai.request.model': model });
  });

  /** POSTs an export of the trace and waits until Athena has ended its UNLOAD; answers the finished job. */
  async function exportTrace(format: 'jsonl' | 'csv' | 'parquet'): Promise<{ id: string; status: string; download_urls: string[] }> {
    const created = await admin('POST', '/v1/exports', { trace_id: traceId, format });
    expect(created.status, created.body).toBe(202);
    const id = json<{ id: string }>(created).id;
    // The job runs in Athena: the control plane answers `running` until GetQueryExecution says it has ended.
    let done: { id: string; status: string; download_urls: string[] } | undefined;
    await vi.waitFor(
      async () => {
        done = json(await admin('GET', `/v1/exports/${id}`));
        expect(done!.status).not.toMatch(/^(pending|running)$/);
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(done, JSON.stringify(done)).toMatchObject({ status: 'completed' });
    expect(done!.download_urls).toHaveLength(1);
    return done!;
  }

  /** The file behind a presigned URL: the URL is S3's, signed by the control plane's role, which the stand-in checks. */
  async function download(url: string): Promise<Buffer> {
    const response = await fetch(url.replace(/^https?:\/\/[^/]+/, stack.standIns.s3Url));
    expect(response.status).toBe(200);
    return Buffer.from(await response.arrayBuffer());
  }

  it('exports the rows with UNLOAD into the results bucket and hands out a presigned download of them', async () => {
    const done = await exportTrace('jsonl');
    const [key] = [...stack.standIns.results.objects.keys()].filter((entry) => entry.includes(`/${done.id}/`));
    expect(key).toMatch(/^exports\/[^/]+\/[^/]+\/.+\.gz$/);
    const lines = gunzipSync(await download(done.download_urls[0])).toString('utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ trace_id: traceId, model, provider: 'openai', status: 200 });
  });

  it('exports as CSV and as Parquet the same way', async () => {
    const csv = gunzipSync(await download((await exportTrace('csv')).download_urls[0])).toString('utf8').trim().split('\n');
    expect(csv).toHaveLength(1);
    // Athena quotes nothing in TEXTFILE: the statement hands it finished CSV lines, one cell per column (issue #43).
    const [cells] = parseCsv(csv[0]);
    expect(cells).toHaveLength(REQUEST_COLUMNS.filter((column) => !column.partition).length);
    expect(cells).toContain(traceId);
    expect(cells).toContain(model);
    const parquet = await download((await exportTrace('parquet')).download_urls[0]);
    expect(parquet.subarray(0, 4).toString('latin1')).toBe('PAR1');
    // Read back with DuckDB: the one row, its columns typed.
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const file = join(bundles, 'export.parquet');
    writeFileSync(file, parquet);
    const connection = await (await DuckDBInstance.create(':memory:')).connect();
    const rows = (await connection.runAndReadAll(`SELECT trace_id, model, status FROM read_parquet('${file}')`)).getRowObjectsJS();
    connection.closeSync();
    expect(rows).toEqual([{ trace_id: traceId, model, status: 200n }]);
  });
});


describeRequestLogCompaction(() => ({ stack, admin, viaMock, chat }));

describe('the console on the default API URL', () => {
  it('serves the page and every asset it loads under /prod', () => checkConsoleUnderStage(stack));
});

describe('the scheduled functions', () => {
  it('expire-api-keys expires a key past its expiry, which the gateway then refuses', async () => {
    const created = await admin('POST', '/v1/api-keys', { name: 'short-lived', scopes: ['completions:write'], expires_at: new Date(Date.now() + 1_500).toISOString() });
    expect(created.status, created.body).toBe(201);
    const { id, key } = json<{ id: string; key: string }>(created);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect(await stack.runSchedule('expire-api-keys')).toMatchObject({ expired: 1 });
    expect(json<{ status: string }>(await admin('GET', `/v1/api-keys/${id}`)).status).toBe('expired');
    const refused = await stack.request('POST', '/prod/v1/chat/completions', { headers: { ...viaMock(), 'x-gw-api-key': key }, body: chat });
    expect(refused.status).toBe(401);
    expect(json<{ error: { code: string } }>(refused).error.code).toBe('api_key_expired');
  });

  it('restore-budgets resets a workspace budget that is due', async () => {
    const { WorkspaceRepository } = await import('../../shared/store/workspace-repository.js');
    const { randomUUID } = await import('node:crypto');
    const organisation = json<{ data: Array<{ organisation_id: string }> }>(await admin('GET', '/v1/workspaces')).data[0].organisation_id;
    const workspaceId = randomUUID();
    const dueAt = new Date(Date.now() - 60_000).toISOString();
    await new WorkspaceRepository().createWorkspace({
      id: workspaceId,
      organisation_id: organisation,
      name: 'due budget',
      slug: `due-${workspaceId.slice(0, 8)}`,
      created_at: new Date().toISOString(),
      budget_credit_limit: 5,
      budget_periodic_reset: 'monthly',
      budget_current_usage: 4,
      budget_status: 'active',
      budget_next_reset_at: dueAt,
    });
    expect(await stack.runSchedule('restore-budgets')).toMatchObject({ reset: 1 });
    const workspace = await new WorkspaceRepository().getWorkspace(workspaceId);
    expect(workspace).toMatchObject({ budget_current_usage: 0, budget_last_reset_at: dueAt });
  });
});

describe('the IAM check of the harness', () => {
  /** The calls these tests make outside a function's grants on purpose: not what the functions use. */
  const refusedOnPurpose = new Set<string>();
  const takeDenied = () => {
    const denied = stack.denied.splice(0);
    for (const entry of denied) refusedOnPurpose.add(entry);
    return denied;
  };

  it('refuses, and reports, a call the calling function\'s statements do not allow', async () => {
    const { DynamoDBClient, ScanCommand } = await import('@aws-sdk/client-dynamodb');
    // Signed as the expire-api-keys function, which may not Scan (no function may).
    const client = new DynamoDBClient({ region: 'us-east-1', endpoint: stack.standIns.dynamodbUrl, credentials: { accessKeyId: 'AKIDGWEXPIREAPIKEYS', secretAccessKey: 'x' }, maxAttempts: 1 });
    await expect(client.send(new ScanCommand({ TableName: 'gw-main' }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    expect(takeDenied()).toEqual(['expire-api-keys dynamodb:Scan arn:aws:dynamodb:us-east-1:123456789012:table/gw-main']);
    client.destroy();
  });

  it('refuses, and reports, a Firehose put or an Athena query outside the caller\'s statements', async () => {
    const { FirehoseClient, PutRecordBatchCommand } = await import('@aws-sdk/client-firehose');
    const { AthenaClient, StartQueryExecutionCommand } = await import('@aws-sdk/client-athena');
    const as = (name: string) => ({ region: 'us-east-1', credentials: { accessKeyId: stack.accessKeyOf(name), secretAccessKey: 'x' }, maxAttempts: 1 });
    const stream = [...stack.standIns.delivered.keys()][0];
    const firehose = new FirehoseClient({ ...as('control-plane'), endpoint: stack.standIns.firehoseUrl });
    const athena = new AthenaClient({ ...as('gateway'), endpoint: stack.standIns.athenaUrl });
    try {
      // The control plane may not append rows; the gateway may not query them.
      await expect(firehose.send(new PutRecordBatchCommand({ DeliveryStreamName: stream, Records: [{ Data: Buffer.from('{}\n') }] }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
      await expect(athena.send(new StartQueryExecutionCommand({ QueryString: 'SELECT 1', WorkGroup: 'gw-logs' }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
      expect(takeDenied()).toEqual([
        `control-plane firehose:PutRecordBatch arn:aws:firehose:us-east-1:123456789012:deliverystream/${stream}`,
        'gateway athena:StartQueryExecution arn:aws:athena:us-east-1:123456789012:workgroup/gw-logs',
      ]);
    } finally {
      firehose.destroy();
      athena.destroy();
    }
  });

  it('checked the calls of every function, on every service they use', () => {
    const services = (fn: string) => new Set(stack.checked.filter((entry) => entry.startsWith(`${fn} `) && !refusedOnPurpose.has(entry)).map((entry) => entry.split(' ')[1].split(':')[0]));
    expect(services('gateway')).toEqual(new Set(['dynamodb', 'secretsmanager', 'firehose']));
    // Athena reads the Glue catalog and the buckets with the caller's own permissions.
    expect(services('control-plane')).toEqual(new Set(['dynamodb', 'secretsmanager', 's3', 'athena', 'glue']));
    expect(services('expire-api-keys')).toEqual(new Set(['dynamodb']));
    expect(services('restore-budgets')).toEqual(new Set(['dynamodb']));
    // Its own calls (Athena, the data bucket) and Athena's on its behalf while an UNLOAD runs (Glue, S3).
    expect(services('compact-request-logs')).toEqual(new Set(['athena', 'glue', 's3']));
  });

  it('leaves every function\'s calls in the run\'s recordings, so scripts/check-grants.ts after this suite alone checks them', () => {
    // Before, the bundles recorded nothing and check-grants after this suite alone checked 0 operations (issue #43).
    const directory = resolve(process.env.GW_RECORD_AWS_OPERATIONS_DIR!);
    const recorded = readdirSync(directory)
      .filter((name) => name.endsWith('.jsonl'))
      .flatMap((name) => readFileSync(join(directory, name), 'utf8').split('\n').filter(Boolean))
      .map((line) => JSON.parse(line) as { fn?: string; service: string });
    const services = (fn: string) => new Set(recorded.filter((operation) => operation.fn === fn).map((operation) => operation.service));
    for (const service of ['dynamodb', 'secretsmanager', 'firehose']) expect(services('gateway').has(service), service).toBe(true);
    for (const fn of ['gateway', 'control-plane', 'expire-api-keys', 'restore-budgets', 'compact-request-logs']) expect(services(fn).size, fn).toBeGreaterThan(0);
  });
});
