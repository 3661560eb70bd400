import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { migrateAllConfigSecrets } from '../../../shared/control-plane/configs/migrate-all.js';
import { ConfigRepository, savedConfigSource } from '../../../shared/store/config-repository.js';
import { secretStore } from '../../../shared/store/secrets/secret-store-factory.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { everyStoredItem } from '../../support/stored-items.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { api, expectError, newKey } from '../control-plane/identities-support.js';

/**
 * Saved-config credentials at rest and in read paths (issue #20): moved to the secret store on save, masked on
 * every read (configs:read key, JWT, list, versions), read back only by the gateway; plaintext configs saved
 * before are migrated on their first read. A sentinel scan of every table proves no credential stays behind.
 */
const JWT_SECRET = 'config-secrets-test-shared-secret-0123456789';
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started), { GW_JWT_SECRET: JWT_SECRET });

let sentinelCount = 0;
/** A credential no one else would write: if it shows up anywhere it was leaked. */
const sentinel = (label: string) => `SENTINEL${label}x${++sentinelCount}x${Date.now()}abcdWXYZ`;

interface SavedConfig {
  id: string;
  version: number;
  config: Record<string, unknown>;
}

function configWithCredentials(secrets: Record<string, string>) {
  return {
    strategy: { mode: 'fallback' },
    provider: 'openai',
    api_key: secrets.root,
    cache: { mode: 'simple', embeddings: { provider: 'openai', model: 'text-embedding-3-small', api_key: secrets.embeddings } },
    targets: [
      { provider: 'openai', custom_host: upstream.url, override_params: { model: 'gpt-4o-mini' } },
      { provider: 'bedrock', aws_access_key_id: 'AKIAEXAMPLE0000001', aws_secret_access_key: secrets.aws, aws_session_token: secrets.session, aws_region: 'us-east-1' },
      { provider: 'vertex-ai', vertex_project_id: 'my-project-123', vertex_region: 'us-central1', vertex_service_account_json: `{"private_key":"${secrets.vertex}"}` },
    ],
  };
}

async function jwtFor(workspaceId: string): Promise<string> {
  return new SignJWT({ sub: 'reader', organisation_id: gateway.bootstrap.organisationId, workspace_id: workspaceId, scope: 'read list' })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(JWT_SECRET));
}

async function chatWith(configId: string): Promise<Response> {
  return gateway.post('/v1/chat/completions', { messages: [{ role: 'user', content: `hi ${Date.now()}` }] }, { 'x-gw-config': configId });
}

