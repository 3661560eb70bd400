import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../../../infra/local/server.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream, type RecordedRequest } from '../../support/mock-upstream.js';

/**
 * gw's own API key never goes upstream, the stored half of the class (docs/security.md, "gw's key is never a
 * provider key"): a gw key — of this workspace, of another, or an admin key chosen without gw's prefix — given as
 * the credential a virtual key, saved config, deployment, integration or MCP server stores (provider-specific
 * fields included) would be sent to the provider on every call. Each is refused at creation and on update with
 * 400 `gateway_key_as_credential` naming the field, never echoing the value, and nothing is stored. An inline
 * `x-gw-config` is never stored, so its `api_key` is dropped at send time instead.
 * Class: credential leak of gw keys through stored and config credentials.
 */

// A chosen admin key without gw's `gwk_` prefix: only a lookup by hash tells it is gw's.
const PLAIN_ADMIN_KEY = 'plain-admin-key-4f0d2a91c7e8b356';
let gateway: LocalServer;
let openai: MockUpstream;
let ownKey: string;
let otherWorkspaceKey: string;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown>; text: string }> {
  const response = await fetch(`${gateway.url}${path}`, { method, headers: { 'content-type': 'application/json', 'x-gw-api-key': PLAIN_ADMIN_KEY }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, json: JSON.parse(text) as Record<string, unknown>, text };
}

async function created<T>(path: string, body: unknown): Promise<T> {
  const { status, json, text } = await call('POST', path, body);
  expect(status, text).toBeLessThan(300);
  return json as T;
}

beforeAll(async () => {
  openai = await startMockUpstream(openAIMockHandler());
  gateway = await startLocalServer({ port: 0, dataDir: ':memory:', bootstrapApiKey: PLAIN_ADMIN_KEY, env: { POWERTOOLS_LOG_LEVEL: 'SILENT' } });
  ownKey = (await created<{ key: string }>('/v1/api-keys', { name: 'own', scopes: ['completions:write'] })).key;
  const other = await created<{ id: string }>('/v1/workspaces', { name: 'elsewhere' });
  otherWorkspaceKey = (await created<{ key: string }>('/v1/api-keys', { name: 'other', workspace_id: other.id, scopes: ['completions:write'] })).key;
});
afterAll(async () => {
  await gateway?.close();
  await openai?.close();
});

const GW_KEYS: Array<{ name: string; key: () => string }> = [
  { name: 'this workspace’s key', key: () => ownKey },
  { name: 'another workspace’s key', key: () => otherWorkspaceKey },
  { name: 'an admin key without gw’s prefix', key: () => PLAIN_ADMIN_KEY },
];

function expectRefused(answer: { status: number; json: Record<string, unknown>; text: string }, param: string, key: string) {
  expect(answer.status, answer.text).toBe(400);
  const error = answer.json.error as Record<string, unknown>;
  expect(error.code).toBe('gateway_key_as_credential');
  expect(error.param).toBe(param);
  expect(answer.text).not.toContain(key);
}

describe('a gw key is refused wherever gw would store it as a provider credential', () => {
  for (const gw of GW_KEYS) {
    it(`virtual keys: ${gw.name} as credential or AWS secret, at creation and on update`, async () => {
      const before = ((await call('GET', '/v1/virtual-keys')).json.data as unknown[]).length;
      expectRefused(await call('POST', '/v1/virtual-keys', { provider: 'openai', credential: gw.key() }), 'credential', gw.key());
      expectRefused(await call('POST', '/v1/virtual-keys', { provider: 'bedrock', aws: { access_key_id: 'AKIAIOSFODNN7EXAMPLE', secret_access_key: gw.key(), region: 'us-east-1' } }), 'aws.secret_access_key', gw.key());
      expectRefused(await call('POST', '/v1/virtual-keys', { provider: 'bedrock', aws: { access_key_id: 'AKIAIOSFODNN7EXAMPLE', secret_access_key: 'wJalrXUtnFEMI/K7MDENG', session_token: gw.key(), region: 'us-east-1' } }), 'aws.session_token', gw.key());
      expect(((await call('GET', '/v1/virtual-keys')).json.data as unknown[]).length).toBe(before);
      const key = await created<{ id: string }>('/v1/virtual-keys', { provider: 'openai', credential: 'sk-real-provider-key-0001' });
      expectRefused(await call('PATCH', `/v1/virtual-keys/${key.id}`, { credential: gw.key() }), 'credential', gw.key());
    });

    it(`saved configs: ${gw.name} as a target's api_key at any depth, at creation and on update`, async () => {
      expectRefused(await call('POST', '/v1/configs', { name: 'leaky', config: { provider: 'openai', api_key: gw.key() } }), 'config.api_key', gw.key());
      const nested = { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'sk-real-provider-key-0002' }, { provider: 'openai', api_key: gw.key() }] };
      expectRefused(await call('POST', '/v1/configs', { name: 'leaky', config: nested }), 'config.targets[1].api_key', gw.key());
      const config = await created<{ id: string }>('/v1/configs', { name: 'fine', config: { provider: 'openai', api_key: 'sk-real-provider-key-0003' } });
      expectRefused(await call('PUT', `/v1/configs/${config.id}`, { config: { provider: 'openai', api_key: gw.key() } }), 'config.api_key', gw.key());
    });

    it(`deployments: ${gw.name} in an inline config's credential fields`, async () => {
      expectRefused(await call('POST', '/v1/deployments', { name: 'leaky', type: 'production', config: { provider: 'openai', api_key: gw.key() } }), 'config.api_key', gw.key());
      const bedrock = { provider: 'bedrock', aws_access_key_id: 'AKIAIOSFODNN7EXAMPLE', aws_secret_access_key: gw.key(), aws_region: 'us-east-1' };
      expectRefused(await call('POST', '/v1/deployments', { name: 'leaky', type: 'production', config: bedrock }), 'config.aws_secret_access_key', gw.key());
    });

    it(`integrations and MCP servers: ${gw.name} as the stored credential`, async () => {
      expectRefused(await call('POST', '/v1/integrations', { name: 'leaky', provider: 'openai', credential: gw.key() }), 'credential', gw.key());
      const integration = await created<{ id: string }>('/v1/integrations', { name: `fine ${Math.random()}`, provider: 'openai', credential: 'sk-real-provider-key-0004' });
      expectRefused(await call('PATCH', `/v1/integrations/${integration.id}`, { credential: gw.key() }), 'credential', gw.key());
      expectRefused(await call('POST', '/v1/mcp-servers', { name: 'leaky', url: 'https://mcp.example.com/mcp', auth: { type: 'bearer', token: gw.key() } }), 'auth.token', gw.key());
      expectRefused(await call('POST', '/v1/mcp-servers', { name: 'leaky', url: 'https://mcp.example.com/mcp', auth: { type: 'header', name: 'x-api-key', value: gw.key() } }), 'auth.value', gw.key());
    });
  }
});

