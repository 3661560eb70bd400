import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { api, expectError } from '../control-plane/identities-support.js';

/**
 * Class: endpoint moves of stored credentials in config trees. A saved config's new version or a deployment's
 * new inline config that sends a credential back masked keeps the stored secret; it must then keep the secret's
 * endpoint too (custom_host at any depth it flows to, an Azure resource, allowed_custom_hosts, the semantic
 * cache's embeddings host, the provider), or carry the credential again — as a virtual key's PATCH must
 * (stored-credential-endpoint.test.ts). Otherwise a key allowed to edit configs re-points a secret someone else
 * stored at a host it runs.
 */

let gateway: TestGateway;
let upstream: MockUpstream;
const OPENAI_SECRET = 'sk-openai-secret-stored-0a1b2c3d';
const AZURE_SECRET = 'azure-secret-stored-4e5f6a7b8c9d';

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** A fallback over: a semantic-cached leaf, a loadbalance node whose key its two children inherit, an Azure leaf. */
const original = () => ({
  strategy: { mode: 'fallback' },
  allowed_custom_hosts: ['https://allowed.example/a', 'https://allowed.example/b'],
  targets: [
    { provider: 'openai', api_key: OPENAI_SECRET, custom_host: 'https://one.example/v1', cache: { mode: 'semantic', embeddings: { custom_host: 'https://emb.example/v1' } } },
    { strategy: { mode: 'loadbalance' }, provider: 'openai', api_key: OPENAI_SECRET, custom_host: 'https://two.example/v1', targets: [{ weight: 1 }, { weight: 1, custom_host: 'https://two.example/v1/eu' }] },
    { provider: 'azure-openai', api_key: AZURE_SECRET, azure_resource_name: 'res-a', azure_deployment_id: 'gpt4o', azure_api_version: '2024-10-21' },
  ],
});

type Config = ReturnType<typeof original>;

/** Each move of a kept (masked) credential, and the param the refusal names. */
const moves: Array<[string, (config: Config) => void, string]> = [
  ['a nested loadbalance child’s custom_host', (c) => Object.assign(c.targets[1].targets![1], { custom_host: 'https://evil.example/v1' }), 'config.targets[1].targets[1].custom_host'],
  ['a new child inheriting the key', (c) => c.targets[1].targets!.push({ weight: 1, custom_host: 'https://evil.example/v1' }), 'config.targets[1].targets[2].custom_host'],
  ['the holder’s custom_host to another path of its host', (c) => Object.assign(c.targets[1], { custom_host: 'https://two.example/tenant-b' }), 'config.targets[1].custom_host'],
  ['the Azure resource', (c) => Object.assign(c.targets[2], { azure_resource_name: 'res-evil' }), 'config.targets[2].azure_resource_name'],
  ['a new allowed_custom_hosts entry', (c) => c.allowed_custom_hosts.push('https://evil.example'), 'config.allowed_custom_hosts'],
  ['the semantic cache’s embeddings host', (c) => Object.assign(c.targets[0].cache!.embeddings, { custom_host: 'https://evil.example/v1' }), 'config.targets[0].cache.embeddings.custom_host'],
  ['the provider', (c) => Object.assign(c.targets[0], { provider: 'groq' }), 'config.targets[0].provider'],
];

/** What a read showed, edited: the credentials stay masked, so the stored secrets are kept. */
function edited(readBack: unknown, edit: (config: Config) => void): Config {
  const config = structuredClone(readBack) as Config;
  edit(config);
  return config;
}

interface Resource {
  name: string;
  create(): Promise<{ id: string; read(): Promise<unknown> }>;
  update(id: string, config: unknown): ReturnType<typeof api>;
}

