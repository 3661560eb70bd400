import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureTables } from '../../infra/local/embedded-store.js';
import { buildFunctions } from '../../scripts/build.js';
import { parseSettings } from '../../shared/settings.js';
import { TABLES } from '../../shared/store/table-definitions.js';
import { startAwsStandIns, type AwsStandIns } from '../aws-shaped/support/aws-stand-ins.js';
import { templateDeaggregation } from '../aws-shaped/support/firehose-stand-in.js';
import { functionLogicalIds, functionStatements, resolveValue, templateAuthorizer, type Template } from '../support/iam-policy.js';
import { startMockUpstream, type MockUpstream, type RecordedRequest } from '../support/mock-upstream.js';
import { readRecordedCounts, recordedCountsFrom, writeRecordedCounts, type RecordedCounts } from '../../scripts/cost/recorded-counts.js';
import { synthGwStack } from './support/synth.js';

/**
 * Issue #44, "concurrency-safe handlers": on Lambda Managed Instances one worker thread runs many invocations of the
 * gateway at once, sharing its module state. Here the BUILT gateway bundle runs in a worker thread
 * (support/concurrent-lambda-worker.mjs) with the environment the synthesised managed-instances template gives it,
 * against the AWS stand-ins (IAM-checked DynamoDB, Firehose, S3, Secrets Manager), and takes CONCURRENCY invocations
 * at once: the mock provider holds every call until all of them have arrived, so they are truly in flight together.
 * Every answer must be its own request's, every request must have exactly one log record with its own numbers, and
 * the workspace's charges must add up to exactly the logged costs.
 */
const CONCURRENCY = 64;
const REGION = 'us-east-1';
const ACCOUNT = '123456789012';
const ADMIN_KEY = 'gwk_concurrency_admin_key_0123456789abcdef';
const ACCESS_KEY = 'AKIDGWGATEWAY';

let bundles: string;
let standIns: AwsStandIns;
let upstream: MockUpstream;
let worker: Worker;
/** The same bundle in a worker of its own with the classic environment: it drains at the end of each invocation. */
let classicWorker: Worker;
let denied: string[];
let checked: string[];
let requestsStream: string;
let workspaceId: string;
let firehoseGate: Server;
let firehoseGateOpen: Promise<void> = Promise.resolve();
let openFirehoseGate: () => void = () => undefined;
function closeFirehoseGate(): void {
  firehoseGateOpen = new Promise<void>((resolve) => (openFirehoseGate = resolve));
}

/**
 * Firehose behind a gate that holds every call until the test opens it: the invocations must all end while their
 * request logs are still unsent, which a per-invocation drain of the after-path would never let them do.
 */
