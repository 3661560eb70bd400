import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashApiKey, maskApiKey } from '../../shared/auth/api-key-secrets.js';
import { ApiKeyRepository, type ApiKeyRecord } from '../../shared/store/api-key-repository.js';
import type { TestGateway } from '../support/gateway.js';
import { useGatewayWithUpstream } from '../support/harness.js';
import { openAIMockHandler } from '../support/mock-openai.js';
import type { MockUpstream } from '../support/mock-upstream.js';

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };
const viaMock = () => ({ 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-test' });

async function expectError(response: Response, status: number, code: string, param?: string | null) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/json');
  expect(response.headers.get('x-gw-trace-id')).toBeTruthy();
  const body = (await response.json()) as { error: { message: string; type: string; code: string; param: string | null }; status: string };
  expect(body.status).toBe('failure');
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(typeof body.error.type).toBe('string');
  if (param !== undefined) expect(body.error.param).toBe(param);
  return body;
}

async function storeKey(overrides: Partial<ApiKeyRecord>): Promise<string> {
  const raw = `gwk_${randomUUID()}`;
  await new ApiKeyRepository().create({
    id: randomUUID(),
    key_hash: hashApiKey(raw),
    masked: maskApiKey(raw),
    name: 'test',
    kind: 'workspace',
    type: 'service',
    organisation_id: gateway.bootstrap.organisationId,
    workspace_id: gateway.bootstrap.workspaceId,
    scopes: ['completions:write'],
    status: 'active',
    created_at: new Date().toISOString(),
    ...overrides,
  });
  return raw;
}

describe('authentication', () => {
  it('401 without x-gw-api-key', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify(chat) });
    await expectError(response, 401, 'api_key_missing');
  });

  it('401 for an unknown key, saying nothing else', async () => {
    const body = await expectError(await gateway.post('/v1/chat/completions', chat, { 'x-gw-api-key': 'gwk_nope' }), 401, 'api_key_invalid');
    expect(body.error.message).toBe('Invalid API key');
  });

  it('401 for an expired key, even before any worker marked it', async () => {
    const raw = await storeKey({ expires_at: new Date(Date.now() - 1000).toISOString() });
    const body = await expectError(await gateway.post('/v1/chat/completions', chat, { ...viaMock(), 'x-gw-api-key': raw }), 401, 'api_key_expired');
    expect(body.error.message).toMatch(/expired/);
  });

  it('401 for a revoked key', async () => {
    const raw = await storeKey({ status: 'revoked' });
    await expectError(await gateway.post('/v1/chat/completions', chat, { ...viaMock(), 'x-gw-api-key': raw }), 401, 'api_key_revoked');
  });

  it('403 for a key without the completions:write scope', async () => {
    const raw = await storeKey({ scopes: ['prompts:read'] });
    await expectError(await gateway.post('/v1/chat/completions', chat, { ...viaMock(), 'x-gw-api-key': raw }), 403, 'missing_scope');
  });

  it('accepts a workspace key with the scope and a future expiry', async () => {
    const raw = await storeKey({ expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    const response = await gateway.post('/v1/chat/completions', chat, { ...viaMock(), 'x-gw-api-key': raw });
    expect(response.status).toBe(200);
  });
});

