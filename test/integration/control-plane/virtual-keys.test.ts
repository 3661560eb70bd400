import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VirtualKeyView } from '../../../shared/control-plane/virtual-keys/schemas.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { allPages, api, expectError, newKey, newWorkspace, otherOrganisation, type Page, type Reply } from './identities-support.js';

const SENTINEL = 'sk-vk-sentinel-3c9d81f0a2';
const ROTATED = 'sk-vk-rotated-sentinel-77e1b5';

let gateway: TestGateway;
let otherWorkspaceId: string;
let otherWorkspaceWriter: string;
let readOnly: string;
let noVirtualKeyScope: string;
let otherOrgAdmin: string;
const replies: Array<Reply<unknown>> = [];

/** Every reply of this file is kept, so the last test can check none of them ever carried a credential. */
async function call<Body = VirtualKeyView>(method: string, path: string, options: Parameters<typeof api>[3] = {}): Promise<Reply<Body>> {
  const reply = await api<Body>(gateway, method, path, options);
  replies.push(reply);
  return reply;
}

const create = (body: Record<string, unknown>, key?: string) => call('POST', '/v1/virtual-keys', { body, key });

beforeAll(async () => {
  gateway = await startTestGateway();
  const other = await newWorkspace(gateway);
  otherWorkspaceId = other.id;
  otherWorkspaceWriter = (await newKey(gateway, { workspace_id: other.id, scopes: ['virtual_keys:read', 'virtual_keys:write'] })).key;
  readOnly = (await newKey(gateway, { scopes: ['virtual_keys:read'] })).key;
  noVirtualKeyScope = (await newKey(gateway, { scopes: ['prompts:read'] })).key;
  otherOrgAdmin = (await otherOrganisation()).adminKey;
});
afterAll(async () => {
  await gateway?.close();
});

