import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { APIGatewayProxyEvent, Context, ScheduledEvent } from 'aws-lambda';
import { handler as expireApiKeys } from '../../../functions/expire-api-keys/handler.js';
import { handler as restoreBudgets } from '../../../functions/restore-budgets/handler.js';
import { localLambdaContext } from '../../../infra/local/api-gateway-event.js';
import { scheduledEvent } from '../../../infra/local/server.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { logger } from '../../../shared/observability/logger.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';

/**
 * Log context of one job leaked into another (issue #43): the local runtime runs the scheduled functions in the
 * process that serves requests, and the Lambda context their handlers add to the shared Powertools logger
 * (`function_name`, `function_request_id`, …) stayed on it, so control-plane request lines read
 * `function_name: gw-restore-budgets` (and the log level each job's middleware set back silenced the lines after
 * it). Each invocation now logs through a logger of its own; these tests run the
 * jobs exactly as the local runtime does (the exported handler, a scheduled event, a local Lambda context) and read
 * the JSON lines gw writes. Class: log context shared across invocations.
 */
const SECRET = 'a-shared-secret-of-at-least-32-characters!';
let gateway: TestGateway;
let upstream: MockUpstream;
let lines: Array<Record<string, unknown>> = [];

type Job = (event: ScheduledEvent, context: Context) => Promise<unknown>;
const JOBS: Array<[name: string, handler: Job]> = [
  ['restore-budgets', restoreBudgets as unknown as Job],
  ['expire-api-keys', expireApiKeys as unknown as Job],
];

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway({ GW_JWT_SECRET: SECRET, GW_LOCAL_SCHEDULE_INTERVAL_MS: '0' });
  // The suite runs silent (vitest.config.ts); these tests read the lines.
  logger.setLogLevel('INFO');
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Collects every JSON line written to stdout or stderr while it is on. */
function captureLogLines(): void {
  lines = [];
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      for (const text of String(chunk).split('\n')) {
        if (text.startsWith('{')) lines.push(JSON.parse(text) as Record<string, unknown>);
      }
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write);
  }
}

function runJob(name: string, handler: Job): Promise<unknown> {
  return handler(scheduledEvent(name, 'us-east-1'), localLambdaContext(`gw-${name}`, 120_000) as unknown as Context);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const forgedToken = () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'mallory', exp: Math.floor(Date.now() / 1000) + 300 })}.`;

/** A control-plane request that writes one warning line: a token whose signature does not verify. */
async function forgedTokenRequest(): Promise<void> {
  const token = forgedToken();
  const response = await fetch(`${gateway.url}/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(401);
  await response.text();
}

const requestLines = () => lines.filter((line) => String(line.message).includes('signature does not verify'));
const jobLines = (name: string) => lines.filter((line) => line.message === `${name} finished`);