let serial = 0;
const resources: Resource[] = [
  {
    name: 'saved config (new version)',
    async create() {
      const created = await api<{ id: string; config: unknown }>(gateway, 'POST', '/v1/configs', { body: { name: `tree ${++serial}`, config: original() } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return { id: created.body.id, read: async () => (await api<{ config: unknown }>(gateway, 'GET', `/v1/configs/${created.body.id}`)).body.config };
    },
    update: (id, config) => api(gateway, 'PUT', `/v1/configs/${id}`, { body: { config } }),
  },
  {
    name: 'deployment (inline config, patched)',
    async create() {
      const slug = `tree-${++serial}`;
      const created = await api<{ id: string }>(gateway, 'POST', '/v1/deployments', { body: { name: slug, slug, type: 'production', config: original() } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return { id: created.body.id, read: async () => (await api<{ config: unknown }>(gateway, 'GET', `/v1/deployments/${created.body.id}`)).body.config };
    },
    update: (id, config) => api(gateway, 'PATCH', `/v1/deployments/${id}`, { body: { config } }),
  },
];

describe('endpoint moves of stored credentials in config trees (saved configs, deployments)', () => {
  for (const resource of resources) {
    it(`${resource.name}: refuses every move of a kept credential with stored_credential_endpoint_change, naming the field`, async () => {
      const { id, read } = await resource.create();
      const readBack = await read();
      expect(JSON.stringify(readBack)).not.toContain(OPENAI_SECRET);
      for (const [, edit, param] of moves) {
        expectError(await resource.update(id, edited(readBack, edit)), 400, 'stored_credential_endpoint_change', { param });
      }
      // Nothing was stored: the resource still reads as before.
      expect(await read()).toEqual(readBack);
    });

    it(`${resource.name}: narrowing needs nothing; the credential sent again, or a new target with its own key, may go anywhere`, async () => {
      const { id, read } = await resource.create();
      const readBack = await read();
      const narrowed = edited(readBack, (c) => {
        c.allowed_custom_hosts.pop();
        Object.assign(c.targets[1].targets![1], { custom_host: 'https://two.example/v1/eu/west' });
        delete (c.targets[0] as { custom_host?: string }).custom_host;
      });
      const reply = await resource.update(id, narrowed);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);

      const current = await read();
      const own = edited(current, (c) => c.targets.push({ provider: 'openai', api_key: 'sk-a-new-key-of-its-own-1234', custom_host: 'https://new.example/v1' } as never));
      const added = await resource.update(id, own);
      expect(added.status, JSON.stringify(added.body)).toBe(200);

      for (const [what, edit] of moves) {
        const again = edited(await read(), edit);
        again.targets[0].api_key = OPENAI_SECRET;
        again.targets[1].api_key = OPENAI_SECRET;
        again.targets[2].api_key = AZURE_SECRET;
        again.targets[3].api_key = 'sk-a-new-key-of-its-own-1234';
        const resent = await resource.update(id, again);
        expect(resent.status, `${what}: ${JSON.stringify(resent.body)}`).toBe(200);
      }
    });
  }
});

describe('mask round trip of a deployment’s inline config', () => {
  it('keeps a long stored credential when the config comes back as a read showed it (bare stars), and sends it upstream', async () => {
    const config = { provider: 'openai', api_key: OPENAI_SECRET, custom_host: upstream.url, override_params: { model: 'before-edit' } };
    const created = await api<{ id: string; config: Record<string, unknown> }>(gateway, 'POST', '/v1/deployments', { body: { name: 'round trip', slug: 'round-trip', type: 'production', config } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const edited = { ...created.body.config, override_params: { model: 'after-edit' } };
    expect((await api(gateway, 'PATCH', `/v1/deployments/${created.body.id}`, { body: { config: edited } })).status).toBe(200);
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'x-gw-deployment': 'round-trip' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const sent = upstream.requests.at(-1)!;
    expect((sent.json as { model: string }).model).toBe('after-edit');
    expect(sent.headers.authorization).toBe(`Bearer ${OPENAI_SECRET}`);
  });
});