async function gatedFirehose(target: string): Promise<string> {
  firehoseGate = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const gate = firehoseGateOpen;
      void gate.then(() => {
        const upstream = httpRequest(target, { method: request.method, headers: request.headers }, (answer) => {
          response.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(response);
        });
        upstream.on('error', () => response.destroy());
        upstream.end(Buffer.concat(parts));
      });
    });
  });
  await new Promise<void>((resolve) => firehoseGate.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(firehoseGate.address() as AddressInfo).port}`;
}

/** The mock provider: answers each call with its own prompt echoed and token counts derived from it. */
let holdUntilArrived: ((count: number) => Promise<void>) | undefined;
/** From now on, holds every provider call until `count` calls have arrived. */
function armBarrier(count: number): void {
  let arrived = 0;
  let release!: () => void;
  const allArrived = new Promise<void>((resolve) => (release = resolve));
  holdUntilArrived = () => {
    if (++arrived === count) release();
    return allArrived;
  };
}

function echoProvider() {
  return async (request: RecordedRequest) => {
    await holdUntilArrived?.(0);
    const body = request.json as { messages: Array<{ content: string }>; stream?: boolean };
    const prompt = body.messages[0].content;
    const index = Number(prompt.split('#')[1]);
    const usage = { prompt_tokens: 10 + index, completion_tokens: 1 + index, total_tokens: 11 + 2 * index };
    const content = `echo ${prompt}`;
    if (!body.stream) {
      return { json: { id: `chatcmpl-${index}`, object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage } };
    }
    const chunk = (delta: unknown, extra: Record<string, unknown> = {}) => `data: ${JSON.stringify({ id: `chatcmpl-${index}`, object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: delta ? [{ index: 0, delta, finish_reason: null }] : [], ...extra })}\n\n`;
    return { chunks: [chunk({ role: 'assistant', content: content.slice(0, 5) }), chunk({ content: content.slice(5) }), chunk(null, { usage }), 'data: [DONE]\n\n'] };
  };
}

interface Answer {
  status: number;
  body: string;
  error?: string;
  maxInFlight: number;
}

const pending = new Map<string, { chunks: Buffer[]; resolve: (answer: Answer) => void }>();

function invoke(event: unknown, target: Worker = worker): Promise<Answer> {
  const id = randomUUID();
  return new Promise((resolve) => {
    pending.set(id, {
      chunks: [],
      resolve: (answer) => resolve(answer),
    });
    target.postMessage({ id, event });
  });
}

function chatEvent(index: number, stream: boolean) {
  const headers = { 'content-type': 'application/json', 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-concurrency', 'x-gw-trace-id': `concurrent-${index}` };
  return {
    resource: '/v1/chat/completions',
    path: '/v1/chat/completions',
    httpMethod: 'POST',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: { requestId: randomUUID(), stage: 'prod', path: '/prod/v1/chat/completions', resourcePath: '/v1/chat/completions', httpMethod: 'POST', identity: { sourceIp: '203.0.113.9' } },
    body: JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: `request #${index}` }] }),
    isBase64Encoded: false,
  };
}

