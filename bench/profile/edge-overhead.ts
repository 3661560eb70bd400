/**
 * What the Lambda edge costs per call, apart from the core: `npx tsx bench/profile/edge-overhead.ts [calls]`.
 *
 * Calls a streaming gateway handler N times in one process with an API Gateway event and a response stream that
 * discards what it gets, and reports µs of wall time and of CPU per call for:
 *   - middy: the handler as it was before issue #23 (middy `streamifyResponse` + Powertools `injectLambdaContext`,
 *     whose `stream.pipeline` aborts a controller on every response);
 *   - lean: `createStreamingHandler` (functions/lib/streaming-handler.ts), the handler gw ships;
 *   - lean + logger context: the same, with the Lambda context appended to the logger per call.
 * Each runs over three cores: a stub that answers a small JSON body, a stub that streams 10 SSE chunks (both so the
 * edge is all that is measured), and the real gateway core refusing a bad
 * `x-gw-trace-id` with a 400 (before authentication: no store, no network).
 * Micro-benchmark, sequential calls, one core: compare the rows with each other, not with a load test.
 *
 * `--log-write [records]`: instead, the time one request's log record takes to write after the response (the
 * drain of a Lambda invocation): a ~2 KB record plus 8 index rows as one BatchWriteItem, against the embedded
 * store on loopback (docs/architecture.md, "Request log path").
 *
 * `--local [requests]`: the local runtime end to end (node:http edge → core → a loopback SSE provider in this
 * process), sequential streamed chat requests; reports this process's CPU per request through gw minus the CPU
 * of the same request sent to the provider directly (client and provider cost cancel out; the embedded store's
 * own process is not counted).
 */
import { Writable } from 'node:stream';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { installLambdaShim } from '../../infra/local/lambda-shim.js';
import { localLambdaContext } from '../../infra/local/api-gateway-event.js';
import type { NeutralRequest, NeutralResponse } from '../../shared/http/types.js';

type Core = (request: NeutralRequest) => Promise<NeutralResponse>;
type StreamingHandler = (event: APIGatewayProxyEvent, stream: Writable, context: unknown) => Promise<void>;

const LOG_WRITE = process.argv.includes('--log-write');
const LOCAL = process.argv.includes('--local');
const CALLS = Number(process.argv.filter((arg) => !arg.startsWith('--'))[2] ?? (LOG_WRITE ? 300 : LOCAL ? 2_000 : 20_000));
const WARMUP = Math.min(2_000, CALLS);

