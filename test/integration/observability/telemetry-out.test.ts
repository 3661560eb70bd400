import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { format } from 'node:util';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DataExport } from '../../../shared/control-plane/exports/schemas.js';
import type { RequestLog } from '../../../shared/control-plane/logs/schemas.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { logEngines } from '../../../shared/observability/engine/select.js';
import { logger } from '../../../shared/observability/logger.js';
import { otelTraceId } from '../../../shared/observability/otlp-export.js';
import { settings } from '../../../shared/settings.js';
import { dynamoDocumentClient } from '../../../shared/store/dynamo-client.js';
import { TABLES, tableName } from '../../../shared/store/table-definitions.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { readSseEvents } from '../../support/sse-client.js';
import { api, expectError, newKey } from '../control-plane/identities-support.js';
import { chat, logOfTrace } from './observability-support.js';

// Secrets a request can carry: each must be absent from everything gw stores and prints.
const PROVIDER_SECRET = 'sk-SENTINELprovider0123456789abcdef';
const BODY_SECRET = 'sk-ant-SENTINELbody0123456789abcdef';
const FIELD_SECRET = 'SENTINEL-field-secret-value-42';
const SENTINELS = [PROVIDER_SECRET, BODY_SECRET, FIELD_SECRET, 'SENTINEL'];

interface CollectorRequest {
  path: string;
  contentType: string | undefined;
  body: { resourceSpans?: Array<{ resource: { attributes: Attribute[] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
}
interface Attribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Attribute[];
}

let gateway: TestGateway;
let upstream: MockUpstream;
let collector: Server;
const received: CollectorRequest[] = [];
const rawReceived: string[] = [];
const printed: string[] = [];
const replies: string[] = [];

beforeAll(async () => {
  // Everything printed from here on is kept (off the test output) for the sentinel scan.
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    });
  }
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(format(...args)));
  }
  // The logger was built when the test runner's SILENT level was in force: this file wants its lines.
  logger.setLogLevel('DEBUG');
  // A stand-in OpenTelemetry collector: records every OTLP/HTTP export it receives.
  collector = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      rawReceived.push(text);
      received.push({ path: request.url ?? '', contentType: request.headers['content-type'], body: JSON.parse(text) as CollectorRequest['body'] });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway({
    POWERTOOLS_LOG_LEVEL: 'DEBUG',
    POWERTOOLS_METRICS_DISABLED: 'false',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
    // Small enough that these bodies go to the blob store, so the scan covers it too.
    GW_LOG_BODY_INLINE_BYTES: '300',
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await new Promise((resolve) => collector?.close(resolve));
  vi.restoreAllMocks();
});

const headers = () => ({ 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: `Bearer ${PROVIDER_SECRET}` });
const secretBody = (extra: Record<string, unknown> = {}) => ({
  ...chat,
  messages: [{ role: 'user', content: `my key is ${BODY_SECRET}, please keep it safe. ${'padding '.repeat(40)}` }],
  metadata_blob: { api_key: FIELD_SECRET, password: FIELD_SECRET },
  ...extra,
});

async function send(traceId: string, body: Record<string, unknown>): Promise<Response> {
  const response = await gateway.post('/v1/chat/completions', body, { ...headers(), 'x-gw-trace-id': traceId, 'x-gw-metadata': JSON.stringify({ _user: 'sentinel-user' }) });
  replies.push(JSON.stringify([...response.headers.entries()]));
  return response;
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  return value?.stringValue ?? value?.intValue ?? value?.doubleValue ?? value?.boolValue;
};

describe('OpenTelemetry export over OTLP/HTTP', () => {
  it('sends a GenAI client span per request with a child per stage and attempt, to the collector', async () => {
    const traceId = 'c0ffee00-1111-4222-8333-444455556666';
    const response = await send(traceId, secretBody());
    replies.push(await response.text());
    expect(response.status).toBe(200);
    await drainAllBackgroundWork();
    const spans = received.filter((request) => request.path === '/v1/traces').flatMap((request) => request.body.resourceSpans ?? []).flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
    const ours = spans.filter((span) => span.traceId === otelTraceId(traceId));
    expect(otelTraceId(traceId)).toBe('c0ffee0011114222833344445555666' + '6');
    const root = ours.find((span) => span.name === 'chat gpt-4o-mini')!;
    expect(root).toBeDefined();
    expect(attribute(root, 'gen_ai.operation.name')).toBe('chat');
    expect(attribute(root, 'gen_ai.provider.name')).toBe('openai');
    expect(attribute(root, 'gen_ai.request.model')).toBe('gpt-4o-mini');
    expect(Number(attribute(root, 'gen_ai.usage.input_tokens'))).toBe(9);
    expect(Number(attribute(root, 'gen_ai.usage.output_tokens'))).toBe(12);
    expect(Number(attribute(root, 'http.response.status_code'))).toBe(200);
    const children = ours.filter((span) => span.parentSpanId === root.spanId).map((span) => span.name);
    expect(children).toEqual(expect.arrayContaining(['auth', 'policy_check', 'cache_lookup', 'attempt openai']));
    const record = await logOfTrace(gateway, traceId);
    expect(attribute(root, 'gw.log_id')).toBe(record.id);
    expect(received[0].contentType).toContain('application/json');
  });
});

