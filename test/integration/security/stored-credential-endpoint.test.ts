import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { anthropicMockHandler } from '../../support/mock-anthropic.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { api, expectError } from '../control-plane/identities-support.js';

/**
 * A stored credential is bound to its endpoint (origin and path prefix), not only its origin: one host serving
 * many tenants by path (`/tenant-a`, `/tenant-b`) must never receive tenant A's stored key on tenant B's route.
 * Class: endpoint binding of stored credentials (docs/security.md, "Stored credentials and hosts").
 */

let gateway: TestGateway;
let shared: MockUpstream;
const SECRET = 'vk-tenant-a-secret-5f6e7d8c9b0a';

beforeAll(async () => {
  shared = await startMockUpstream(anthropicMockHandler());
  gateway = await startTestGateway({ GW_VIRTUAL_KEY_CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  await gateway?.close();
  await shared?.close();
});

async function virtualKey(body: Record<string, unknown>): Promise<string> {
  const reply = await api<{ id: string }>(gateway, 'POST', '/v1/virtual-keys', { body: { provider: 'anthropic', credential: SECRET, ...body } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id;
}

async function chat(headers: Record<string, string>) {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, ...headers },
    body: JSON.stringify({ model: 'claude-3-5-haiku', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

/** The stored key of tenant A as seen by the shared host on each path. */
function keysSentUnder(prefix: string): unknown[] {
  return shared.requests.filter((request) => request.path.startsWith(prefix)).map((request) => request.headers['x-api-key']);
}

describe('stored credential endpoint binding (path prefix, not only origin)', () => {
  it('refuses a caller-named path of another tenant on the stored host, and that path sees nothing', async () => {
    const id = await virtualKey({ custom_host: `${shared.url}/tenant-a` });
    for (const other of [`${shared.url}/tenant-b`, `${shared.url}/tenant-ab`, `${shared.url}`, `${shared.url}/tenant-a/..%2ftenant-b`, `${shared.url}/tenant-a%2F..%2Ftenant-b`]) {
      const reply = await chat({ 'x-gw-virtual-key': id, 'x-gw-custom-host': other });
      expectError(reply, 400, 'stored_credential_custom_host', { param: 'x-gw-custom-host' });
    }
    expect(keysSentUnder('/tenant-b')).toEqual([]);
    expect(shared.requests.filter((request) => !request.path.startsWith('/tenant-a/'))).toEqual([]);
  });

  it('sends the key to its own base URL and to paths below it', async () => {
    const id = await virtualKey({ custom_host: `${shared.url}/tenant-a` });
    expect((await chat({ 'x-gw-virtual-key': id })).status).toBe(200);
    expect((await chat({ 'x-gw-virtual-key': id, 'x-gw-custom-host': `${shared.url}/tenant-a/` })).status).toBe(200);
    expect((await chat({ 'x-gw-virtual-key': id, 'x-gw-custom-host': `${shared.url}/tenant-a/eu` })).status).toBe(200);
    expect(keysSentUnder('/tenant-a/eu/')).toEqual([SECRET]);
  });

  it('treats allowed_custom_hosts entries as base URLs: a path entry allows that path only', async () => {
    const id = await virtualKey({ custom_host: 'http://127.0.0.1:9/v1', allowed_custom_hosts: [`${shared.url}/tenant-c/`] });
    const read = await api<{ allowed_custom_hosts: string[] }>(gateway, 'GET', `/v1/virtual-keys/${id}`);
    expect(read.body.allowed_custom_hosts).toEqual([`${shared.url}/tenant-c`]);
    expect((await chat({ 'x-gw-virtual-key': id, 'x-gw-custom-host': `${shared.url}/tenant-c` })).status).toBe(200);
    expectError(await chat({ 'x-gw-virtual-key': id, 'x-gw-custom-host': `${shared.url}/tenant-d` }), 400, 'stored_credential_custom_host');
    expect(keysSentUnder('/tenant-d')).toEqual([]);
  });

  it('binds the endpoint on every entry point: messages, count_tokens, responses, pass-through and batches', async () => {
    const anthropicKey = await virtualKey({ custom_host: `${shared.url}/tenant-a` });
    const openaiKey = await virtualKey({ provider: 'openai', custom_host: `${shared.url}/tenant-a/v1` });
    const before = shared.requests.length;
    const post = async (path: string, body: unknown, headers: Record<string, string>) => {
      const response = await fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'anthropic-version': '2023-06-01', ...headers },
        body: JSON.stringify(body),
      });
      return { status: response.status, code: response.headers.get('x-gw-error-code') ?? ((await response.json()) as { error?: { code?: string } }).error?.code };
    };
    const messages = { model: 'claude-3-5-haiku', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] };
    const otherTenant = (key: string, path = '') => ({ 'x-gw-virtual-key': key, 'x-gw-custom-host': `${shared.url}/tenant-b${path}` });
    const cases: Array<[string, unknown, Record<string, string>]> = [
      ['/v1/messages', messages, otherTenant(anthropicKey)],
      ['/v1/messages/count_tokens', { model: messages.model, messages: messages.messages }, otherTenant(anthropicKey)],
      ['/v1/responses', { model: 'claude-3-5-haiku', input: 'Hi' }, otherTenant(anthropicKey)],
      ['/v1/moderations', { input: 'Hi' }, otherTenant(openaiKey, '/v1')],
      ['/v1/images/generations', { prompt: 'a cat', model: 'gpt-image-1' }, otherTenant(openaiKey, '/v1')],
    ];
    for (const [path, body, headers] of cases) expect(await post(path, body, headers), path).toEqual({ status: 400, code: 'stored_credential_custom_host' });

    const form = new FormData();
    form.append('purpose', 'batch');
    const line = { custom_id: 'one', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: messages.messages } };
    form.append('file', new Blob([`${JSON.stringify(line)}\n`], { type: 'application/jsonl' }), 'input.jsonl');
    const file = await fetch(`${gateway.url}/v1/files`, { method: 'POST', headers: { 'x-gw-api-key': gateway.apiKey }, body: form });
    expect(file.status).toBe(200);
    const batch = { input_file_id: ((await file.json()) as { id: string }).id, endpoint: '/v1/chat/completions', completion_window: '24h' };
    expect(await post('/v1/batches', batch, otherTenant(openaiKey, '/v1'))).toEqual({ status: 400, code: 'stored_credential_custom_host' });
    expect(shared.requests.slice(before)).toEqual([]);
  });

  it('moving a stored credential to a new endpoint by PATCH needs the credential again (a writer cannot re-point a secret it never saw)', async () => {
    const id = await virtualKey({ custom_host: `${shared.url}/tenant-a` });
    const patch = (body: Record<string, unknown>) => api(gateway, 'PATCH', `/v1/virtual-keys/${id}`, { body });
    expectError(await patch({ custom_host: `${shared.url}/tenant-b` }), 400, 'stored_credential_endpoint_change', { param: 'custom_host' });
    expectError(await patch({ allowed_custom_hosts: [`${shared.url}/tenant-b`] }), 400, 'stored_credential_endpoint_change', { param: 'allowed_custom_hosts' });
    expect((await api<{ custom_host: string }>(gateway, 'GET', `/v1/virtual-keys/${id}`)).body.custom_host).toBe(`${shared.url}/tenant-a`);
    // Narrowing needs nothing: a path below the old one, or back to the provider's own API.
    expect((await patch({ custom_host: `${shared.url}/tenant-a/eu` })).status).toBe(200);
    // With the credential sent again, the owner of the secret may move it anywhere.
    expect((await patch({ custom_host: `${shared.url}/tenant-b`, credential: 'vk-tenant-b-secret-0a9b8c7d' })).status).toBe(200);
    expect((await patch({ custom_host: null })).status).toBe(200);
    expect(shared.requests.filter((request) => request.path.startsWith('/tenant-b')).map((request) => request.headers['x-api-key'])).not.toContain(SECRET);
  });

  it('refuses allow-list entries with a query, fragment, credentials or an encoded slash', async () => {
    for (const entry of ['https://proxy.example.com/v1?x=1', 'https://proxy.example.com/#f', 'https://u:p@proxy.example.com', 'https://proxy.example.com/a%2fb']) {
      const reply = await api(gateway, 'POST', '/v1/virtual-keys', { body: { provider: 'anthropic', credential: SECRET, allowed_custom_hosts: [entry] } });
      expect(reply.status, entry).toBe(400);
    }
  });
});