describe('bad input', () => {
  it.each([
    ['invalid JSON', '{"model":', 400, 'invalid_json'],
    ['a JSON array', '[1,2]', 400, 'invalid_body'],
    ['a JSON string', '"hello"', 400, 'invalid_body'],
    ['an empty body', '', 400, 'invalid_body'],
    ['no messages', JSON.stringify({ model: 'm' }), 400, 'missing_messages'],
    ['empty messages', JSON.stringify({ model: 'm', messages: [] }), 400, 'missing_messages'],
    ['a message without role', JSON.stringify({ model: 'm', messages: [{ content: 'x' }] }), 400, 'invalid_message'],
    ['no model', JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }), 400, 'missing_model'],
    ['a non-boolean stream', JSON.stringify({ ...chat, stream: 'yes' }), 400, 'invalid_stream'],
  ])('400 for %s', async (_label, body, status, code) => {
    await expectError(await gateway.post('/v1/chat/completions', body, viaMock()), status, code);
  });

  it("passes a body past Lambda's 6 MB payload limit locally: the local server's limit is GW_MAX_BODY_BYTES (10 MiB), not AWS's", async () => {
    const big = JSON.stringify({ ...chat, messages: [{ role: 'user', content: 'a'.repeat(7 * 1024 * 1024) }] });
    const response = await gateway.post('/v1/chat/completions', big, viaMock());
    expect(response.status, await response.clone().text()).toBe(200);
  });

  it('413 for a body over 10 MiB', async () => {
    const big = JSON.stringify({ ...chat, padding: 'x'.repeat(10 * 1024 * 1024) });
    await expectError(await gateway.post('/v1/chat/completions', big, viaMock()), 413, 'body_too_large');
  });

  it.each([
    ['x-gw-metadata', 'not-json', 'invalid_metadata'],
    ['x-gw-metadata', '{"count":3}', 'invalid_metadata'],
    ['x-gw-request-timeout', '10.5', 'invalid_request_timeout'],
    ['x-gw-forward-headers', 'authorization', 'invalid_forward_headers'],
    ['x-gw-forward-headers', 'x-gw-config', 'invalid_forward_headers'],
    ['x-gw-cache-force-refresh', 'maybe', 'invalid_header'],
  ])('400 for %s: %s', async (header, value, code) => {
    await expectError(await gateway.post('/v1/chat/completions', chat, { ...viaMock(), [header]: value }), 400, code, header === 'x-gw-metadata' && value.startsWith('{') ? 'x-gw-metadata.count' : header);
  });

  it('400 naming the valid providers for an unknown one', async () => {
    const body = await expectError(await gateway.post('/v1/chat/completions', chat, { 'x-gw-provider': 'nope' }), 400, 'unknown_provider', 'x-gw-provider');
    expect(body.error.message).toContain('openai');
  });

  it('400 when nothing says which provider to call', async () => {
    await expectError(await gateway.post('/v1/chat/completions', chat), 400, 'missing_provider', 'x-gw-provider');
  });

  it('400 for a custom host pointing at the cloud metadata service', async () => {
    await expectError(
      await gateway.post('/v1/chat/completions', chat, { 'x-gw-provider': 'openai', 'x-gw-custom-host': 'http://169.254.169.254/latest' }),
      400,
      'custom_host_not_allowed',
      'x-gw-custom-host',
    );
  });

  it('400 for an endpoint the provider does not offer', async () => {
    await expectError(await gateway.post('/v1/embeddings', { model: 'm', input: 'x' }, { 'x-gw-provider': 'groq' }), 400, 'unsupported_endpoint');
  });

  it('400 for a trace id that could not be echoed safely, with a fresh trace id', async () => {
    const response = await gateway.post('/v1/chat/completions', chat, { ...viaMock(), 'x-gw-trace-id': 'x'.repeat(200) });
    await expectError(response, 400, 'invalid_trace_id');
  });
});