describe('POST /v1/virtual-keys', () => {
  it('creates a key: 201 with metadata and the names of the stored secrets, never the credential', async () => {
    const reply = await create({ name: 'prod openai', provider: 'openai', credential: SENTINEL });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      object: 'virtual_key',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      workspace_id: gateway.bootstrap.workspaceId,
      name: 'prod openai',
      provider: 'openai',
      allowed_custom_hosts: [],
      stored_secrets: ['credential'],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(JSON.stringify(reply.body)).not.toContain(SENTINEL);
  });

  it('stores the canonical provider slug for an alias and names the key after it by default', async () => {
    const reply = await create({ provider: 'Mistral', credential: SENTINEL });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ provider: 'mistral-ai', name: 'mistral-ai key' });
  });

  it('keeps non-secret provider settings and reports secret ones only by name', async () => {
    const azure = await create({
      provider: 'azure-openai',
      credential: SENTINEL,
      azure: { resource_name: 'my-resource', deployment_id: 'gpt4o-prod', api_version: '2024-10-21' },
    });
    expect(azure.status).toBe(201);
    expect(azure.body.azure).toEqual({ resource_name: 'my-resource', deployment_id: 'gpt4o-prod', api_version: '2024-10-21' });

    const serviceAccount = { type: 'service_account', client_email: 'gw@example.iam.gserviceaccount.com', private_key: `-----BEGIN PRIVATE KEY-----\n${SENTINEL}\n-----END PRIVATE KEY-----\n` };
    const vertex = await create({ provider: 'vertex-ai', vertex: { project_id: 'my-project-1', region: 'us-central1', service_account_json: serviceAccount } });
    expect(vertex.status).toBe(201);
    expect(vertex.body.vertex).toEqual({ project_id: 'my-project-1', region: 'us-central1' });
    expect(vertex.body.stored_secrets).toEqual(['vertex.service_account_json']);

    const bedrock = await create({ provider: 'cloudc', aws: { access_key_id: 'AKIAIOSFODNN7EXAMPLE', secret_access_key: SENTINEL, region: 'eu-west-1' } });
    expect(bedrock.status).toBe(201);
    expect(bedrock.body).toMatchObject({ provider: 'bedrock', aws: { region: 'eu-west-1' }, stored_secrets: ['aws.access_key_id', 'aws.secret_access_key'] });
    for (const reply of [azure, vertex, bedrock]) expect(JSON.stringify(reply.body)).not.toContain(SENTINEL);
  });

  it('refuses each invalid body with a 400 naming the field', async () => {
    expectError(await create({ credential: SENTINEL }), 400, 'invalid_request', { param: 'provider' });
    expectError(await create({ provider: 'no-such-provider', credential: SENTINEL }), 400, 'unknown_provider', { param: 'provider', message: /valid providers: .*openai/ });
    expectError(await create({ provider: 'openai' }), 400, 'missing_credential', { param: 'credential' });
    expectError(await create({ provider: 'openai', credential: 42 }), 400, 'invalid_request', { param: 'credential' });
    expectError(await create({ provider: 'openai', credential: '' }), 400, 'invalid_request', { param: 'credential' });
    expectError(await create({ provider: 'openai', credential: SENTINEL, api_key: 'x' }), 400, 'invalid_request', { message: /api_key/ });
    expectError(await create({ provider: 'openai', credential: SENTINEL, azure: { deployment_id: 'd' } }), 400, 'settings_provider_mismatch', { param: 'azure' });
    expectError(await create({ provider: 'azure-openai', credential: SENTINEL, azure: { resource_name: 'bad name!' } }), 400, 'invalid_request', { param: 'azure.resource_name' });
    expectError(await create({ provider: 'bedrock', aws: { access_key_id: 'AKIAIOSFODNN7EXAMPLE', region: 'us-east-1' } }), 400, 'incomplete_aws_credentials', { param: 'aws.secret_access_key' });
    expectError(await create({ provider: 'bedrock', aws: { secret_access_key: SENTINEL, region: 'us-east-1' } }), 400, 'incomplete_aws_credentials');
    expectError(await create({ provider: 'bedrock', credential: SENTINEL, aws: { region: 'mars-1' } }), 400, 'invalid_request', { param: 'aws.region' });
    expectError(await create({ provider: 'vertex-ai', vertex: { service_account_json: `{"private_key":"${SENTINEL}"` } }), 400, 'invalid_service_account', { param: 'vertex.service_account_json' });
    expectError(await create({ provider: 'vertex-ai', vertex: { service_account_json: { private_key: SENTINEL } } }), 400, 'invalid_service_account', { param: 'vertex.service_account_json' });
    expectError(await create({ provider: 'openai', credential: SENTINEL, custom_host: 'http://169.254.169.254/latest' }), 400, 'custom_host_not_allowed', { param: 'custom_host' });
    expectError(await create({ provider: 'openai', credential: SENTINEL, custom_host: 'ftp://example.com' }), 400, 'invalid_request', { param: 'custom_host' });
    expectError(await create({ provider: 'openai', credential: SENTINEL, name: 'x'.repeat(256) }), 400, 'invalid_request', { param: 'name' });
  });

  it('reports a body that is not JSON without quoting it (it holds a credential)', async () => {
    const reply = await call('POST', '/v1/virtual-keys', { body: `{"provider":"openai","credential":"${SENTINEL}"` });
    expectError(reply, 400, 'invalid_json', { message: 'The request body is not valid JSON' });
  });
});

