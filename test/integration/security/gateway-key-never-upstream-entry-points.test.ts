import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../../../infra/local/server.js';
import { startMockUpstream, type MockUpstream, type RecordedRequest } from '../../support/mock-upstream.js';

/**
 * gw's own API key never goes upstream, on every entry point and every provider (docs/security.md, "gw's key is
 * never a provider key"). Each call carries gw keys in every header a provider key can travel in, and in headers the
 * caller asks gw to forward (`x-gw-forward-headers`): this request's key, another workspace's, a revoked one and a
 * prefix-less admin key. One mock provider, a real HTTP server behind `x-gw-custom-host`, records every upstream
 * call; none may carry any of those keys in any header, whatever the provider answered.
 * Class: credential leak of gw keys through outbound provider headers.
 */

const PLAIN_ADMIN_KEY = 'plain-admin-key-4b9d2e7f1a0c8356';
let gateway: LocalServer;
let upstream: MockUpstream;
const keys = { own: '', otherWorkspace: '', revoked: '' };

async function controlPlane<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${gateway.url}${path}`, { method, headers: { 'content-type': 'application/json', 'x-gw-api-key': PLAIN_ADMIN_KEY }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await response.json()) as T;
  expect(response.status, JSON.stringify(json)).toBeLessThan(300);
  return json;
}

/** Whatever the path, a small JSON answer: this test is about what the provider receives, not what it says. */
function anyAnswer(request: RecordedRequest) {
  if (request.path.endsWith('/files')) return { json: { id: 'file-upstream', object: 'file', purpose: 'batch', bytes: 10, created_at: 1, filename: 'input.jsonl' } };
  if (request.path.endsWith('/batches')) return { json: { id: 'batch_upstream', object: 'batch', status: 'validating', created_at: 1 } };
  return { json: { id: 'x', object: 'chat.completion', model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } } };
}

beforeAll(async () => {
  upstream = await startMockUpstream(anyAnswer);
  gateway = await startLocalServer({ port: 0, dataDir: ':memory:', bootstrapApiKey: PLAIN_ADMIN_KEY, env: { POWERTOOLS_LOG_LEVEL: 'SILENT' } });
  const scopes = ['completions:write'];
  keys.own = (await controlPlane<{ key: string }>('POST', '/v1/api-keys', { name: 'own', scopes })).key;
  const revoked = await controlPlane<{ id: string; key: string }>('POST', '/v1/api-keys', { name: 'revoked', scopes });
  await controlPlane('DELETE', `/v1/api-keys/${revoked.id}`);
  keys.revoked = revoked.key;
  const other = await controlPlane<{ id: string }>('POST', '/v1/workspaces', { name: 'another workspace' });
  keys.otherWorkspace = (await controlPlane<{ key: string }>('POST', '/v1/api-keys', { name: 'other', workspace_id: other.id, scopes })).key;
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const chat = { model: 'test-model', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] };
const host = (path = '') => ({ 'x-gw-custom-host': `${upstream.url}${path}` });

/** Every entry point that calls a provider, with the provider and coordinates it needs to reach the mock. */
const TARGETS: Array<{ name: string; path: string; body: unknown; headers: () => Record<string, string> }> = [
  { name: 'chat · openai', path: '/v1/chat/completions', body: chat, headers: () => ({ 'x-gw-provider': 'openai', ...host('/v1') }) },
  { name: 'completions · openai', path: '/v1/completions', body: { model: 'test-model', prompt: 'Hi', max_tokens: 16 }, headers: () => ({ 'x-gw-provider': 'openai', ...host('/v1') }) },
  { name: 'embeddings · openai', path: '/v1/embeddings', body: { model: 'test-model', input: 'Hi' }, headers: () => ({ 'x-gw-provider': 'openai', ...host('/v1') }) },
  { name: 'responses · openai', path: '/v1/responses', body: { model: 'test-model', input: 'Hi' }, headers: () => ({ 'x-gw-provider': 'openai', ...host('/v1') }) },
  { name: 'moderations (pass-through) · openai', path: '/v1/moderations', body: { input: 'Hi' }, headers: () => ({ 'x-gw-provider': 'openai', ...host('/v1') }) },
  { name: 'messages · anthropic', path: '/v1/messages', body: chat, headers: () => ({ 'x-gw-provider': 'anthropic', 'anthropic-version': '2023-06-01', ...host() }) },
  { name: 'count_tokens · anthropic', path: '/v1/messages/count_tokens', body: { model: 'test-model', messages: chat.messages }, headers: () => ({ 'x-gw-provider': 'anthropic', 'anthropic-version': '2023-06-01', ...host() }) },
  { name: 'chat · google', path: '/v1/chat/completions', body: chat, headers: () => ({ 'x-gw-provider': 'google', ...host('/v1beta') }) },
  { name: 'chat · azure-openai', path: '/v1/chat/completions', body: chat, headers: () => ({ 'x-gw-provider': 'azure-openai', 'x-gw-azure-deployment-id': 'dep', 'x-gw-azure-api-version': '2024-10-21', ...host() }) },
  { name: 'chat · vertex-ai', path: '/v1/chat/completions', body: chat, headers: () => ({ 'x-gw-provider': 'vertex-ai', 'x-gw-vertex-project-id': 'project', 'x-gw-vertex-region': 'us-central1', ...host() }) },
  {
    name: 'chat · bedrock',
    path: '/v1/chat/completions',
    body: chat,
    headers: () => ({ 'x-gw-provider': 'bedrock', 'x-gw-aws-access-key-id': 'AKIAEXAMPLEEXAMPLE12', 'x-gw-aws-secret-access-key': 'secret-example-0123456789', 'x-gw-aws-region': 'us-east-1', ...host() }),
  },
];

/** gw keys in every provider-key header and in two headers the caller asks gw to forward. */
function gwKeysEverywhere(): Record<string, string> {
  return {
    'x-gw-api-key': keys.own,
    authorization: `Bearer ${keys.otherWorkspace}`,
    'x-api-key': keys.revoked,
    'x-goog-api-key': PLAIN_ADMIN_KEY,
    'api-key': keys.own,
    'x-gw-forward-headers': 'x-tenant-auth, x-upstream-token, x-trace-note',
    'x-tenant-auth': `Bearer ${keys.revoked}`,
    'x-upstream-token': PLAIN_ADMIN_KEY,
    'x-trace-note': 'kept: no key here',
  };
}

function leakedKeys(requests: RecordedRequest[]): string[] {
  const sent = requests.map((request) => Object.values(request.headers).flat().join('\n')).join('\n');
  return [keys.own, keys.otherWorkspace, keys.revoked, PLAIN_ADMIN_KEY].filter((key) => sent.includes(key));
}

async function callAndRecord(path: string, init: RequestInit): Promise<{ status: number; text: string; calls: RecordedRequest[] }> {
  const before = upstream.requests.length;
  const response = await fetch(`${gateway.url}${path}`, init);
  const text = await response.text();
  return { status: response.status, text, calls: upstream.requests.slice(before) };
}

describe('gw keys never reach the provider, on any entry point or provider', () => {
  for (const target of TARGETS) {
    it(`${target.name}: no gw key (own, another workspace's, revoked, prefix-less) in any upstream header`, async () => {
      const { status, text, calls } = await callAndRecord(target.path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...gwKeysEverywhere(), ...target.headers() },
        body: JSON.stringify(target.body),
      });
      expect(calls.length, `${target.name} reached no provider: ${status} ${text}`).toBeGreaterThan(0);
      expect(leakedKeys(calls)).toEqual([]);
      // A forwarded header without a key still goes on: only gw keys are taken out.
      expect(calls[0].headers['x-trace-note']).toBe('kept: no key here');
    });
  }

  it('files and batches: the upload and the batch sent to the provider carry no gw key', async () => {
    const form = new FormData();
    form.append('purpose', 'batch');
    const line = { custom_id: 'one', method: 'POST', url: '/v1/chat/completions', body: { model: 'test-model', messages: chat.messages } };
    form.append('file', new Blob([`${JSON.stringify(line)}\n`], { type: 'application/jsonl' }), 'input.jsonl');
    const { 'x-gw-forward-headers': _names, ...keyHeaders } = gwKeysEverywhere();
    const uploaded = await callAndRecord('/v1/files', { method: 'POST', headers: keyHeaders, body: form });
    expect(uploaded.status, uploaded.text).toBe(200);
    const fileId = (JSON.parse(uploaded.text) as { id: string }).id;
    const batch = await callAndRecord('/v1/batches', {
      method: 'POST',
      // Batches need the provider's own credential (Authorization); gw keys stay in every other slot.
      headers: { 'content-type': 'application/json', ...gwKeysEverywhere(), authorization: 'Bearer sk-provider-batch-key', 'x-gw-provider': 'openai', ...host('/v1') },
      body: JSON.stringify({ input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    });
    const calls = [...uploaded.calls, ...batch.calls];
    expect(batch.calls.length, `the batch reached no provider: ${batch.status} ${batch.text}`).toBeGreaterThan(0);
    expect(leakedKeys(calls)).toEqual([]);
    expect(batch.calls[0].headers.authorization).toBe('Bearer sk-provider-batch-key');
  });
});

