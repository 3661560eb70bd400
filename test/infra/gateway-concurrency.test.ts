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

function invoke(event: unknown): Promise<Answer> {
  const id = randomUUID();
  return new Promise((resolve) => {
    pending.set(id, {
      chunks: [],
      resolve: (answer) => resolve(answer),
    });
    worker.postMessage({ id, event });
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
  standIns = await startAwsStandIns({ region: REGION, account: ACCOUNT, bucket: names[bucketId], logs, authorize });

  // The operator (this process) creates the tables and the organisation straight in the store.
  Object.assign(process.env, { GW_DYNAMODB_ENDPOINT: standIns.dynaliteUrl, AWS_REGION: REGION });
  await ensureTables(standIns.dynaliteUrl, REGION, TABLES.map((definition) => ({ definition, name: defaults[definition.nameSetting] })));
  const { bootstrapOrganisation } = await import('../../shared/control-plane/bootstrap.js');
  ({ workspaceId } = await bootstrapOrganisation(ADMIN_KEY));
  worker = new Worker(join(import.meta.dirname, 'support', 'concurrent-lambda-worker.mjs'), {
    workerData: { bundleDir: join(bundles, 'gateway'), functionName: 'gw-gateway' },
    env: {
      PATH: process.env.PATH ?? '',
      ...environment,
      AWS_REGION: REGION,
      AWS_LAMBDA_FUNCTION_NAME: 'gw-gateway',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '2048',
      LAMBDA_TASK_ROOT: join(bundles, 'gateway'),
      AWS_ACCESS_KEY_ID: ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: 'concurrency-secret',
      AWS_SESSION_TOKEN: 'concurrency-session',
      GW_DYNAMODB_ENDPOINT: standIns.dynamodbUrl,
      GW_S3_ENDPOINT: standIns.s3Url,
      GW_SECRETS_MANAGER_ENDPOINT: standIns.secretsManagerUrl,
      GW_FIREHOSE_ENDPOINT: await gatedFirehose(standIns.firehoseUrl),
      GW_ATHENA_ENDPOINT: standIns.athenaUrl,
      GW_ALLOW_LOOPBACK_HOSTS: 'ON',
      POWERTOOLS_TRACE_ENABLED: 'false',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  });
  worker.on('message', (message: { ready?: boolean; id?: string; chunk?: string; done?: boolean; error?: string; maxInFlight?: number }) => {
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
    worker.once('error', reject);
    worker.on('message', (message: { ready?: boolean }) => message.ready && resolve());
  });
}, 180_000);

afterAll(async () => {
  openFirehoseGate();
  await worker?.terminate();
  firehoseGate?.close();
  await upstream?.close();
  await standIns?.close();
  if (bundles) rmSync(bundles, { recursive: true, force: true });
});

/**
 * What one warm gateway request costs in billed AWS operations, measured on the built bundle against the stand-ins
 * (every call the IAM check saw, every record Firehose received): `npm run cost` reads these counts from
 * scripts/cost/recorded-counts.json, and this test fails when they drift from it. `GW_WRITE_RECORDED_COUNTS=1`
 * rewrites the file from the measurement.
 */
describe('billed operations per warm request (recorded for npm run cost)', () => {
  const WARM = 20;
  let measured: RecordedCounts;
  beforeAll(async () => {
    const send = async (index: number) => {
      const answer = await invoke(chatEvent(1000 + index, false));
      expect(answer.status, answer.body).toBe(200);
    };
    await send(0);
    await vi.waitFor(() => expect(standIns.delivered.get(requestsStream)!.length).toBe(1), { timeout: 30_000, interval: 50 });
    const streams = [...standIns.delivered.keys()];
    const before = { checked: checked.length, records: streams.map((stream) => standIns.records.get(stream)!.length), rows: streams.map((stream) => standIns.delivered.get(stream)!.length) };
    // One flush per request, as a Lambda drains at the end of each invocation (recorded-counts.ts): each request's
    // records are in before the next starts, so the count is the same however fast the machine is.
    for (let index = 1; index <= WARM; index++) {
      const received = streams.map((stream) => standIns.records.get(stream)!.length);
      await send(index);
      await vi.waitFor(() => expect(streams.every((stream, at) => standIns.records.get(stream)!.length > received[at])).toBe(true), { timeout: 30_000, interval: 20 });
    }
    await vi.waitFor(() => expect(standIns.delivered.get(requestsStream)!.length).toBe(1 + WARM), { timeout: 30_000, interval: 50 });
    const calls = checked.slice(before.checked);
    // The records Firehose received (each billed rounded up to 5 KB), each holding the rows of one flush.
    const records = streams.flatMap((stream, index) => standIns.records.get(stream)!.slice(before.records[index]));
    const rows = streams.reduce((sum, stream, index) => sum + standIns.delivered.get(stream)!.length - before.rows[index], 0);
    measured = recordedCountsFrom(WARM, calls, records, rows);
    // Whether the item a usage charge rewrites carries an index key: DynamoDB then also writes the index entry.
    const { dynamoDocumentClient } = await import('../../shared/store/dynamo-client.js');
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const { keys } = await import('../../shared/store/keys.js');
    const item = (await dynamoDocumentClient().send(new GetCommand({ TableName: parseSettings({}).GW_TABLE_MAIN, Key: keys.workspace(workspaceId) }))).Item ?? {};
    measured.dynamodb.indexEntriesPerWrite = Object.keys(item).some((name) => /^gsi\d+pk$/.test(name)) ? 1 : 0;
    if (process.env.GW_WRITE_RECORDED_COUNTS === '1') writeRecordedCounts(measured);
  }, 60_000);

  it('matches scripts/cost/recorded-counts.json (npm run cost computes from it)', () => {
    expect(measured).toEqual(readRecordedCounts());
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