Object.assign(process.env, { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', POWERTOOLS_LOG_LEVEL: 'INFO', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
installLambdaShim();

/** A response stream that takes every write at once and keeps nothing (the runtime's socket, minus the network). */
class DiscardingStream extends Writable {
  override _write(_chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    callback();
  }
}

const sseChunks = Array.from({ length: 10 }, (_, i) => Buffer.from(`data: {"choices":[{"delta":{"content":"token ${i} "}}]}\n\n`));
const cores: Record<string, Core> = {
  'stub JSON': async () => ({ status: 200, headers: { 'content-type': 'application/json', 'x-gw-provider': 'openai' }, body: '{"id":"chatcmpl-1","choices":[]}' }),
  'stub SSE x10': async () => ({
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'x-gw-provider': 'openai' },
    body: (async function* () {
      yield* sseChunks;
    })(),
  }),
};

function eventFor(): APIGatewayProxyEvent {
  return {
    resource: '/{proxy+}',
    path: '/v1/chat/completions',
    httpMethod: 'POST',
    // The trace id is refused by the real core before anything else, so that row needs no store and no network.
    headers: { 'Content-Type': 'application/json', 'X-GW-Provider': 'openai', 'X-GW-Trace-Id': 'not a trace id' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
    isBase64Encoded: false,
    requestContext: { requestId: 'req-1', stage: 'prod', identity: { sourceIp: '203.0.113.9' } } as APIGatewayProxyEvent['requestContext'],
  };
}

async function middyHandler(core: Core): Promise<StreamingHandler> {
  const middy = (await import('@middy/core')).default;
  const { injectLambdaContext } = await import('@aws-lambda-powertools/logger/middleware');
  const { logger } = await import('../../shared/observability/logger.js');
  const { toNeutralRequest, toStreamingResult } = await import('../../functions/lib/api-gateway-event.js');
  return middy<APIGatewayProxyEvent>({ streamifyResponse: true })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (event: APIGatewayProxyEvent) => toStreamingResult(await core(toNeutralRequest(event)))) as unknown as StreamingHandler;
}

async function leanHandler(core: Core, withLoggerContext: boolean): Promise<StreamingHandler | undefined> {
  const module = (await import('../../functions/lib/streaming-handler.js').catch(() => undefined)) as
    | { createStreamingHandler(core: Core, options?: { loggerContext?: boolean; drainAfterResponse?: boolean }): unknown }
    | undefined;
  return module?.createStreamingHandler(core, { loggerContext: withLoggerContext, drainAfterResponse: false }) as StreamingHandler | undefined;
}

async function measure(handler: StreamingHandler): Promise<{ wallUs: number; cpuUs: number }> {
  const context = localLambdaContext('gw-gateway');
  for (let i = 0; i < WARMUP; i++) await handler(eventFor(), new DiscardingStream(), context);
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await handler(eventFor(), new DiscardingStream(), context);
  const wallUs = Number(process.hrtime.bigint() - started) / 1_000 / CALLS;
  const used = process.cpuUsage(cpu);
  return { wallUs, cpuUs: (used.user + used.system) / CALLS };
}

async function main(): Promise<void> {
  const { createGatewayApp } = await import('../../shared/gateway/app.js');
  const allCores: Record<string, Core> = { ...cores, 'real core, 400': createGatewayApp() };
  const rows: string[] = ['| core | handler | µs/call (wall) | µs/call (CPU) |', '|---|---|---:|---:|'];
  for (const [coreName, core] of Object.entries(allCores)) {
    const variants: Array<[string, StreamingHandler | undefined]> = [
      ['middy', await middyHandler(core)],
      ['lean', await leanHandler(core, false)],
      ['lean + logger context', await leanHandler(core, true)],
    ];
    for (const [name, handler] of variants) {
      if (!handler) continue;
      const { wallUs, cpuUs } = await measure(handler);
      rows.push(`| ${coreName} | ${name} | ${wallUs.toFixed(1)} | ${cpuUs.toFixed(1)} |`);
      process.stderr.write(`${rows.at(-1)}\n`);
    }
  }
  console.log(`\n${CALLS} sequential calls per row after ${WARMUP} warm-up calls, Node ${process.version}\n`);
  console.log(rows.join('\n'));
}

/** ms per request-log row appended to the log engine (embedded DuckDB) and flushed, sequentially. */
async function measureLogWrite(): Promise<void> {
  const { startLocalServer } = await import('../../infra/local/server.js');
  const server = await startLocalServer({ port: 0, dataDir: ':memory:', env: { POWERTOOLS_LOG_LEVEL: 'SILENT', GW_LOCAL_SCHEDULE_INTERVAL_MS: '0' } });
  const { logEngines } = await import('../../shared/observability/engine/select.js');
  const { sink } = await logEngines();
  const row = (i: number) => ({ id: `bench-${i}`, trace_id: `bench-${i}`, created_at: '2026-01-01 00:00:00.000', organisation_id: 'org', workspace_id: 'bench', metadata: { team: 'x' }, request_body: 'x'.repeat(2_000), day: '2026-01-01' });
  const writeOne = async (i: number) => {
    sink.append('requests', [row(i)]);
    await sink.flush();
  };
  for (let i = 0; i < 30; i++) await writeOne(i);
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await writeOne(1_000 + i);
    times.push(performance.now() - started);
  }
  await server.close();
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
  console.log(`\nrequest-log write (1 row of ~2 KB appended to DuckDB and flushed), ${CALLS} sequential writes:`);
  console.log(`p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms, mean ${(times.reduce((a, b) => a + b, 0) / times.length).toFixed(2)} ms`);
}

/** µs of this process's CPU per streamed chat request through the local runtime, the direct call subtracted. */
async function measureLocalRuntime(): Promise<void> {
  const { createServer } = await import('node:http');
  const sse = Buffer.concat([...sseChunks, Buffer.from('data: [DONE]\n\n')]);
  const provider = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(sse);
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const providerUrl = `http://127.0.0.1:${(provider.address() as { port: number }).port}`;
  const { startLocalServer } = await import('../../infra/local/server.js');
  const apiKey = 'gwk_bench_admin_key_0123456789abcdef';
  const gw = await startLocalServer({ port: 0, dataDir: ':memory:', bootstrapApiKey: apiKey, env: { POWERTOOLS_LOG_LEVEL: 'SILENT', GW_LOCAL_SCHEDULE_INTERVAL_MS: '0' } });
  const body = JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Hi' }] });
  const viaGw = () =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': apiKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': providerUrl, authorization: 'Bearer sk-bench' },
      body,
    }).then((response) => response.text());
  const direct = () => fetch(`${providerUrl}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' }, body }).then((response) => response.text());
  const cpuPerCall = async (call: () => Promise<string>) => {
    for (let i = 0; i < 200; i++) await call();
    const cpu = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) await call();
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / CALLS;
  };
  const gwCpu = await cpuPerCall(viaGw);
  const directCpu = await cpuPerCall(direct);
  await gw.close();
  provider.close();
  console.log(`\nlocal runtime, ${CALLS} sequential streamed chat requests (request logs on):`);
  console.log(`through gw ${gwCpu.toFixed(0)} µs CPU/request, direct ${directCpu.toFixed(0)} µs, gw's share ${(gwCpu - directCpu).toFixed(0)} µs`);
}

await (LOG_WRITE ? measureLogWrite() : LOCAL ? measureLocalRuntime() : main());