describe('reading, updating and deleting', () => {
  it('gets, updates (rotation, settings, removal with null) and deletes a key; each change is audited', async () => {
    const created = await create({ name: 'rotating', provider: 'openai', credential: SENTINEL, custom_host: 'https://llm.example.com/v1' });
    const id = created.body.id;

    const read = await call('GET', `/v1/virtual-keys/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const renamed = await call('PATCH', `/v1/virtual-keys/${id}`, { body: { name: 'rotated', credential: ROTATED } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id, name: 'rotated', provider: 'openai', custom_host: 'https://llm.example.com/v1', stored_secrets: ['credential'] });
    expect(Date.parse(renamed.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at));

    const noHost = await call('PATCH', `/v1/virtual-keys/${id}`, { body: { custom_host: null } });
    expect(noHost.status).toBe(200);
    expect(noHost.body.custom_host).toBeUndefined();

    const deleted = await call<{ object: string; id: string; deleted: boolean }>('DELETE', `/v1/virtual-keys/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'virtual_key', id, deleted: true });
    expectError(await call('GET', `/v1/virtual-keys/${id}`), 404, 'not_found');
    expectError(await call('DELETE', `/v1/virtual-keys/${id}`), 404, 'not_found');

    const audit = await call<Page<{ action: string; outcome: string; details: Record<string, unknown> }>>('GET', `/v1/audit-logs?resource_id=${id}`);
    expect(audit.status).toBe(200);
    const successes = audit.body.data.filter((event) => event.outcome === 'success').map((event) => event.action);
    expect(successes.sort()).toEqual(['virtual_key.create', 'virtual_key.delete', 'virtual_key.update', 'virtual_key.update']);
    expect(audit.body.data.find((event) => event.action === 'virtual_key.update' && event.outcome === 'success')?.details).toMatchObject({ changed: expect.any(Array) });
    expect(audit.body.data.some((event) => event.action === 'virtual_key.delete' && event.outcome === 'failure')).toBe(true);
    expect(JSON.stringify(audit.body)).not.toContain(SENTINEL);
    expect(JSON.stringify(audit.body)).not.toContain(ROTATED);
  });

  it('keeps a block’s secret fields that an update omits and drops them with the block', async () => {
    const created = await create({ provider: 'bedrock', aws: { access_key_id: 'AKIAIOSFODNN7EXAMPLE', secret_access_key: SENTINEL, region: 'us-east-1' } });
    const moved = await call('PATCH', `/v1/virtual-keys/${created.body.id}`, { body: { aws: { region: 'eu-central-1' } } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ aws: { region: 'eu-central-1' }, stored_secrets: ['aws.access_key_id', 'aws.secret_access_key'] });

    expectError(await call('PATCH', `/v1/virtual-keys/${created.body.id}`, { body: { aws: null } }), 400, 'missing_credential', { param: 'credential' });
    const swapped = await call('PATCH', `/v1/virtual-keys/${created.body.id}`, { body: { aws: null, credential: 'bedrock-api-key' } });
    expect(swapped.status).toBe(200);
    expect(swapped.body.stored_secrets).toEqual(['credential']);
    expect(swapped.body.aws).toBeUndefined();
  });

  it('refuses each invalid update with a 400 naming the field', async () => {
    const { body } = await create({ provider: 'openai', credential: SENTINEL });
    const patch = (payload: unknown) => call('PATCH', `/v1/virtual-keys/${body.id}`, { body: payload });
    expectError(await patch({}), 400, 'invalid_request', { message: /at least one field/ });
    expectError(await patch({ provider: 'groq' }), 400, 'invalid_request', { message: /provider/ });
    expectError(await patch({ credential: null }), 400, 'missing_credential', { param: 'credential' });
    expectError(await patch({ credential: 7 }), 400, 'invalid_request', { param: 'credential' });
    expectError(await patch({ vertex: { region: 'us-central1' } }), 400, 'settings_provider_mismatch', { param: 'vertex' });
    expectError(await patch('[1,2'), 400, 'invalid_json');
  });

  it('answers 404 for an unknown or malformed id', async () => {
    expectError(await call('GET', '/v1/virtual-keys/00000000-0000-0000-0000-000000000000'), 404, 'not_found');
    expectError(await call('PATCH', '/v1/virtual-keys/00000000-0000-0000-0000-000000000000', { body: { name: 'x' } }), 404, 'not_found');
    // Longer than any id gw hands out: bad input, refused before the lookup (issue #30).
    expectError(await call('GET', `/v1/virtual-keys/${'a'.repeat(300)}`), 400, 'invalid_path');
    expectError(await call('GET', '/v1/virtual-keys/has%20space'), 404, 'not_found');
  });
});

describe('listing', () => {
  it('pages through the workspace’s keys newest first with limit and cursor', async () => {
    const workspace = await newWorkspace(gateway);
    // Two in the caller's own workspace, which must not show up in the other workspace's list.
    const elsewhere = [(await create({ provider: 'openai', credential: SENTINEL })).body.id, (await create({ provider: 'openai', credential: SENTINEL })).body.id];
    const inWorkspace: string[] = [];
    for (let i = 0; i < 5; i++) {
      const reply = await call('POST', `/v1/virtual-keys?workspace_id=${workspace.id}`, { body: { name: `ws ${i}`, provider: 'openai', credential: SENTINEL } });
      expect(reply.status).toBe(201);
      expect(reply.body.workspace_id).toBe(workspace.id);
      inWorkspace.push(reply.body.id);
    }
    const { items, pages } = await allPages<VirtualKeyView>(gateway, `/v1/virtual-keys?workspace_id=${workspace.id}`, {}, 2);
    expect(pages).toBe(3);
    expect(items.map((item) => item.id)).toEqual([...inWorkspace].reverse());
    expect(items.some((item) => elsewhere.includes(item.id))).toBe(false);
    expect(JSON.stringify(items)).not.toContain(SENTINEL);
  });

  it('refuses a bad limit and a cursor from another list', async () => {
    expectError(await call('GET', '/v1/virtual-keys?limit=0'), 400, 'invalid_limit', { param: 'limit' });
    expectError(await call('GET', '/v1/virtual-keys?limit=abc'), 400, 'invalid_limit', { param: 'limit' });
    expectError(await call('GET', '/v1/virtual-keys?cursor=not-a-cursor'), 400, 'invalid_cursor', { param: 'cursor' });
    const foreign = Buffer.from(JSON.stringify({ pk: 'x', sk: 'y', gsi1pk: `WS#${otherWorkspaceId}#VIRTUALKEYS`, gsi1sk: 'z' })).toString('base64url');
    expectError(await call('GET', `/v1/virtual-keys?cursor=${foreign}`), 400, 'invalid_cursor', { param: 'cursor' });
  });
});

