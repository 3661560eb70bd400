import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLog } from '../../../shared/control-plane/logs/schemas.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startMockUpstream, type MockUpstream, type RecordedRequest } from '../../support/mock-upstream.js';
import { api } from '../control-plane/identities-support.js';
import { logOfTrace } from '../observability/observability-support.js';

/**
 * A provider that quotes the key back ("Incorrect API key provided: …") must not put it on any read path: not
 * in the client's error, the log record, its trace or an export. The credentials here have no recognisable
 * shape (no `sk-`), so only redaction by value (the request's own credentials) can catch them.
 */

let gateway: TestGateway;
let echoing: MockUpstream;

/** The credential a request carried, however the provider's API takes it. */
function presentedKey(request: RecordedRequest): string {
  const header = request.headers.authorization ?? request.headers['x-api-key'] ?? request.headers['api-key'];
  return String(header ?? '').replace(/^Bearer\s+/i, '');
}

beforeAll(async () => {
  echoing = await startMockUpstream((request) => ({
    status: 401,
    json: { error: { message: `Incorrect API key provided: ${presentedKey(request)}. You can find your API key in your account.`, type: 'invalid_request_error', code: 'invalid_api_key' } },
  }));
  gateway = await startTestGateway({ GW_VIRTUAL_KEY_CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  await gateway?.close();
  await echoing?.close();
});

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };

async function created<Body extends { id: string }>(path: string, body: Record<string, unknown>): Promise<Body> {
  const reply = await api<Body>(gateway, 'POST', path, { body });
  expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
  return reply.body;
}

/** Sends one chat request with `headers`; the client's answer as text, with its trace id. */
async function send(headers: Record<string, string>, path = '/v1/chat/completions', body: unknown = chat): Promise<{ status: number; text: string; traceId: string }> {
  const traceId = `echo-${randomUUID()}`;
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'x-gw-trace-id': traceId, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text(), traceId };
}

/** Everything gw lets a reader see of one request: its log (list and by id), its trace and an export of it. */
async function readPaths(traceId: string): Promise<{ log: RequestLog; texts: string[] }> {
  const log = await logOfTrace(gateway, traceId);
  const byId = await api(gateway, 'GET', `/v1/logs/${log.id}`);
  const trace = await api(gateway, 'GET', `/v1/traces/${encodeURIComponent(traceId)}`);
  expect(trace.status).toBe(200);
  const exported = await api<{ id: string }>(gateway, 'POST', '/v1/exports', { body: { trace_id: traceId } });
  expect(exported.status, JSON.stringify(exported.body)).toBe(202);
  await drainAllBackgroundWork();
  const done = await api<{ download_url: string; status: string }>(gateway, 'GET', `/v1/exports/${exported.body.id}`);
  expect(done.body.status).toBe('completed');
  const download = await (await fetch(done.body.download_url, { headers: { 'x-gw-api-key': gateway.apiKey } })).text();
  return { log, texts: [JSON.stringify(log), JSON.stringify(byId.body), JSON.stringify(trace.body), download] };
}