beforeAll(async () => {
  bundles = mkdtempSync(join(tmpdir(), 'gw-concurrency-'));
  [, upstream] = await Promise.all([buildFunctions(bundles, ['gateway']), startMockUpstream(echoProvider())]);

  // The gateway's environment and IAM statements as the managed-instances template gives them.
  const { stack, template } = synthGwStack({ context: { gatewayCompute: 'managed-instances' } });
  const json = template.toJSON() as Template;
  const gatewayId = functionLogicalIds(json).get('gateway')!;
  const variables = (json.Resources[gatewayId].Properties!.Environment as { Variables: Record<string, unknown> }).Variables;
  const defaults = parseSettings({});
  const names: Record<string, string> = {};
  for (const definition of TABLES) names[(variables[definition.nameSetting] as { Ref: string }).Ref] = defaults[definition.nameSetting];
  const bucketId = stack.getLogicalId(stack.blobs.bucket.node.defaultChild as never);
  names[bucketId] = bucketId.toLowerCase();
  const place = { region: REGION, account: ACCOUNT, names };
  const environment = Object.fromEntries(Object.entries(variables).map(([key, value]) => [key, String(resolveValue(json, value, place))]));
  const authorize = templateAuthorizer(functionStatements(json, place), (key) => (key === ACCESS_KEY ? 'gateway' : undefined));
  denied = authorize.denied;
  checked = authorize.checked;
  requestsStream = environment.GW_LOG_STREAM_REQUESTS;
  const logs = { streams: { requests: environment.GW_LOG_STREAM_REQUESTS, spans: environment.GW_LOG_STREAM_SPANS }, workgroup: 'unused', outputLocation: 's3://unused/results/', database: 'unused', dataBucket: 'unused-data', resultsBucket: 'unused-results', deaggregation: templateDeaggregation(json) };
  standIns = await startAwsStandIns({ region: REGION, account: ACCOUNT, bucket: names[bucketId], logs, authorize, recordIndexEntries: true });

  // The operator (this process) creates the tables and the organisation straight in the store.
  Object.assign(process.env, { GW_DYNAMODB_ENDPOINT: standIns.dynaliteUrl, AWS_REGION: REGION });
  await ensureTables(standIns.dynaliteUrl, REGION, TABLES.map((definition) => ({ definition, name: defaults[definition.nameSetting] })));
  const { bootstrapOrganisation } = await import('../../shared/control-plane/bootstrap.js');
  ({ workspaceId } = await bootstrapOrganisation(ADMIN_KEY));
  const workerEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '', ...environment, AWS_REGION: REGION, AWS_LAMBDA_FUNCTION_NAME: 'gw-gateway', AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '2048', LAMBDA_TASK_ROOT: join(bundles, 'gateway'),
    AWS_ACCESS_KEY_ID: ACCESS_KEY, AWS_SECRET_ACCESS_KEY: 'concurrency-secret', AWS_SESSION_TOKEN: 'concurrency-session',
    GW_DYNAMODB_ENDPOINT: standIns.dynamodbUrl, GW_S3_ENDPOINT: standIns.s3Url, GW_SECRETS_MANAGER_ENDPOINT: standIns.secretsManagerUrl,
    GW_FIREHOSE_ENDPOINT: await gatedFirehose(standIns.firehoseUrl), GW_ATHENA_ENDPOINT: standIns.athenaUrl, GW_ALLOW_LOOPBACK_HOSTS: 'ON',
    POWERTOOLS_TRACE_ENABLED: 'false', POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const start = async (env: Record<string, string>) => {
    const started = new Worker(join(import.meta.dirname, 'support', 'concurrent-lambda-worker.mjs'), { workerData: { bundleDir: join(bundles, 'gateway'), functionName: 'gw-gateway' }, env });
    started.on('message', (message: { ready?: boolean; id?: string; chunk?: string; done?: boolean; error?: string; maxInFlight?: number }) => {
      const entry = message.id ? pending.get(message.id) : undefined;
      if (!entry) return;
      if (message.chunk) entry.chunks.push(Buffer.from(message.chunk, 'base64'));
      if (!message.done) return;
      pending.delete(message.id!);
      const all = Buffer.concat(entry.chunks);
      const delimiter = all.indexOf(Buffer.alloc(8));
      const prelude = delimiter >= 0 ? (JSON.parse(all.subarray(0, delimiter).toString('utf8')) as { statusCode: number }) : { statusCode: 0 };
      entry.resolve({ status: prelude.statusCode, body: all.subarray(delimiter + 8).toString('utf8'), error: message.error, maxInFlight: message.maxInFlight ?? 0 });
    });
    await new Promise<void>((resolve, reject) => {
      started.once('error', reject);
      started.on('message', (message: { ready?: boolean }) => message.ready && resolve());
    });
    return started;
  };
  // The classic gateway differs only by GW_CONCURRENT_INVOCATIONS (gw-stack.ts sets it on a capacity provider).
  const { GW_CONCURRENT_INVOCATIONS: concurrent, ...classicEnv } = workerEnv;
  expect(concurrent).toBe('ON');
  [worker, classicWorker] = await Promise.all([start(workerEnv), start(classicEnv)]);
}, 180_000);

afterAll(async () => {
  openFirehoseGate();
  await worker?.terminate();
  await classicWorker?.terminate();
  firehoseGate?.close();
  await upstream?.close();
  await standIns?.close();
  if (bundles) rmSync(bundles, { recursive: true, force: true });
});

/**
 * What one warm gateway request costs in billed AWS operations, measured on the built bundle against the stand-ins
 * (every call the IAM check saw, every record Firehose received, every index entry the writes wrote), once per
 * compute: `npm run cost` prices each mode with its own counts from scripts/cost/recorded-counts.json, and this test
 * fails when they drift from it. `GW_WRITE_RECORDED_COUNTS=1` rewrites the file from the measurement.
 */
