import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { holdRequestLogWritesForTesting } from '../../../shared/observability/request-log.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { readSseEvents } from '../../support/sse-client.js';
import { api, newKey } from '../control-plane/identities-support.js';
import { chat, logOfTrace, logsWhere, viaMock } from './observability-support.js';

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

const trace = () => `obs-${randomUUID()}`;

describe('one log record per gateway request, after the response', () => {
  it('records a plain request with the issue’s field names, usage, cost, spans and bodies', async () => {
    const traceId = trace();
    const response = await gateway.post('/v1/chat/completions', chat, { ...viaMock(upstream.url), 'x-gw-trace-id': traceId, 'x-gw-metadata': JSON.stringify({ _user: 'alice', team: 'red' }) });
    expect(response.status).toBe(200);
    const record = await logOfTrace(gateway, traceId);
    expect(record).toMatchObject({
      object: 'request_log',
      trace_id: traceId,
      workspace_id: gateway.bootstrap.workspaceId,
      endpoint: 'chat',
      provider: 'openai',
      model: 'gpt-4o-mini',
      status: 200,
      ttft_ms: null,
      usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21, cached_tokens: 0, reasoning_tokens: 0 },
      cache_status: expect.any(String),
      retry_count: 0,
      last_used_option: null,
      metadata: { _user: 'alice', team: 'red' },
      error: null,
      stream: false,
      virtual_key_id: null,
    });
    expect(record.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(record.api_key_id).not.toContain('gwk_');
    expect(record.latency_ms).toBeGreaterThan(0);
    expect(Object.keys(record)).toEqual(expect.arrayContaining(['id', 'created_at', 'cost', 'request_body', 'response_body']));
    expect(record.request_body).toMatchObject({ model: 'gpt-4o-mini', messages: chat.messages });
    expect(record.response_body).toMatchObject({ object: 'chat.completion', choices: [expect.objectContaining({ message: expect.objectContaining({ content: 'Hello from the mock provider!' }) })] });
    expect(record.spans.map((span) => span.name)).toEqual(expect.arrayContaining(['auth', 'policy_check', 'cache_lookup', 'attempt']));
    const attempt = record.spans.find((span) => span.kind === 'attempt')!;
    expect(attempt).toMatchObject({ parent_span_id: record.span_id, status: 'ok', attributes: { 'gw.target_path': expect.any(String), 'gen_ai.provider.name': 'openai', 'http.response.status_code': 200 } });
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(0);

    const byId = await api<typeof record>(gateway, 'GET', `/v1/logs/${record.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(record);
  });

  it('records a streamed request after its last byte, with the streamed text and the time to first token', async () => {
    const traceId = trace();
    const response = await gateway.post('/v1/chat/completions', { ...chat, stream: true, stream_options: { include_usage: true } }, { ...viaMock(upstream.url), 'x-gw-trace-id': traceId });
    const events = await readSseEvents(response);
    expect(events.at(-1)).toEqual({ data: '[DONE]' });
    const record = await logOfTrace(gateway, traceId);
    expect(record).toMatchObject({ status: 200, stream: true, usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 }, error: null });
    expect(record.ttft_ms).toEqual(expect.any(Number));
    expect(record.ttft_ms!).toBeLessThanOrEqual(record.latency_ms);
    expect(String(record.response_body)).toContain('data: [DONE]');
  });

  it('records a failed request with its error and the failing attempt span', async () => {
    upstream.setHandler(() => ({ status: 400, json: { error: { message: 'bad thing', type: 'invalid_request_error', code: 'bad_thing' } } }));
    try {
      const traceId = trace();
      const response = await gateway.post('/v1/chat/completions', chat, { ...viaMock(upstream.url), 'x-gw-trace-id': traceId });
      expect(response.status).toBe(400);
      const record = await logOfTrace(gateway, traceId);
      expect(record).toMatchObject({ status: 400, error: { code: expect.any(String), type: expect.any(String), message: expect.any(String) }, cost: null, usage: null });
      expect(record.spans.find((span) => span.kind === 'attempt')).toMatchObject({ status: 'error', attributes: { 'http.response.status_code': 400 } });
      expect((await logsWhere(gateway, `status=error&trace_id=${traceId}`)).map((log) => log.id)).toEqual([record.id]);
      expect((await logsWhere(gateway, `status=400&trace_id=${traceId}`)).map((log) => log.id)).toEqual([record.id]);
      expect(await logsWhere(gateway, `status=200&trace_id=${traceId}`)).toEqual([]);
    } finally {
      upstream.setHandler(openAIMockHandler());
    }
  });

  it('records a fallback with every attempt, the retry count and the option that answered', async () => {
    let calls = 0;
    upstream.setHandler((request) => (++calls === 1 ? { status: 503, json: { error: { message: 'down' } } } : openAIMockHandler()(request)));
    try {
      const traceId = trace();
      const target = { provider: 'openai', api_key: 'sk-test', custom_host: upstream.url };
      const config = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [target, target] });
      const response = await gateway.post('/v1/chat/completions', chat, { 'x-gw-config': config, 'x-gw-trace-id': traceId });
      expect(response.status).toBe(200);
      const record = await logOfTrace(gateway, traceId);
      expect(record).toMatchObject({ status: 200, last_used_option: 'config.targets[1]', provider: 'openai' });
      expect(record.attempts).toEqual([expect.objectContaining({ target_path: 'config.targets[0]', status: 503 }), expect.objectContaining({ target_path: 'config.targets[1]', status: 200 })]);
      expect(record.spans.filter((span) => span.kind === 'attempt').map((span) => span.status)).toEqual(['error', 'ok']);
    } finally {
      upstream.setHandler(openAIMockHandler());
    }
  });

  it('records a cached answer as a cache hit', async () => {
    const config = JSON.stringify({ provider: 'openai', api_key: 'sk-test', custom_host: upstream.url, cache: { mode: 'simple' } });
    const body = { ...chat, messages: [{ role: 'user', content: `cache me ${randomUUID()}` }] };
    expect((await gateway.post('/v1/chat/completions', body, { 'x-gw-config': config })).status).toBe(200);
    await drainAllBackgroundWork();
    const traceId = trace();
    const hit = await gateway.post('/v1/chat/completions', body, { 'x-gw-config': config, 'x-gw-trace-id': traceId });
    expect(hit.headers.get('x-gw-cache-status')).toBe('HIT');
    const record = await logOfTrace(gateway, traceId);
    expect(record).toMatchObject({ status: 200, cache_status: 'HIT', usage: { total_tokens: 21 } });
    expect((await logsWhere(gateway, `cache_status=HIT&trace_id=${traceId}`)).map((log) => log.id)).toEqual([record.id]);
  });

  it('records a request refused before routing (a bad body) with its error', async () => {
    const traceId = trace();
    const response = await gateway.post('/v1/chat/completions', { model: 'gpt-4o-mini' }, { ...viaMock(upstream.url), 'x-gw-trace-id': traceId, 'x-gw-metadata': JSON.stringify({ _user: 'zed' }) });
    expect(response.status).toBe(400);
    const record = await logOfTrace(gateway, traceId);
    expect(record).toMatchObject({ status: 400, provider: null, metadata: { _user: 'zed' }, error: { code: 'missing_messages', type: 'invalid_request_error' }, cost: null });
    expect(record.spans.map((span) => span.name)).toEqual(['auth']);
  });

  it('records the other dialects through the same after-path: /v1/responses and /v1/messages', async () => {
    const responsesTrace = trace();
    // OpenAI serves /v1/responses natively: the mock answers that route with a Response, the rest as chat.
    const usage = { input_tokens: 9, output_tokens: 12, total_tokens: 21 };
    // The answer quotes the request's provider credential: the stored body masks it (the client gets it as sent).
    const response = { id: 'resp_log', object: 'response', status: 'completed', model: 'gpt-4o-mini', output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello sk-test-upstream-credential-000000', annotations: [] }] }], usage };
    upstream.setHandler((request) => (request.path.endsWith('/responses') ? { json: response } : openAIMockHandler()(request)));
    const responses = await gateway.post('/v1/responses', { model: 'gpt-4o-mini', input: 'Hi' }, { ...viaMock(upstream.url), 'x-gw-trace-id': responsesTrace });
    upstream.setHandler(openAIMockHandler());
    expect(responses.status).toBe(200);
    const responsesLog = await logOfTrace(gateway, responsesTrace);
    expect(responsesLog).toMatchObject({ endpoint: 'responses', status: 200, provider: 'openai', usage: { total_tokens: 21 } });
    expect(responsesLog.response_body).toMatchObject({ id: 'resp_log', object: 'response', output: [{ content: [{ text: 'Hello [REDACTED]' }] }] });
    expect(JSON.stringify(responsesLog)).not.toContain('sk-test-upstream-credential-000000');
    const messagesTrace = trace();
    const messages = await gateway.post('/v1/messages', { model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] }, { ...viaMock(upstream.url), 'x-gw-trace-id': messagesTrace });
    expect(messages.status).toBe(200);
    expect(await logOfTrace(gateway, messagesTrace)).toMatchObject({ endpoint: 'messages', status: 200, provider: 'openai', usage: { prompt_tokens: 9, completion_tokens: 12 } });
  });

  it('gives the client its answer before the record exists (the log store held back)', async () => {
    const release = holdRequestLogWritesForTesting();
    const traceId = trace();
    try {
      const response = await gateway.post('/v1/chat/completions', chat, { ...viaMock(upstream.url), 'x-gw-trace-id': traceId });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { object: string }).object).toBe('chat.completion');
      const before = await api<{ data: unknown[] }>(gateway, 'GET', `/v1/logs?trace_id=${traceId}`);
      expect(before.body.data).toEqual([]);
    } finally {
      release();
    }
    expect((await logOfTrace(gateway, traceId)).status).toBe(200);
  });

  it('audits a revoked key’s refusal in the background, still answering 401, and leaves no request log', async () => {
    const revoked = await newKey(gateway, { scopes: ['completions:write'] });
    expect((await api(gateway, 'DELETE', `/v1/api-keys/${revoked.id}`)).status).toBe(200);
    const traceId = trace();
    const response = await gateway.post('/v1/chat/completions', chat, { ...viaMock(upstream.url), 'x-gw-api-key': revoked.key, 'x-gw-trace-id': traceId });
    expect(response.status).toBe(401);
    await drainAllBackgroundWork();
    // Audit rows are aggregated per source and minute, so only their existence is certain, not this trace id.
    const audit = await api<{ data: Array<{ action: string }> }>(gateway, 'GET', '/v1/audit-logs?action=authentication.failed&limit=100');
    expect(audit.body.data.length).toBeGreaterThan(0);
    expect(await logsWhere(gateway, `trace_id=${traceId}`)).toEqual([]);
  });
});
