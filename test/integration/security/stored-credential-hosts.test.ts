import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { anthropicMockHandler } from '../../support/mock-anthropic.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { api, expectError, type Reply } from '../control-plane/identities-support.js';

/**
 * A stored credential goes only to the host stored with it (docs/security.md, "Stored credentials and hosts").
 * `home` is the host each stored resource names; `elsewhere` is a host a caller picks. Every credential source
 * (virtual key, saved config, integration, deployment, a virtual key inside an inline config) × every entry point
 * that resolves a target (chat, responses, messages, count_tokens) is refused, and `elsewhere` sees nothing.
 */

let gateway: TestGateway;
let home: MockUpstream;
let elsewhere: MockUpstream;

const SECRET = {
  virtualKey: 'vk-secret-0a1b2c3d4e5f60718293',
  savedConfig: 'cfg-secret-1b2c3d4e5f6071829304',
  integration: 'int-secret-2c3d4e5f607182930415',
  deployment: 'dep-secret-3d4e5f60718293041526',
};

interface Source {
  name: string;
  /** Headers that select the stored credential, given the host the caller picks (or none). */
  headers(customHost: string | undefined): Record<string, string>;
}

const sources: Source[] = [];
const allowListed: Source[] = [];

const ENDPOINTS: Array<{ name: string; path: string; body: Record<string, unknown> }> = [
  { name: 'chat', path: '/v1/chat/completions', body: { model: 'claude-3-5-haiku', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] } },
  { name: 'responses', path: '/v1/responses', body: { model: 'claude-3-5-haiku', max_output_tokens: 16, input: 'Hi' } },
  { name: 'messages', path: '/v1/messages', body: { model: 'claude-3-5-haiku', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] } },
  { name: 'count_tokens', path: '/v1/messages/count_tokens', body: { model: 'claude-3-5-haiku', messages: [{ role: 'user', content: 'Hi' }] } },
];

async function created<Body extends { id: string }>(path: string, body: Record<string, unknown>): Promise<Body> {
  const reply = await api<Body>(gateway, 'POST', path, { body });
  expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
  return reply.body;
}

/** The four stored resources, each holding its credential for `home`; `allowed` adds allow-lists. */
async function storedSources(allowed: string[]): Promise<Source[]> {
  const suffix = randomUUID().slice(0, 8);
  // Only when there is one: a resource without allow-list is the plain, pre-existing body.
  const allowing = allowed.length > 0 ? { allowed_custom_hosts: allowed } : {};
  const withHost = (customHost: string | undefined): Record<string, string> => (customHost === undefined ? {} : { 'x-gw-custom-host': customHost });
  const virtualKey = await created('/v1/virtual-keys', { provider: 'anthropic', credential: SECRET.virtualKey, custom_host: home.url, ...allowing });
  const config = { provider: 'anthropic', api_key: SECRET.savedConfig, custom_host: home.url, ...allowing };
  const saved = await created('/v1/configs', { name: `stored ${suffix}`, config });
  const integration = await created<{ id: string; slug: string }>('/v1/integrations', {
    name: `anthropic ${suffix}`,
    slug: `anthropic-${suffix}`,
    provider: 'anthropic',
    credential: SECRET.integration,
    custom_host: home.url,
    ...allowing,
    shared_with_workspaces: 'all',
  });
  await created('/v1/providers', { integration_id: integration.slug, slug: `team-${suffix}` });
  const deployment = await created<{ id: string; slug: string }>('/v1/deployments', {
    name: `deployment ${suffix}`,
    slug: `dep-${suffix}`,
    type: 'production',
    config: { provider: 'anthropic', api_key: SECRET.deployment, custom_host: home.url, ...allowing },
  });
  return [
    { name: 'virtual key', headers: (host) => ({ 'x-gw-virtual-key': virtualKey.id, ...withHost(host) }) },
    { name: 'saved config', headers: (host) => ({ 'x-gw-config': saved.id, ...withHost(host) }) },
    { name: 'integration (@provider)', headers: (host) => ({ 'x-gw-provider': `@team-${suffix}`, ...withHost(host) }) },
    { name: 'deployment', headers: (host) => ({ 'x-gw-deployment': deployment.slug, ...withHost(host) }) },
    // The host comes from the inline config here, not from a header: a caller's config is the caller's choice too.
    {
      name: 'virtual key in an inline config',
      headers: (host) => ({ 'x-gw-config': JSON.stringify(host === undefined ? { virtual_key: virtualKey.id } : { virtual_key: virtualKey.id, custom_host: host }) }),
    },
  ];
}