describe('an inline config’s gw key is dropped before the call', () => {
  function headerValues(request: RecordedRequest): string {
    return Object.values(request.headers).flat().join('\n');
  }

  async function chat(config: unknown, extra: Record<string, string> = {}): Promise<RecordedRequest> {
    const before = openai.requests.length;
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': ownKey, 'x-gw-config': JSON.stringify(config), ...extra },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(openai.requests.length).toBe(before + 1);
    return openai.requests.at(-1)!;
  }

  for (const gw of GW_KEYS) {
    it(`${gw.name} as api_key, at the top and in a target, reaches no provider`, async () => {
      const top = await chat({ provider: 'openai', custom_host: `${openai.url}/v1`, api_key: gw.key() });
      expect(headerValues(top)).not.toContain(gw.key());
      const nested = await chat({ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', custom_host: `${openai.url}/v1`, api_key: gw.key() }] });
      expect(headerValues(nested)).not.toContain(gw.key());
    });
  }

  it('a dropped api_key leaves the request’s own provider key in force, and a real api_key is still sent', async () => {
    const inherited = await chat({ provider: 'openai', custom_host: `${openai.url}/v1`, api_key: ownKey }, { 'x-gw-provider': 'openai', authorization: 'Bearer sk-real-provider-key-0005' });
    expect(inherited.headers.authorization).toBe('Bearer sk-real-provider-key-0005');
    const real = await chat({ provider: 'openai', custom_host: `${openai.url}/v1`, api_key: 'sk-real-provider-key-0006' });
    expect(real.headers.authorization).toBe('Bearer sk-real-provider-key-0006');
  });
});