describe('data exports', () => {
  it('writes the filtered logs as JSON Lines (an engine COPY job, started in the background) and serves them with the caller’s key', async () => {
    const traceId = `export-${Date.now()}`;
    replies.push(await (await send(traceId, secretBody({ stream: true }))).text());
    await drainAllBackgroundWork();
    const created = await api<DataExport>(gateway, 'POST', '/v1/exports', { body: { trace_id: traceId, metadata: { _user: 'sentinel-user' } } });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body).toMatchObject({ object: 'export', status: 'pending', download_url: null, format: 'jsonl' });
    await drainAllBackgroundWork();
    const done = await api<DataExport>(gateway, 'GET', `/v1/exports/${created.body.id}`);
    expect(done.body).toMatchObject({ status: 'completed', row_count: 1, error: null });
    const download = await fetch(done.body.download_url!, { headers: { 'x-gw-api-key': gateway.apiKey } });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toContain('application/x-ndjson');
    const text = await download.text();
    replies.push(text);
    // One row of the requests table per line: the engine wrote it (COPY), gw never held the rows.
    const lines = text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ trace_id: traceId, stream: true, status: 200, metadata: { _user: 'sentinel-user' }, prompt_tokens: 9, completion_tokens: 12 });
    // The bodies were larger than GW_LOG_BODY_INLINE_BYTES: the row names them in the blob store (redacted there).
    expect(lines[0].request_body_ref).toMatch(/^logs\//);
    const requestBody = readFileSync(join(process.env.GW_BLOB_DIR!, ...String(lines[0].request_body_ref).split('/')), 'utf8');
    expect(requestBody).toContain('[REDACTED]');
  });

  it('keeps exports to their workspace and refuses bad bodies and weaker keys', async () => {
    const created = await api<DataExport>(gateway, 'POST', '/v1/exports', { body: {} });
    await drainAllBackgroundWork();
    const weak = await newKey(gateway, { scopes: ['completions:write'] });
    expectError(await api(gateway, 'GET', `/v1/exports/${created.body.id}`, { key: weak.key }), 403, 'missing_scope');
    expectError(await api(gateway, 'POST', '/v1/exports', { body: { status: 'sometimes' } }), 400, 'invalid_request', { param: 'status' });
    expectError(await api(gateway, 'GET', '/v1/exports/exp_missing'), 404, 'not_found');
    const otherWorkspace = await api<{ id: string }>(gateway, 'POST', '/v1/workspaces', { body: { name: `exports ${Date.now()}` } });
    const otherKey = await newKey(gateway, { workspace_id: otherWorkspace.body.id, scopes: ['logs:read'] });
    expectError(await api(gateway, 'GET', `/v1/exports/${created.body.id}`, { key: otherKey.key }), 404, 'not_found');
    expectError(await api(gateway, 'GET', `/v1/exports/${created.body.id}/download`, { key: otherKey.key }), 404, 'not_found');
  });
});

describe('the sentinel scan', () => {
  it('finds no secret of the requests in any table, blob, printed line, OTLP export or reply', async () => {
    const streamed = await send(`sentinel-stream-${Date.now()}`, secretBody({ stream: true, stream_options: { include_usage: true } }));
    replies.push(JSON.stringify(await readSseEvents(streamed)));
    const failing = await gateway.post('/v1/chat/completions', secretBody({ model: '' }), { ...headers() });
    replies.push(await failing.text());
    const refused = await gateway.post('/v1/chat/completions', secretBody(), { ...headers(), 'x-gw-api-key': `gwk_${FIELD_SECRET}` });
    replies.push(await refused.text());
    await drainAllBackgroundWork();
    const logs = await api<{ data: RequestLog[] }>(gateway, 'GET', '/v1/logs?limit=100');
    replies.push(JSON.stringify(logs.body));
    for (const log of logs.body.data) replies.push(JSON.stringify((await api(gateway, 'GET', `/v1/logs/${log.id}`)).body));
    expect(logs.body.data.length).toBeGreaterThanOrEqual(3);

    const stored: string[] = [];
    for (const definition of TABLES) {
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await dynamoDocumentClient().send(new ScanCommand({ TableName: tableName(settings(), definition), ExclusiveStartKey: startKey }));
        stored.push(...(page.Items ?? []).map((item) => JSON.stringify(item)));
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    }
    // Request logs are the log engine's rows: every column of every row is scanned too.
    const { engine } = await logEngines();
    for (const table of ['requests', 'spans']) stored.push(...(await engine.query({ sql: `SELECT * FROM ${table}`, params: [] })).rows.map((row) => JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value))));
    expect(stored.some((text) => text.includes('sentinel-stream-'))).toBe(true);
    const blobs = filesUnder(process.env.GW_BLOB_DIR!).map((file) => readFileSync(file, 'utf8'));
    expect(blobs.length).toBeGreaterThan(0);
    const everything = { stored, blobs, printed, otlp: rawReceived, replies };
    for (const [where, texts] of Object.entries(everything)) {
      for (const sentinel of SENTINELS) {
        const hit = texts.find((text) => text.includes(sentinel));
        expect(hit, `${sentinel} found in ${where}`).toBeUndefined();
      }
    }
    // The scan looked at real content: the redacted marker shows where secrets were.
    expect(blobs.some((text) => text.includes('[REDACTED]'))).toBe(true);
    expect(printed.some((line) => line.includes('request completed'))).toBe(true);
    expect(printed.some((line) => line.includes('"_aws"') && line.includes('latency'))).toBe(true);
  });
});

function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