/**
 * A prefix-less gw key (the bootstrap admin key) in a header named only by a config's `forward_headers` — never by
 * `x-gw-forward-headers` — was caught only by gw's prefix or equality with this request's key, neither of which
 * it has: it went upstream. Class: gw keys in headers a config forwards, looked up as header-named ones are.
 */
describe('gw keys in headers a config’s forward_headers names', () => {
  const configWith = () => ({
    strategy: { mode: 'fallback' },
    targets: [{ provider: 'openai', custom_host: `${upstream.url}/v1`, forward_headers: ['x-upstream-token', 'x-trace-note', 'x-tenant-auth'] }],
  });
  const headers = () => ({ 'content-type': 'application/json', 'x-gw-api-key': keys.own, 'x-upstream-token': PLAIN_ADMIN_KEY, 'x-tenant-auth': `Bearer ${PLAIN_ADMIN_KEY}`, 'x-trace-note': 'kept: no key here' });

  async function expectNoneLeaked(extra: Record<string, string>): Promise<void> {
    const { status, text, calls } = await callAndRecord('/v1/chat/completions', { method: 'POST', headers: { ...headers(), ...extra }, body: JSON.stringify(chat) });
    expect(calls.length, `reached no provider: ${status} ${text}`).toBeGreaterThan(0);
    expect(leakedKeys(calls)).toEqual([]);
    expect(calls[0].headers['x-trace-note']).toBe('kept: no key here');
  }

  it('an inline x-gw-config: a prefix-less gw key in a header only its nested target names does not go upstream', async () => {
    await expectNoneLeaked({ 'x-gw-config': JSON.stringify(configWith()) });
  });

  it('a saved config and a deployment: the same', async () => {
    const saved = await controlPlane<{ id: string }>('POST', '/v1/configs', { name: 'forwarding', config: configWith() });
    await expectNoneLeaked({ 'x-gw-config': saved.id });
    await controlPlane('POST', '/v1/deployments', { name: 'forwarding', slug: 'forwarding', type: 'production', config: configWith() });
    await expectNoneLeaked({ 'x-gw-deployment': 'forwarding' });
  });
});