describe('a credential the provider quotes back', () => {
  const cases: Array<{ kind: string; secret: string; headers: () => Promise<Record<string, string>> }> = [
    { kind: 'Authorization header', secret: 'hdr-9f8e7d6c5b4a39281706', headers: async () => ({ 'x-gw-provider': 'openai', 'x-gw-custom-host': echoing.url, authorization: 'Bearer hdr-9f8e7d6c5b4a39281706' }) },
    {
      kind: 'virtual key',
      secret: 'vk-secret-8e7d6c5b4a3928170615',
      headers: async () => ({ 'x-gw-virtual-key': (await created('/v1/virtual-keys', { provider: 'openai', credential: 'vk-secret-8e7d6c5b4a3928170615', custom_host: echoing.url })).id }),
    },
    {
      kind: 'inline config api_key',
      secret: 'inline-7d6c5b4a392817061524',
      headers: async () => ({ 'x-gw-config': JSON.stringify({ provider: 'openai', api_key: 'inline-7d6c5b4a392817061524', custom_host: echoing.url }) }),
    },
    {
      kind: 'saved config api_key',
      secret: 'saved-6c5b4a39281706152433',
      headers: async () => ({
        'x-gw-config': (await created('/v1/configs', { name: `echo ${randomUUID().slice(0, 6)}`, config: { provider: 'openai', api_key: 'saved-6c5b4a39281706152433', custom_host: echoing.url } })).id,
      }),
    },
    {
      kind: 'integration key',
      secret: 'integ-5b4a3928170615243342',
      headers: async () => {
        const slug = `echo-${randomUUID().slice(0, 6)}`;
        await created('/v1/integrations', { name: slug, slug, provider: 'openai', credential: 'integ-5b4a3928170615243342', custom_host: echoing.url, shared_with_workspaces: 'all' });
        await created('/v1/providers', { integration_id: slug, slug });
        return { 'x-gw-provider': `@${slug}` };
      },
    },
    {
      kind: 'deployment api_key',
      secret: 'deploy-4a392817061524334251',
      headers: async () => {
        const slug = `echo-${randomUUID().slice(0, 6)}`;
        await created('/v1/deployments', { name: slug, slug, type: 'production', config: { provider: 'openai', api_key: 'deploy-4a392817061524334251', custom_host: echoing.url } });
        return { 'x-gw-deployment': slug };
      },
    },
  ];

  for (const { kind, secret, headers } of cases) {
    it(`(${kind}) reaches neither the client’s error nor the log, trace or export`, async () => {
      const reply = await send(await headers());
      expect(reply.status, reply.text).toBe(401);
      // The provider did quote it: otherwise this test would prove nothing.
      expect(presentedKey(echoing.requests.at(-1)!)).toBe(secret);
      expect(reply.text).toContain('Incorrect API key provided: [REDACTED]');
      expect(reply.text).not.toContain(secret);
      const { log, texts } = await readPaths(reply.traceId);
      expect(log.error?.message).toContain('[REDACTED]');
      for (const text of texts) expect(text).not.toContain(secret);
    });
  }

  it('(a credential shorter than 8 characters) is masked where the provider quotes it as the key', async () => {
    const secret = 'k4f2a9';
    const reply = await send({ 'x-gw-provider': 'openai', 'x-gw-custom-host': echoing.url, authorization: `Bearer ${secret}` });
    expect(reply.status, reply.text).toBe(401);
    expect(presentedKey(echoing.requests.at(-1)!)).toBe(secret);
    expect(reply.text).toContain('Incorrect API key provided: [REDACTED]');
    expect(reply.text).not.toContain(secret);
    for (const text of (await readPaths(reply.traceId)).texts) expect(text).not.toContain(secret);
  });

  it('is masked on the Anthropic Messages entry point too (x-api-key)', async () => {
    const secret = 'anth-3928170615243342516a';
    const reply = await send(
      { 'x-gw-provider': 'anthropic', 'x-gw-custom-host': echoing.url, 'x-api-key': secret, 'anthropic-version': '2023-06-01' },
      '/v1/messages',
      { model: 'claude-3-5-haiku', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] },
    );
    expect(reply.status, reply.text).toBe(401);
    expect(presentedKey(echoing.requests.at(-1)!)).toBe(secret);
    expect(reply.text).not.toContain(secret);
    for (const text of (await readPaths(reply.traceId)).texts) expect(text).not.toContain(secret);
  });
});

describe('a credential quoted back on the other entry points', () => {
  it('is masked in the client’s error on Responses (with its log) and count_tokens', async () => {
    const secret = 'resp-28170615243342516a7b';
    const responses = await send({ 'x-gw-provider': 'openai', 'x-gw-custom-host': echoing.url, authorization: `Bearer ${secret}` }, '/v1/responses', { model: 'gpt-4o-mini', input: 'Hi' });
    expect(responses.status, responses.text).toBe(401);
    expect(presentedKey(echoing.requests.at(-1)!)).toBe(secret);
    expect(responses.text).not.toContain(secret);
    for (const text of (await readPaths(responses.traceId)).texts) expect(text).not.toContain(secret);
    const counted = await send(
      { 'x-gw-provider': 'anthropic', 'x-gw-custom-host': echoing.url, 'x-api-key': secret, 'anthropic-version': '2023-06-01' },
      '/v1/messages/count_tokens',
      { model: 'claude-3-5-haiku', messages: [{ role: 'user', content: 'Hi' }] },
    );
    expect(counted.status, counted.text).toBe(401);
    expect(presentedKey(echoing.requests.at(-1)!)).toBe(secret);
    expect(counted.text).not.toContain(secret);
  });
});

describe('the MCP registry’s stored sync error', () => {
  it('masks a token the MCP server quotes back', async () => {
    const token = 'mcp-tok-2817061524334251607';
    const server = await startMockUpstream((request) => ({
      status: 401,
      headers: { 'content-type': 'text/plain' },
      chunks: [`unknown token ${String(request.headers.authorization ?? '').replace(/^Bearer\s+/i, '')}`],
    }));
    try {
      const reply = await api<{ sync_status: string; error: string }>(gateway, 'POST', '/v1/mcp-servers', { body: { name: `echo ${randomUUID().slice(0, 6)}`, url: `${server.url}/mcp`, auth: { type: 'bearer', token } } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(server.requests.length).toBeGreaterThan(0);
      expect(reply.body.sync_status).toBe('failed');
      expect(JSON.stringify(reply.body)).not.toContain(token);
      const listed = await api(gateway, 'GET', '/v1/mcp-servers');
      expect(JSON.stringify(listed.body)).not.toContain(token);
    } finally {
      await server.close();
    }
  });
});