beforeAll(async () => {
  home = await startMockUpstream(anthropicMockHandler());
  elsewhere = await startMockUpstream(anthropicMockHandler());
  gateway = await startTestGateway({ GW_VIRTUAL_KEY_CACHE_TTL_MS: '0' });
  sources.push(...(await storedSources([])));
});
afterAll(async () => {
  await gateway?.close();
  await home?.close();
  await elsewhere?.close();
});

async function post(path: string, body: unknown, headers: Record<string, string>): Promise<Reply<Record<string, unknown>>> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as Record<string, unknown> };
}

/** The error code whatever the dialect's error shape (gw's, or Anthropic's with x-gw-error-code). */
function errorCode(reply: Reply<Record<string, unknown>>): string | null {
  return reply.headers.get('x-gw-error-code') ?? ((reply.body.error as { code?: string } | undefined)?.code ?? null);
}

describe('a stored credential with a host the caller picks', () => {
  for (const endpoint of ENDPOINTS) {
    it(`is refused on ${endpoint.name} for every credential source, and the picked host sees nothing`, async () => {
      for (const source of sources) {
        const before = elsewhere.requests.length;
        const reply = await post(endpoint.path, endpoint.body, source.headers(elsewhere.url));
        expect({ source: source.name, status: reply.status, code: errorCode(reply) }, JSON.stringify(reply.body)).toEqual({
          source: source.name,
          status: 400,
          code: 'stored_credential_custom_host',
        });
        // The message names the stored resource and the host.
        expect(JSON.stringify(reply.body)).toContain(new URL(elsewhere.url).origin);
        expect(elsewhere.requests.length).toBe(before);
      }
    });
  }

  it('answers in the one error shape, naming the resource, the host and x-gw-custom-host', async () => {
    const reply = await post('/v1/chat/completions', ENDPOINTS[0].body, sources[0].headers(elsewhere.url));
    expectError(reply, 400, 'stored_credential_custom_host', { param: 'x-gw-custom-host', message: /virtual key "[^"]+".*http:\/\/127\.0\.0\.1:\d+.*allowed_custom_hosts/ });
  });

  it('still works without a picked host: each stored credential goes to its own host', async () => {
    for (const source of sources) {
      const before = home.requests.length;
      const reply = await post('/v1/chat/completions', ENDPOINTS[0].body, source.headers(undefined));
      expect({ source: source.name, status: reply.status }, JSON.stringify(reply.body)).toEqual({ source: source.name, status: 200 });
      expect(home.requests.length).toBe(before + 1);
    }
  });

  it('goes to a host the stored resource allow-lists, on every entry point', async () => {
    const stored = new Set(Object.values(SECRET));
    allowListed.push(...(await storedSources([new URL(elsewhere.url).origin])));
    for (const endpoint of ENDPOINTS) {
      for (const source of allowListed) {
        const before = elsewhere.requests.length;
        const reply = await post(endpoint.path, endpoint.body, source.headers(elsewhere.url));
        expect({ endpoint: endpoint.name, source: source.name, status: reply.status }, JSON.stringify(reply.body)).toEqual({ endpoint: endpoint.name, source: source.name, status: 200 });
        expect(elsewhere.requests.length).toBe(before + 1);
        expect(stored.has(String(elsewhere.requests.at(-1)!.headers['x-api-key']))).toBe(true);
      }
    }
  });

  it('lets the caller’s own credential go to the host it picks (Authorization, an inline config’s api_key)', async () => {
    for (const endpoint of ENDPOINTS) {
      const viaHeaders = { 'x-gw-provider': 'anthropic', authorization: 'Bearer caller-own-key-000111', 'x-gw-custom-host': elsewhere.url };
      const inline = { 'x-gw-config': JSON.stringify({ provider: 'anthropic', api_key: 'caller-inline-key-222333', custom_host: elsewhere.url }) };
      for (const headers of [viaHeaders, inline]) {
        const before = elsewhere.requests.length;
        const reply = await post(endpoint.path, endpoint.body, headers);
        expect({ endpoint: endpoint.name, status: reply.status }, JSON.stringify(reply.body)).toEqual({ endpoint: endpoint.name, status: 200 });
        expect(elsewhere.requests.length).toBe(before + 1);
      }
    }
  });

  it('is refused when the host comes from a config rather than a header: an inline config over @provider, a saved config over a virtual key', async () => {
    const chat = ENDPOINTS[0];
    const integration = sources[2].headers(undefined);
    const inlineOverProvider = await post(chat.path, chat.body, { ...integration, 'x-gw-config': JSON.stringify({ custom_host: elsewhere.url }) });
    expect(errorCode(inlineOverProvider), JSON.stringify(inlineOverProvider.body)).toBe('stored_credential_custom_host');
    // A saved config may route a virtual key, but not send the key's credential to a host the key does not name.
    const virtualKeyId = sources[0].headers(undefined)['x-gw-virtual-key'];
    const saved = await created('/v1/configs', { name: `vk elsewhere ${randomUUID().slice(0, 6)}`, config: { virtual_key: virtualKeyId, custom_host: elsewhere.url } });
    const before = elsewhere.requests.length;
    const reply = await post(chat.path, chat.body, { 'x-gw-config': saved.id });
    expectError(reply, 400, 'stored_credential_custom_host', { message: /saved config "[^"]+" names the host/ });
    expect(elsewhere.requests.length).toBe(before);
    // Its own host, written in the same saved config as its api_key, is the config's to choose.
    const own = await created('/v1/configs', { name: `own host ${randomUUID().slice(0, 6)}`, config: { provider: 'anthropic', api_key: SECRET.savedConfig, targets: [{ custom_host: elsewhere.url }], strategy: { mode: 'single' } } });
    expect((await post(chat.path, chat.body, { 'x-gw-config': own.id })).status).toBe(200);
    expect(elsewhere.requests.length).toBe(before + 1);
  });

  it('shows allowed_custom_hosts on read and refuses entries that are not base URLs', async () => {
    const key = await created<{ id: string }>('/v1/virtual-keys', { provider: 'anthropic', credential: SECRET.virtualKey, allowed_custom_hosts: ['https://Proxy.Example.com:443'] });
    const read = await api<{ allowed_custom_hosts: string[] }>(gateway, 'GET', `/v1/virtual-keys/${key.id}`);
    expect(read.body.allowed_custom_hosts).toEqual(['https://proxy.example.com']);
    const cleared = await api<{ allowed_custom_hosts: string[] }>(gateway, 'PATCH', `/v1/virtual-keys/${key.id}`, { body: { allowed_custom_hosts: [] } });
    expect(cleared.body.allowed_custom_hosts).toEqual([]);
    const withPath = await api(gateway, 'POST', '/v1/virtual-keys', { body: { provider: 'anthropic', credential: SECRET.virtualKey, allowed_custom_hosts: ['https://proxy.example.com/v1?tenant=a'] } });
    expectError(withPath, 400, 'invalid_request');
    const inChild = await api(gateway, 'POST', '/v1/configs', { body: { name: 'nested', config: { strategy: { mode: 'fallback' }, targets: [{ provider: 'anthropic', allowed_custom_hosts: [] }] } } });
    expect(inChild.status).toBe(400);
  });
});