describe('routing', () => {
  it('404 for an unknown path', async () => {
    await expectError(await gateway.post('/v1/unknown', chat), 404, 'route_not_found');
  });

  it('405 with allow for a wrong method', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'GET', headers: { 'x-gw-api-key': gateway.apiKey } });
    await expectError(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('upstream failures', () => {
  it('passes the provider status through with its body under error.provider_error', async () => {
    const providerBody = { error: { message: 'Rate limit reached for gpt-4o-mini', type: 'requests', code: 'rate_limit_exceeded', param: null } };
    upstream.setHandler(() => ({ status: 429, json: providerBody, headers: { 'retry-after': '7' } }));
    try {
      const response = await gateway.post('/v1/chat/completions', chat, viaMock());
      const body = await expectError(response, 429, 'rate_limit_exceeded');
      expect(body.error.message).toBe('Rate limit reached for gpt-4o-mini');
      expect((body.error as { provider_error?: unknown }).provider_error).toEqual(providerBody);
      expect(response.headers.get('retry-after')).toBe('7');
      expect(response.headers.get('x-gw-provider')).toBe('openai');
    } finally {
      upstream.setHandler(openAIMockHandler());
    }
  });

  it('keeps a non-JSON provider error body as text', async () => {
    upstream.setHandler(() => ({ status: 503, chunks: ['upstream overloaded'], headers: { 'content-type': 'text/plain' } }));
    try {
      const body = await expectError(await gateway.post('/v1/chat/completions', chat, viaMock()), 503, 'provider_error');
      expect((body.error as { provider_error?: unknown }).provider_error).toBe('upstream overloaded');
    } finally {
      upstream.setHandler(openAIMockHandler());
    }
  });

  it('502 when the upstream cannot be reached', async () => {
    const response = await gateway.post('/v1/chat/completions', chat, { ...viaMock(), 'x-gw-custom-host': 'http://127.0.0.1:9' });
    await expectError(response, 502, 'upstream_unreachable');
  });

  it('408 when the upstream does not answer within x-gw-request-timeout', async () => {
    upstream.setHandler(() => ({ hang: true }));
    try {
      const response = await gateway.post('/v1/chat/completions', chat, { ...viaMock(), 'x-gw-request-timeout': '150' });
      const body = await expectError(response, 408, 'request_timeout');
      expect(body.error.message).toContain('150 ms');
    } finally {
      upstream.setHandler(openAIMockHandler());
    }
  });

  it('never copies the provider credential or gw key into the upstream call beyond Authorization', async () => {
    await gateway.post('/v1/chat/completions', chat, { ...viaMock(), 'x-custom': 'v', 'x-gw-forward-headers': 'x-custom' });
    const seen = upstream.requests.at(-1)!;
    expect(seen.headers['x-custom']).toBe('v');
    expect(Object.keys(seen.headers).filter((name) => name.startsWith('x-gw-'))).toEqual([]);
  });
});

describe('body fields', () => {
  it('fills the upstream user from metadata._user when the body has none', async () => {
    await gateway.post('/v1/chat/completions', chat, { ...viaMock(), 'x-gw-metadata': '{"_user":"alice"}' });
    expect((upstream.requests.at(-1)!.json as { user?: string }).user).toBe('alice');
    await gateway.post('/v1/chat/completions', { ...chat, user: 'bob' }, { ...viaMock(), 'x-gw-metadata': '{"_user":"alice"}' });
    expect((upstream.requests.at(-1)!.json as { user?: string }).user).toBe('bob');
  });

  it('serves legacy completions and embeddings', async () => {
    const completion = await gateway.post('/v1/completions', { model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi' }, viaMock());
    expect(completion.status).toBe(200);
    expect(upstream.requests.at(-1)!.path).toBe('/completions');
    const embeddings = await gateway.post('/v1/embeddings', { model: 'text-embedding-3-small', input: ['a', 'b'] }, viaMock());
    expect(embeddings.status).toBe(200);
    const body = (await embeddings.json()) as { data: unknown[] };
    expect(body.data).toHaveLength(2);
    expect(upstream.requests.at(-1)!.path).toBe('/embeddings');
  });

  it('400 for embeddings without input and for a streamed embedding', async () => {
    await expectError(await gateway.post('/v1/embeddings', { model: 'm' }, viaMock()), 400, 'missing_input');
    await expectError(await gateway.post('/v1/embeddings', { model: 'm', input: 'x', stream: true }, viaMock()), 400, 'invalid_stream');
    await expectError(await gateway.post('/v1/completions', { model: 'm' }, viaMock()), 400, 'missing_prompt');
  });
});