describe('each invocation’s log lines carry its own context', () => {
  it('a control-plane request after a scheduled job carries none of the job’s context', async () => {
    captureLogLines();
    for (const [name, handler] of JOBS) await runJob(name, handler);
    await forgedTokenRequest();
    for (const [name] of JOBS) {
      expect(jobLines(name)).toHaveLength(1);
      expect(jobLines(name)[0].function_name).toBe(`gw-${name}`);
    }
    expect(requestLines()).toHaveLength(1);
    expect(requestLines()[0]).not.toHaveProperty('function_name');
    expect(requestLines()[0]).not.toHaveProperty('function_request_id');
  });

  it('200 control-plane Lambda invocations at once in one process, interleaved with scheduled jobs: each line names its own invocation', async () => {
    // As on Lambda Managed Instances: one worker, many invocations of the same handler at the same time.
    type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<{ statusCode: number }>;
    // Loaded now: its app reads the settings, which the local runtime above has only now pointed at its store.
    const { handler: controlPlane } = await import('../../../functions/control-plane/handler.js');
    captureLogLines();
    const invocations = Array.from({ length: 200 }, (_, index) => ({ traceId: `log-context-${index}`, context: localLambdaContext('gw-control-plane', 120_000) as unknown as Context }));
    const event = (traceId: string): APIGatewayProxyEvent =>
      ({
        resource: '/{proxy+}', path: '/v1/workspaces', httpMethod: 'GET', headers: { authorization: `Bearer ${forgedToken()}`, 'x-gw-trace-id': traceId },
        multiValueHeaders: {}, queryStringParameters: null, multiValueQueryStringParameters: null, pathParameters: null, stageVariables: null, body: null, isBase64Encoded: false,
        requestContext: { requestId: traceId, stage: 'prod', identity: { sourceIp: '203.0.113.9' } } as APIGatewayProxyEvent['requestContext'],
      }) as APIGatewayProxyEvent;
    const runs: Array<Promise<unknown>> = [];
    for (const [index, { traceId, context }] of invocations.entries()) {
      runs.push((controlPlane as unknown as ProxyHandler)(event(traceId), context).then((result) => expect(result.statusCode).toBe(401)));
      if (index % 20 === 0) for (const [name, handler] of JOBS) runs.push(runJob(name, handler));
    }
    await Promise.all(runs);

    const requestIdOf = new Map(invocations.map(({ traceId, context }) => [traceId, context.awsRequestId]));
    expect(requestLines()).toHaveLength(200);
    for (const line of requestLines()) {
      expect(line.function_name).toBe('gw-control-plane');
      expect(line.function_request_id, String(line.trace_id)).toBe(requestIdOf.get(String(line.trace_id)));
    }
    for (const [name] of JOBS) {
      expect(jobLines(name)).toHaveLength(10);
      for (const line of jobLines(name)) expect(line.function_name).toBe(`gw-${name}`);
      expect(new Set(jobLines(name).map((line) => line.function_request_id)).size).toBe(10);
    }
  });

  it('200 gateway requests at once through the local edge, interleaved with scheduled jobs: each line is its own request’s', async () => {
    captureLogLines();
    const traceIds = Array.from({ length: 200 }, (_, index) => `gateway-context-${index}`);
    const runs: Array<Promise<unknown>> = [];
    for (const [index, traceId] of traceIds.entries()) {
      runs.push(
        fetch(`${gateway.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'x-gw-trace-id': traceId, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-upstream-0000' },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Hi ${index}` }] }),
        }).then(async (response) => expect((await response.text()) && response.status).toBe(200)),
      );
      if (index % 20 === 0) for (const [name, handler] of JOBS) runs.push(runJob(name, handler));
    }
    await Promise.all(runs);
    await drainAllBackgroundWork();
    const completed = lines.filter((line) => line.message === 'request completed' && traceIds.includes(String(line.trace_id)));
    expect(completed.map((line) => line.trace_id).sort()).toEqual([...traceIds].sort());
    for (const line of completed) {
      expect(line).not.toHaveProperty('function_name');
      expect(line).not.toHaveProperty('function_request_id');
    }
    for (const [name] of JOBS) expect(jobLines(name)).toHaveLength(10);
  });

  it('jobs and requests running at the same time each keep their own context', async () => {
    captureLogLines();
    const runs = [1, 2, 3].flatMap(() => [...JOBS.map(([name, handler]) => runJob(name, handler)), forgedTokenRequest()]);
    await Promise.all(runs);
    for (const [name] of JOBS) {
      expect(jobLines(name)).toHaveLength(3);
      for (const line of jobLines(name)) expect(line.function_name).toBe(`gw-${name}`);
      // Three runs, three invocations: each line names its own.
      expect(new Set(jobLines(name).map((line) => line.function_request_id)).size).toBe(3);
    }
    expect(requestLines()).toHaveLength(3);
    for (const line of requestLines()) expect(line).not.toHaveProperty('function_name');
  });
});
