import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { api, expectError, type Reply } from '../control-plane/identities-support.js';

/**
 * An Azure resource name picks the host (`https://{resource}.openai.azure.com`, each customer's own), so a
 * caller's x-gw-azure-resource-name (or an inline config's azure_resource_name) must not re-point a stored Azure
 * key at another resource: the same rule and the same 400 as x-gw-custom-host (docs/security.md, "Stored
 * credentials and hosts"). The refusal comes before anything is sent; the positive cases run against a mock.
 */

let gateway: TestGateway;
let mock: MockUpstream;

beforeAll(async () => {
  mock = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway({ GW_VIRTUAL_KEY_CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  await gateway?.close();
  await mock?.close();
});

async function created<Body extends { id: string }>(path: string, body: Record<string, unknown>): Promise<Body> {
  const reply = await api<Body>(gateway, 'POST', path, { body });
  expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
  return reply.body;
}

async function post(path: string, body: unknown, headers: Record<string, string>): Promise<Reply<Record<string, unknown>>> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

const ENDPOINTS = [
  { name: 'chat', path: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] } },
  { name: 'responses', path: '/v1/responses', body: { model: 'gpt-4o-mini', input: 'Hi' } },
  { name: 'embeddings', path: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: 'Hi' } },
];

/** Every way to hold a stored Azure key for resource `home-res`, with the resource name the caller picks. */
async function storedAzureSources(): Promise<Array<{ name: string; headers: Record<string, string> }>> {
  const suffix = randomUUID().slice(0, 8);
  const azure = { resource_name: 'home-res', deployment_id: 'dep', api_version: '2024-10-21' };
  const virtualKey = await created('/v1/virtual-keys', { provider: 'azure-openai', credential: 'azure-vk-secret-1234', azure });
  // A config inherits the request's x-gw-azure-* headers when the request names the same provider (x-gw-provider);
  // one that names another provider starts from nothing, and the header's resource name never reaches it.
  const storedConfig = { provider: 'azure-openai', api_key: 'azure-cfg-secret-1234', azure_deployment_id: 'dep' };
  const saved = await created('/v1/configs', { name: `azure ${suffix}`, config: storedConfig });
  const integration = await created<{ id: string; slug: string }>('/v1/integrations', {
    name: `azure ${suffix}`,
    slug: `azure-${suffix}`,
    provider: 'azure-openai',
    credential: 'azure-int-secret-1234',
    shared_with_workspaces: 'all',
  });
  await created('/v1/providers', { integration_id: integration.slug, slug: `az-${suffix}` });
  const deployment = await created<{ id: string; slug: string }>('/v1/deployments', { name: `azure ${suffix}`, slug: `az-dep-${suffix}`, type: 'production', config: storedConfig });
  const elsewhere = { 'x-gw-azure-resource-name': 'attacker-res', 'x-gw-azure-deployment-id': 'dep' };
  const azureProvider = { 'x-gw-provider': 'azure-openai' };
  return [
    { name: 'virtual key', headers: { 'x-gw-virtual-key': virtualKey.id, ...elsewhere } },
    { name: 'saved config', headers: { 'x-gw-config': saved.id, ...azureProvider, ...elsewhere } },
    { name: 'integration (@provider)', headers: { 'x-gw-provider': `@az-${suffix}`, ...elsewhere } },
    { name: 'deployment', headers: { 'x-gw-deployment': deployment.slug, ...azureProvider, ...elsewhere } },
    { name: 'virtual key in an inline config', headers: { 'x-gw-config': JSON.stringify({ virtual_key: virtualKey.id, azure_resource_name: 'attacker-res' }) } },
  ];
}

describe('a stored Azure key with a resource name the caller picks', () => {
  it('is refused on every entry point for every credential source, naming the resource host and the header', async () => {
    const sources = await storedAzureSources();
    for (const endpoint of ENDPOINTS) {
      for (const source of sources) {
        const reply = await post(endpoint.path, endpoint.body, source.headers);
        const code = (reply.body.error as { code?: string } | undefined)?.code;
        expect({ endpoint: endpoint.name, source: source.name, status: reply.status, code }, JSON.stringify(reply.body)).toEqual({
          endpoint: endpoint.name,
          source: source.name,
          status: 400,
          code: 'stored_credential_custom_host',
        });
        expect(JSON.stringify(reply.body)).toContain('https://attacker-res.openai.azure.com');
      }
    }
    const reply = await post('/v1/chat/completions', ENDPOINTS[0].body, sources[0].headers);
    expectError(reply, 400, 'stored_credential_custom_host', { param: 'x-gw-azure-resource-name', message: /virtual key "[^"]+".*x-gw-azure-resource-name.*https:\/\/attacker-res\.openai\.azure\.com/ });
  });

  it('is refused when a saved config names another resource for a virtual key', async () => {
    const key = await created<{ id: string }>('/v1/virtual-keys', { provider: 'azure-openai', credential: 'azure-vk-secret-5678', azure: { resource_name: 'home-res', deployment_id: 'dep' } });
    const saved = await created('/v1/configs', { name: `vk other ${randomUUID().slice(0, 6)}`, config: { virtual_key: key.id, azure_resource_name: 'attacker-res' } });
    expectError(await post('/v1/chat/completions', ENDPOINTS[0].body, { 'x-gw-config': saved.id }), 400, 'stored_credential_custom_host', { message: /saved config "[^"]+" names the host https:\/\/attacker-res/ });
  });

  it('changes nothing when the key stores a custom host: the resource name no longer picks the host', async () => {
    const key = await created<{ id: string }>('/v1/virtual-keys', { provider: 'azure-openai', credential: 'azure-vk-secret-9012', custom_host: mock.url, azure: { resource_name: 'home-res', deployment_id: 'dep' } });
    const before = mock.requests.length;
    const reply = await post('/v1/chat/completions', ENDPOINTS[0].body, { 'x-gw-virtual-key': key.id, 'x-gw-azure-resource-name': 'attacker-res' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(mock.requests.length).toBe(before + 1);
    expect(mock.requests.at(-1)!.headers['api-key']).toBe('azure-vk-secret-9012');
  });

  it('lets the caller’s own Azure key go to any resource', async () => {
    const before = mock.requests.length;
    const reply = await post('/v1/chat/completions', ENDPOINTS[0].body, {
      'x-gw-provider': 'azure-openai',
      authorization: 'Bearer caller-azure-key-3456',
      'x-gw-azure-resource-name': 'any-res',
      'x-gw-azure-deployment-id': 'dep',
      'x-gw-custom-host': mock.url,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(mock.requests.length).toBe(before + 1);
  });

  it('takes resource names only, on every entry point: the name becomes part of a hostname', async () => {
    for (const endpoint of ENDPOINTS) {
      const reply = await post(endpoint.path, endpoint.body, {
        'x-gw-provider': 'azure-openai',
        authorization: 'Bearer caller-azure-key-3456',
        'x-gw-azure-resource-name': 'evil.example.com',
        'x-gw-azure-deployment-id': 'dep',
      });
      expectError(reply, 400, 'invalid_azure_resource', { param: 'x-gw-azure-resource-name' });
    }
  });
});