describe('authentication, scopes and workspace isolation', () => {
  it('refuses a missing or invalid API key with 401', async () => {
    expectError(await call('GET', '/v1/virtual-keys', { key: null }), 401, 'api_key_missing');
    expectError(await call('POST', '/v1/virtual-keys', { key: 'gwk_not_a_real_key', body: { provider: 'openai', credential: SENTINEL } }), 401, 'api_key_invalid');
  });

  it('needs virtual_keys:write to change and virtual_keys:read to read', async () => {
    const { body } = await create({ provider: 'openai', credential: SENTINEL });
    expectError(await create({ provider: 'openai', credential: SENTINEL }, readOnly), 403, 'missing_scope', { message: /virtual_keys:write/ });
    expectError(await call('PATCH', `/v1/virtual-keys/${body.id}`, { key: readOnly, body: { name: 'x' } }), 403, 'missing_scope');
    expectError(await call('DELETE', `/v1/virtual-keys/${body.id}`, { key: readOnly }), 403, 'missing_scope');
    expect((await call('GET', `/v1/virtual-keys/${body.id}`, { key: readOnly })).status).toBe(200);
    expect((await call('GET', '/v1/virtual-keys', { key: readOnly })).status).toBe(200);
    expectError(await call('GET', `/v1/virtual-keys/${body.id}`, { key: noVirtualKeyScope }), 403, 'missing_scope', { message: /virtual_keys:read/ });
    expectError(await call('GET', '/v1/virtual-keys', { key: noVirtualKeyScope }), 403, 'missing_scope');
  });

  it('hides another workspace’s keys behind 404s and keeps lists apart', async () => {
    const mine = await create({ provider: 'openai', credential: SENTINEL });
    const theirs = await create({ provider: 'openai', credential: SENTINEL }, otherWorkspaceWriter);
    expect(theirs.status).toBe(201);
    expect(theirs.body.workspace_id).toBe(otherWorkspaceId);

    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'stolen' }], ['DELETE', undefined]] as const) {
      expectError(await call(method, `/v1/virtual-keys/${mine.body.id}`, { key: otherWorkspaceWriter, body }), 404, 'not_found');
    }
    const theirList = await call<Page<VirtualKeyView>>('GET', '/v1/virtual-keys?limit=100', { key: otherWorkspaceWriter });
    expect(theirList.body.data.map((item) => item.id)).toEqual([theirs.body.id]);
    // A workspace key cannot reach another workspace by naming it either.
    expectError(await call('GET', `/v1/virtual-keys?workspace_id=${gateway.bootstrap.workspaceId}`, { key: otherWorkspaceWriter }), 404, 'not_found');

    // The organisation admin may look into the other workspace explicitly; another organisation may not.
    const adminView = await call('GET', `/v1/virtual-keys/${theirs.body.id}?workspace_id=${otherWorkspaceId}`);
    expect(adminView.status).toBe(200);
    expectError(await call('GET', `/v1/virtual-keys/${theirs.body.id}`), 404, 'not_found');
    expectError(await call('GET', `/v1/virtual-keys?workspace_id=${otherWorkspaceId}`, { key: otherOrgAdmin }), 404, 'not_found');
    expect((await call('GET', `/v1/virtual-keys/${mine.body.id}`)).body.name).toBe(mine.body.name);
  });
});

describe('the credential', () => {
  it('appears in no reply of this file', () => {
    expect(replies.length).toBeGreaterThan(40);
    for (const reply of replies) {
      const text = JSON.stringify(reply.body) + JSON.stringify([...reply.headers.entries()]);
      expect(text).not.toContain(SENTINEL);
      expect(text).not.toContain(ROTATED);
    }
  });
});