describe('saved-config credentials', () => {
  it('never stay in a table and are masked for every reader, while the gateway still uses them', async () => {
    const secrets = { root: sentinel('root'), embeddings: sentinel('emb'), aws: sentinel('aws'), session: sentinel('tok'), vertex: sentinel('sa') };
    const created = await api<SavedConfig>(gateway, 'POST', '/v1/configs', { body: { name: 'with credentials', config: configWithCredentials(secrets) } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id;
    const updated = await api<SavedConfig>(gateway, 'PUT', `/v1/configs/${id}`, { body: { config: configWithCredentials(secrets) } });
    expect(updated.status).toBe(200);

    const stored = await everyStoredItem();
    for (const value of Object.values(secrets)) expect(stored).not.toContain(value);

    const reader = await newKey(gateway, { scopes: ['configs:read'] });
    const bearer = await jwtFor(gateway.bootstrap.workspaceId);
    const reads = [
      await api<SavedConfig>(gateway, 'GET', `/v1/configs/${id}`, { key: reader.key }),
      await api<SavedConfig>(gateway, 'GET', `/v1/configs/${id}?version=1`, { key: reader.key }),
      await api(gateway, 'GET', '/v1/configs?limit=100', { key: reader.key }),
      await api(gateway, 'GET', `/v1/configs/${id}/versions`, { key: reader.key }),
      await api<SavedConfig>(gateway, 'GET', `/v1/configs/${id}`, { bearer }),
      await api(gateway, 'GET', `/v1/configs/${id}/versions`, { bearer }),
      created,
      updated,
    ];
    for (const reply of reads) {
      expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
      const text = JSON.stringify(reply.body);
      for (const value of Object.values(secrets)) expect(text).not.toContain(value);
      expect(text).not.toContain('secret_ref');
      expect(text).not.toContain('SENTINEL');
    }
    const shown = (reads[0].body as SavedConfig).config as ReturnType<typeof configWithCredentials>;
    expect(shown.api_key).toBe(`********${secrets.root.slice(-4)}`);
    expect(shown.cache.embeddings.api_key).toBe(`********${secrets.embeddings.slice(-4)}`);
    expect(shown.targets[1].aws_secret_access_key).toMatch(/^\*{8}/);
    expect(shown.targets[2].vertex_service_account_json).toBe('********');
    expect(shown.targets[0].override_params).toEqual({ model: 'gpt-4o-mini' });

    const before = upstream.requests.length;
    const response = await chatWith(id);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(upstream.requests.slice(before).map((request) => request.headers.authorization)).toContain(`Bearer ${secrets.root}`);
  });

  it('keeps a credential sent back masked (read → edit → save), and takes a new one when given', async () => {
    const original = sentinel('keep');
    const config = { provider: 'openai', api_key: original, custom_host: upstream.url, override_params: { model: 'gpt-4o-mini' } };
    const created = await api<SavedConfig>(gateway, 'POST', '/v1/configs', { body: { name: 'round trip', config } });
    const readBack = (await api<SavedConfig>(gateway, 'GET', `/v1/configs/${created.body.id}`)).body.config;
    const edited = await api<SavedConfig>(gateway, 'PUT', `/v1/configs/${created.body.id}`, { body: { config: { ...readBack, override_params: { model: 'gpt-4o' } } } });
    expect(edited.body.version).toBe(2);
    // Pinned versions: the gateway keeps "latest" for up to 30 s.
    let before = upstream.requests.length;
    expect((await chatWith(`${created.body.id}@2`)).status).toBe(200);
    expect(upstream.requests.slice(before).at(-1)?.headers.authorization).toBe(`Bearer ${original}`);

    const replacement = sentinel('new');
    await api(gateway, 'PUT', `/v1/configs/${created.body.id}`, { body: { config: { ...config, api_key: replacement } } });
    before = upstream.requests.length;
    expect((await chatWith(`${created.body.id}@3`)).status).toBe(200);
    expect(upstream.requests.slice(before).at(-1)?.headers.authorization).toBe(`Bearer ${replacement}`);
    // A pinned old version still carries its own credential.
    before = upstream.requests.length;
    expect((await chatWith(`${created.body.id}@1`)).status).toBe(200);
    expect(upstream.requests.slice(before).at(-1)?.headers.authorization).toBe(`Bearer ${original}`);
  });

  it('migrates a config saved in plaintext before on its first control-plane read', async () => {
    const legacy = sentinel('legacy');
    const repository = new ConfigRepository();
    const id = `cfg-legacy${sentinelCount}`;
    const config = { provider: 'openai', api_key: legacy, custom_host: upstream.url, override_params: { model: 'gpt-4o-mini' } };
    await repository.create({ id, workspace_id: gateway.bootstrap.workspaceId, name: 'legacy', config, created_at: new Date().toISOString() });
    expect(await everyStoredItem()).toContain(legacy);
    // The gateway can use it before the migration...
    let before = upstream.requests.length;
    expect((await chatWith(id)).status).toBe(200);
    expect(upstream.requests.slice(before).at(-1)?.headers.authorization).toBe(`Bearer ${legacy}`);
    // ...the first read migrates it, latest and version items alike...
    const [latest, versions] = await Promise.all([api<SavedConfig>(gateway, 'GET', `/v1/configs/${id}`), api(gateway, 'GET', `/v1/configs/${id}/versions`)]);
    expect(latest.body.config.api_key).toBe(`********${legacy.slice(-4)}`);
    expect(JSON.stringify(versions.body)).not.toContain(legacy);
    expect(await everyStoredItem()).not.toContain(legacy);
    // ...and a new gateway process (no cached config) still sends the credential, now from the secret store.
    const loaded = await savedConfigSource().load(gateway.bootstrap.workspaceId, id);
    expect((loaded?.config as { api_key: string }).api_key).toBe(legacy);
    before = upstream.requests.length;
    expect((await chatWith(id)).status).toBe(200);
    expect(upstream.requests.slice(before).at(-1)?.headers.authorization).toBe(`Bearer ${legacy}`);
  });

  it('migrates every plaintext config at once with the one-off job', async () => {
    const repository = new ConfigRepository();
    const legacy = [sentinel('batch'), sentinel('batch')];
    for (const [index, value] of legacy.entries()) {
      const id = `cfg-batch${sentinelCount}x${index}`;
      await repository.create({ id, workspace_id: gateway.bootstrap.workspaceId, name: 'legacy', config: { provider: 'openai', api_key: value }, created_at: new Date().toISOString() });
    }
    expect(await everyStoredItem()).toContain(legacy[0]);
    const { configs } = await migrateAllConfigSecrets();
    expect(configs).toBeGreaterThanOrEqual(2);
    const stored = await everyStoredItem();
    for (const value of legacy) expect(stored).not.toContain(value);
  });

  it('deletes the secrets of every version with the config', async () => {
    const created = await api<SavedConfig>(gateway, 'POST', '/v1/configs', { body: { name: 'to delete', config: { provider: 'openai', api_key: sentinel('del') } } });
    await api(gateway, 'PUT', `/v1/configs/${created.body.id}`, { body: { config: { provider: 'openai', api_key: sentinel('del2') } } });
    const repository = new ConfigRepository();
    const names = (await repository.listVersions(gateway.bootstrap.workspaceId, created.body.id)).map((version) => version.secret_ref!.name);
    expect(names).toHaveLength(2);
    for (const name of names) expect(await secretStore().get(name)).toEqual(expect.any(String));
    expect((await api(gateway, 'DELETE', `/v1/configs/${created.body.id}`)).status).toBe(200);
    for (const name of names) expect(await secretStore().get(name)).toBeUndefined();
  });
});

describe('credentials with control characters', () => {
  it.each([
    ['a CR/LF in a root api_key', { provider: 'openai', api_key: 'sk-abc\r\nx-evil: 1' }, 'config.api_key'],
    ['a NUL in a nested AWS secret', { strategy: { mode: 'fallback' }, targets: [{ provider: 'bedrock', aws_access_key_id: 'AKIAEXAMPLE0000001', aws_secret_access_key: 'abc\u0000def', aws_region: 'us-east-1' }] }, 'config.targets[0].aws_secret_access_key'],
  ])('refuses %s with 400 when saved', async (_label, config, param) => {
    expectError(await api(gateway, 'POST', '/v1/configs', { body: { name: 'bad', config } }), 400, 'invalid_credential', { param });
  });

  it('refuses them with 400 in an inline config, before any upstream call', async () => {
    // Node's HTTP clients cannot even send a control character in a header; readRequestOptions' own check of
    // Authorization and x-gw-aws-* (for events from API Gateway) is covered in test/unit/security/credentials.test.ts.
    const before = upstream.requests.length;
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
    const inline = await gateway.post('/v1/chat/completions', body, { 'x-gw-config': JSON.stringify({ provider: 'openai', api_key: 'sk-a\nb', custom_host: upstream.url }) });
    expect(inline.status).toBe(400);
    expect(((await inline.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'invalid_credential', param: 'config.api_key' });
    expect(upstream.requests.length).toBe(before);
  });

  it('refuses them with 400 when a virtual key is stored', async () => {
    const reply = await api(gateway, 'POST', '/v1/virtual-keys', { body: { name: 'bad', provider: 'openai', credential: 'sk-abc\r\ndef' } });
    expectError(reply, 400, 'invalid_request', { param: 'credential' });
  });

  it('refuses credentials no header can carry (emoji, non-ASCII) at creation with 400, not a 502 on every call', async () => {
    const stored: Array<[string, Record<string, unknown>, string]> = [
      ['/v1/virtual-keys', { name: 'emoji', provider: 'openai', credential: 'sk-abc🔑def' }, 'credential'],
      ['/v1/virtual-keys', { name: 'latin', provider: 'openai', credential: 'sk-clé-secrète' }, 'credential'],
      ['/v1/integrations', { name: 'emoji', slug: 'emoji-int', provider: 'openai', credential: 'sk-🔑' }, 'credential'],
      ['/v1/mcp-servers', { name: 'emoji', url: 'https://mcp.example.com/mcp', auth: { type: 'bearer', token: 'tok-🔑' } }, 'auth.token'],
    ];
    for (const [path, body, param] of stored) expectError(await api(gateway, 'POST', path, { body }), 400, 'invalid_request', { param });
    expectError(await api(gateway, 'POST', '/v1/configs', { body: { name: 'emoji', config: { provider: 'openai', api_key: 'sk-🔑' } } }), 400, 'invalid_credential', { param: 'config.api_key' });
    const before = upstream.requests.length;
    const inline = await gateway.post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { 'x-gw-config': asciiJson({ provider: 'openai', api_key: 'sk-🔑', custom_host: upstream.url }) });
    expect(inline.status).toBe(400);
    expect(upstream.requests.length).toBe(before);
  });
});

describe('credentials no header can carry, on every resource that stores one, at creation and on update', () => {
  it('refuses them in a deployment’s inline config (created or patched), a saved config’s new version, and a virtual key’s, integration’s or MCP server’s update', async () => {
    const emoji = 'sk-🔑';
    const config = (api_key: string) => ({ provider: 'openai', api_key });
    expectError(await api(gateway, 'POST', '/v1/deployments', { body: { name: 'emoji', slug: 'emoji-deployment', type: 'production', config: config(emoji) } }), 400, 'invalid_credential', { param: 'config.api_key' });
    const deployment = await api<{ id: string }>(gateway, 'POST', '/v1/deployments', { body: { name: 'fine', slug: 'fine-deployment', type: 'production', config: config('sk-fine') } });
    expect(deployment.status, JSON.stringify(deployment.body)).toBe(201);
    expectError(await api(gateway, 'PATCH', `/v1/deployments/${deployment.body.id}`, { body: { config: { strategy: { mode: 'fallback' }, targets: [config('sk-fine'), config(emoji)] } } }), 400, 'invalid_credential', { param: 'config.targets[1].api_key' });

    const saved = await api<{ id: string }>(gateway, 'POST', '/v1/configs', { body: { name: 'fine', config: config('sk-fine') } });
    expectError(await api(gateway, 'PUT', `/v1/configs/${saved.body.id}`, { body: { config: config(emoji) } }), 400, 'invalid_credential', { param: 'config.api_key' });

    const created: Array<[string, Record<string, unknown>, Record<string, unknown>, string]> = [
      ['/v1/virtual-keys', { name: 'fine', provider: 'openai', credential: 'sk-fine' }, { credential: emoji }, 'credential'],
      ['/v1/integrations', { name: 'fine', slug: 'fine-int', provider: 'openai', credential: 'sk-fine' }, { credential: emoji }, 'credential'],
      ['/v1/mcp-servers', { name: 'fine', url: 'https://mcp.example.com/mcp', auth: { type: 'bearer', token: 'tok' } }, { auth: { type: 'header', name: 'x-key', value: emoji } }, 'auth.value'],
    ];
    for (const [path, body, update, param] of created) {
      const reply = await api<{ id: string }>(gateway, 'POST', path, { body });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expectError(await api(gateway, 'PATCH', `${path}/${reply.body.id}`, { body: update }), 400, 'invalid_request', { param });
    }
  });
});

/** JSON with every non-ASCII character escaped (`\ud83d…`): how a client puts such a value in a header at all. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