describe('billed operations per warm request (recorded for npm run cost)', () => {
  const CLASSIC_REQUESTS = 100;
  const MANAGED_REQUESTS = CONCURRENCY;
  const streams = () => [requestsStream, [...standIns.delivered.keys()].find((stream) => stream !== requestsStream)!];
  const snapshot = () => ({ checked: checked.length, writes: standIns.writes.length, records: streams().map((stream) => standIns.records.get(stream)!.length), rows: streams().map((stream) => standIns.delivered.get(stream)!.length) });
  const measure = (before: ReturnType<typeof snapshot>, requests: number, scenario: string, flushedPerRequest: boolean): RecordedCounts => {
    const [requestRecords, spanRecords] = streams().map((stream, index) => standIns.records.get(stream)!.slice(before.records[index]));
    const [requestRows, spanRows] = streams().map((stream, index) => standIns.delivered.get(stream)!.length - before.rows[index]);
    return recordedCountsFrom({
      scenario,
      measuredBy: 'test/infra/gateway-concurrency.test.ts',
      requests,
      calls: checked.slice(before.checked),
      records: { requests: requestRecords, spans: spanRecords },
      rows: { requests: requestRows, spans: spanRows },
      indexEntries: standIns.writes.slice(before.writes).reduce((sum, write) => sum + write.indexEntries, 0),
      flushedPerRequest,
    });
  };
  const expectOk = (answer: Answer) => expect(answer.status, answer.body || answer.error).toBe(200);
  let classic: RecordedCounts;
  let managed: RecordedCounts;
  let managedRecords: number;

  beforeAll(async () => {
    // Warm-up (left out of both measurements): the first request fills the caches and the index-entry counter's
    // schemas; a classic invocation drains its after-path before it ends.
    expectOk(await invoke(chatEvent(1000, false), classicWorker));
    await vi.waitFor(() => expect(standIns.delivered.get(requestsStream)!.length).toBe(1), { timeout: 30_000, interval: 50 });

    // Classic Lambda: one request at a time, each flushed at the end of its own invocation.
    let before = snapshot();
    for (let index = 1; index <= CLASSIC_REQUESTS; index++) expectOk(await invoke(chatEvent(1000 + index, false), classicWorker));
    await vi.waitFor(() => expect(standIns.delivered.get(requestsStream)!.length).toBe(1 + CLASSIC_REQUESTS), { timeout: 30_000, interval: 50 });
    classic = measure(before, CLASSIC_REQUESTS, 'warm non-streamed chat completions one at a time, each invocation draining its after-path (classic Lambda), gw API key, no policies or budgets, request logs on', true);

    // Managed instances: invocations in flight together in one environment, the after-path flushed in the
    // background; the mock provider holds them until all have arrived, so they end together.
    before = snapshot();
    armBarrier(MANAGED_REQUESTS);
    const answers = await Promise.all(Array.from({ length: MANAGED_REQUESTS }, (_, index) => invoke(chatEvent(2000 + index, false))));
    answers.forEach(expectOk);
    await vi.waitFor(() => expect(standIns.delivered.get(requestsStream)!.length).toBe(1 + CLASSIC_REQUESTS + MANAGED_REQUESTS), { timeout: 30_000, interval: 50 });
    // The spans table's flush is a call of its own after the requests table's: wait for its rows too (as many per
    // request as a drained classic invocation wrote), or a loaded machine measures the wave before they land.
    const spanStream = streams()[1];
    const spanRows = classic.firehose.byTable.spans.rowsPerRequest * MANAGED_REQUESTS;
    await vi.waitFor(() => expect(standIns.delivered.get(spanStream)!.length - before.rows[1]).toBeGreaterThanOrEqual(spanRows), { timeout: 30_000, interval: 50 });
    managed = measure(before, MANAGED_REQUESTS, `warm non-streamed chat completions, ${MANAGED_REQUESTS} in flight at once in one environment with background flushes (managed instances), gw API key, no policies or budgets, request logs on`, false);
    managedRecords = streams().reduce((sum, stream, index) => sum + standIns.records.get(stream)!.length - before.records[index], 0);
    if (process.env.GW_WRITE_RECORDED_COUNTS === '1') {
      writeRecordedCounts('lambda', classic);
      writeRecordedCounts('managed-instances', managed);
    }
  }, 120_000);

  /**
   * Everything per request exactly; reads within a bound: a warm request reads nothing, and the few reads measured
   * are the caches' refreshes (one per TTL and item per sandbox), so their share per request follows the pace of
   * the machine that ran this, not the code.
   */
  const expectRecorded = (measured: RecordedCounts, recorded: RecordedCounts) => {
    const isRead = (operation: string) => /^dynamodb:(GetItem|BatchGetItem|Query|Scan) /.test(operation);
    const withoutReads = (counts: RecordedCounts) => ({
      ...counts,
      operations: Object.fromEntries(Object.entries(counts.operations).filter(([operation]) => !isRead(operation))),
      dynamodb: { ...counts.dynamodb, readsPerRequest: 0 },
    });
    expect(withoutReads(measured)).toEqual(withoutReads(recorded));
    expect(measured.dynamodb.readsPerRequest).toBeLessThanOrEqual(0.5);
  };

  it('matches scripts/cost/recorded-counts.json for classic Lambda (npm run cost computes from it)', () => {
    expectRecorded(classic, readRecordedCounts().lambda);
  });

  it('matches it for managed instances, the counts the model prices that mode with', () => {
    expectRecorded(managed, readRecordedCounts()['managed-instances']);
  });

  it('packs the requests that share an environment into a few records (the class: one record per request billed 5 KB each)', () => {
    // One flush per table when the wave ends inside the sink's 1 s timer; two if it straddles a tick.
    expect(managedRecords).toBeGreaterThanOrEqual(2);
    expect(managedRecords).toBeLessThanOrEqual(4);
  });

  it('counts the index entries of each written item from its keys (the class: one entry per write assumed from an older design)', async () => {
    // Writes as the gateway signs them, through the IAM-checked proxy: the workspace item carries gsi keys, an
    // item without them costs its own write only.
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const { DynamoDBDocumentClient, UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { keys } = await import('../../shared/store/keys.js');
    const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: REGION, endpoint: standIns.dynamodbUrl, credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: 'concurrency-secret' } }));
    const table = parseSettings({}).GW_TABLE_MAIN;
    const before = standIns.writes.length;
    await client.send(new UpdateCommand({ TableName: table, Key: keys.workspace(workspaceId), UpdateExpression: 'SET cost_probe = :one', ExpressionAttributeValues: { ':one': 1 } }));
    await client.send(new UpdateCommand({ TableName: table, Key: { pk: `COSTPROBE#${workspaceId}`, sk: 'COUNTER' }, UpdateExpression: 'ADD used :one', ExpressionAttributeValues: { ':one': 1 } }));
    client.destroy();
    const [indexed, plain] = standIns.writes.slice(before);
    expect(indexed.indexEntries).toBeGreaterThanOrEqual(1);
    expect(plain.indexEntries).toBe(0);
  });
});

