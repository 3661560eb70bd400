import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geminiMockHandler } from '../../fixtures/google/mock-gemini.js';
import { startLocalServer, type LocalServer } from '../../../infra/local/server.js';
import { anthropicMockHandler } from '../../support/mock-anthropic.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream, type RecordedRequest } from '../../support/mock-upstream.js';

/**
 * gw's own API key never goes upstream (docs/security.md, "gw's key is never a provider key"). A client may put
 * a gw key where a provider key goes — `Authorization: Bearer`, `x-api-key` — besides `x-gw-api-key`: the same
 * key, another workspace's, or an admin key chosen without gw's prefix (GW_BOOTSTRAP_API_KEY). On chat,
 * embeddings, Anthropic and Google targets the provider receives none of them in any header.
 * Class: credential leak of gw keys through outbound provider headers.
 */

// A chosen admin key without gw's `gwk_` prefix: only a lookup by hash tells it is gw's.
const PLAIN_ADMIN_KEY = 'plain-admin-key-7c1e94b2d05a63f8';
let gateway: LocalServer;
let openai: MockUpstream;
let anthropic: MockUpstream;
let google: MockUpstream;
let workspaceA: string;
let workspaceB: string;

async function controlPlane<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${gateway.url}${path}`, { method, headers: { 'content-type': 'application/json', 'x-gw-api-key': PLAIN_ADMIN_KEY }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await response.json()) as T;
  expect(response.status, JSON.stringify(json)).toBeLessThan(300);
  return json;
}

beforeAll(async () => {
  openai = await startMockUpstream(openAIMockHandler());
  anthropic = await startMockUpstream(anthropicMockHandler());
  google = await startMockUpstream(geminiMockHandler());
  gateway = await startLocalServer({ port: 0, dataDir: ':memory:', bootstrapApiKey: PLAIN_ADMIN_KEY, env: { POWERTOOLS_LOG_LEVEL: 'SILENT' } });
  workspaceA = (await controlPlane<{ key: string }>('POST', '/v1/api-keys', { name: 'a', scopes: ['completions:write'] })).key;
  const other = await controlPlane<{ id: string }>('POST', '/v1/workspaces', { name: 'other workspace' });
  workspaceB = (await controlPlane<{ key: string }>('POST', '/v1/api-keys', { name: 'b', workspace_id: other.id, scopes: ['completions:write'] })).key;
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([openai?.close(), anthropic?.close(), google?.close()]);
});

const TARGETS = [
  { name: 'chat (openai)', path: '/v1/chat/completions', upstream: () => openai, headers: () => ({ 'x-gw-provider': 'openai', 'x-gw-custom-host': `${openai.url}/v1` }), body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] } },
  { name: 'embeddings (openai)', path: '/v1/embeddings', upstream: () => openai, headers: () => ({ 'x-gw-provider': 'openai', 'x-gw-custom-host': `${openai.url}/v1` }), body: { model: 'text-embedding-3-small', input: 'Hi' } },
  { name: 'messages (anthropic)', path: '/v1/messages', upstream: () => anthropic, headers: () => ({ 'x-gw-provider': 'anthropic', 'x-gw-custom-host': anthropic.url, 'anthropic-version': '2023-06-01' }), body: { model: 'claude-3-5-haiku', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] } },
  { name: 'chat (anthropic)', path: '/v1/chat/completions', upstream: () => anthropic, headers: () => ({ 'x-gw-provider': 'anthropic', 'x-gw-custom-host': anthropic.url }), body: { model: 'claude-3-5-haiku', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] } },
  { name: 'chat (google)', path: '/v1/chat/completions', upstream: () => google, headers: () => ({ 'x-gw-provider': 'google', 'x-gw-custom-host': `${google.url}/v1beta` }), body: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Hi' }] } },
];

/** Every header value the provider received, flattened. */
function headerValues(request: RecordedRequest): string {
  return Object.values(request.headers).flat().join('\n');
}

async function send(target: (typeof TARGETS)[number], gwKey: string, providerSlot: Record<string, string>) {
  const upstream = target.upstream();
  const before = upstream.requests.length;
  const response = await fetch(`${gateway.url}${target.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': gwKey, ...target.headers(), ...providerSlot },
    body: JSON.stringify(target.body),
  });
  const text = await response.text();
  expect(response.status, `${target.name}: ${text}`).toBe(200);
  expect(upstream.requests.length).toBe(before + 1);
  return upstream.requests.at(-1)!;
}

describe('gw keys in provider-key headers never reach the provider', () => {
  const cases: Array<{ name: string; gwKey: () => string; leaked: () => string }> = [
    { name: 'the same key as x-gw-api-key', gwKey: () => workspaceA, leaked: () => workspaceA },
    { name: 'another workspace’s key', gwKey: () => workspaceA, leaked: () => workspaceB },
    { name: 'an admin key without gw’s prefix, found by hash', gwKey: () => workspaceA, leaked: () => PLAIN_ADMIN_KEY },
    { name: 'the same prefix-less key as x-gw-api-key', gwKey: () => PLAIN_ADMIN_KEY, leaked: () => PLAIN_ADMIN_KEY },
  ];
  for (const target of TARGETS) {
    for (const leak of cases) {
      it(`${target.name}: ${leak.name}, in Authorization and in x-api-key`, async () => {
        const slots: Array<Record<string, string>> = [{ authorization: `Bearer ${leak.leaked()}` }, { 'x-api-key': leak.leaked() }, { 'x-goog-api-key': leak.leaked(), 'api-key': leak.leaked() }];
        for (const slot of slots) {
          const seen = await send(target, leak.gwKey(), slot);
          expect(headerValues(seen)).not.toContain(leak.leaked());
          expect(headerValues(seen)).not.toContain(leak.gwKey());
        }
      });
    }
  }

  it('still forwards a real provider key beside gw’s key', async () => {
    const seen = await send(TARGETS[0], workspaceA, { authorization: 'Bearer sk-real-provider-key-123456' });
    expect(seen.headers.authorization).toBe('Bearer sk-real-provider-key-123456');
    const google = await send(TARGETS[4], workspaceA, { authorization: 'Bearer AIzaSy-real-google-key' });
    expect(google.headers['x-goog-api-key']).toBe('AIzaSy-real-google-key');
  });

  it('takes a prefix-less gw key in Authorization as gw’s key when x-gw-api-key is absent', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${PLAIN_ADMIN_KEY}`, ...TARGETS[0].headers() },
      body: JSON.stringify(TARGETS[0].body),
    });
    expect(response.status).toBe(200);
    expect(headerValues(openai.requests.at(-1)!)).not.toContain(PLAIN_ADMIN_KEY);
  });
});