describe('the built gateway bundle under concurrent invocations in one worker (Lambda Managed Instances)', () => {
  let answers: Answer[];
  let usageBefore = 0;
  let rowsBefore = 0;
  beforeAll(async () => {
    // A budget far above what the test spends, so charges go through the budget's path too.
    const { dynamoDocumentClient } = await import('../../shared/store/dynamo-client.js');
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { keys } = await import('../../shared/store/keys.js');
    const { WorkspaceBudgetRepository } = await import('../../shared/store/workspace-budget-repository.js');
    usageBefore = (await new WorkspaceBudgetRepository().read(workspaceId))!.currentUsage;
    rowsBefore = standIns.delivered.get(requestsStream)!.length;
    await dynamoDocumentClient().send(
      new UpdateCommand({
        TableName: parseSettings({}).GW_TABLE_MAIN,
        Key: keys.workspace(workspaceId),
        UpdateExpression: 'SET budget_credit_limit = :limit, budget_periodic_reset = :none, budget_status = :active',
        ExpressionAttributeValues: { ':limit': 1000, ':none': 'none', ':active': 'active' },
      }),
    );
    closeFirehoseGate();
    armBarrier(CONCURRENCY);
    answers = await Promise.all(Array.from({ length: CONCURRENCY }, (_, index) => invoke(chatEvent(index, index % 2 === 1))));
  }, 120_000);

  it('ran them all at once on one thread', () => {
    expect(answers.every((answer) => answer.error === undefined), answers.find((answer) => answer.error)?.error).toBe(true);
    expect(Math.max(...answers.map((answer) => answer.maxInFlight))).toBe(CONCURRENCY);
  });

  it("gives every request its own answer, streamed or not (no request's state leaks into another's)", () => {
    for (const [index, answer] of answers.entries()) {
      expect(answer.status, answer.body).toBe(200);
      if (index % 2 === 0) {
        const body = JSON.parse(answer.body) as { choices: Array<{ message: { content: string } }>; usage: { completion_tokens: number } };
        expect(body.choices[0].message.content).toBe(`echo request #${index}`);
        expect(body.usage.completion_tokens).toBe(1 + index);
      } else {
        const events = answer.body.split('\n\n').filter((event) => event.startsWith('data: ') && event !== 'data: [DONE]');
        const text = events.map((event) => (JSON.parse(event.slice(6)) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta?.content ?? '').join('');
        expect(text).toBe(`echo request #${index}`);
        expect(answer.body.trimEnd().endsWith('data: [DONE]')).toBe(true);
      }
    }
  });

  it('ends every invocation without draining the after-path (a per-invocation drain makes each request wait for all the others\' logs)', () => {
    // Every answer is in while Firehose still holds every request-log call.
    expect(answers).toHaveLength(CONCURRENCY);
    expect(standIns.delivered.get(requestsStream)).toHaveLength(rowsBefore);
  });

  it('writes exactly one request-log record per request, each with its own trace id, tokens and a cost', async () => {
    // Nothing drains per invocation on managed instances: the write-behind buffers flush on their own.
    openFirehoseGate();
    await vi.waitFor(() => expect(standIns.delivered.get(requestsStream)!.length).toBeGreaterThanOrEqual(rowsBefore + CONCURRENCY), { timeout: 30_000, interval: 50 });
    const rows = standIns.delivered.get(requestsStream)!.slice(rowsBefore).map(({ row }) => row);
    expect(rows).toHaveLength(CONCURRENCY);
    const byTrace = new Map(rows.map((row) => [row.trace_id, row]));
    expect(byTrace.size).toBe(CONCURRENCY);
    for (let index = 0; index < CONCURRENCY; index++) {
      const row = byTrace.get(`concurrent-${index}`);
      expect(row, `the log record of request ${index}`).toBeDefined();
      expect(row).toMatchObject({ status: 200, workspace_id: workspaceId, prompt_tokens: 10 + index, completion_tokens: 1 + index });
      expect(row!.cost).toBeGreaterThan(0);
    }
    expect(denied, 'AWS calls outside the gateway role').toEqual([]);
  });

  it('charges the workspace exactly the sum of the logged costs (no charge lost or doubled under concurrency)', async () => {
    const rows = standIns.delivered.get(requestsStream)!.slice(rowsBefore).map(({ row }) => row);
    const logged = usageBefore + rows.reduce((sum, row) => sum + Number(row.cost), 0);
    const { WorkspaceBudgetRepository } = await import('../../shared/store/workspace-budget-repository.js');
    const budgets = new WorkspaceBudgetRepository();
    await vi.waitFor(async () => expect((await budgets.read(workspaceId))!.currentUsage).toBeCloseTo(logged, 9), { timeout: 30_000, interval: 50 });
  });
});
