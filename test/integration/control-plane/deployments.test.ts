import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeploymentView } from '../../../shared/control-plane/deployments/schemas.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { everyStoredItem } from '../../support/stored-items.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { api, expectError, newKey, newWorkspace, otherOrganisation, type Page, type Reply } from './identities-support.js';
import { readOnlyJwt, TEST_JWT_SECRET } from './jwt-support.js';

let gateway: TestGateway;
let upstream: MockUpstream;
let otherWorkspace: { id: string; slug: string };
let otherWorkspaceKey: string;
let otherWorkspaceCaller: string;
let workspaceWriter: string;
let readOnly: string;
let noScope: string;
let otherOrgAdmin: string;

const call = <Body = DeploymentView>(method: string, path: string, options: Parameters<typeof api>[3] = {}): Promise<Reply<Body>> => api<Body>(gateway, method, path, options);
const inline = (model: string) => ({ provider: 'openai', api_key: 'sk-deploy-secret-1', custom_host: upstream.url, override_params: { model } });
const chat = (headers: Record<string, string>, key = gateway.apiKey) =>
  fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': key, ...headers },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
  });

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway({ GW_JWT_SECRET: TEST_JWT_SECRET });
  otherWorkspace = await newWorkspace(gateway);
  otherWorkspaceKey = (await newKey(gateway, { workspace_id: otherWorkspace.id, scopes: ['deployments:read', 'deployments:list', 'deployments:create'] })).key;
  otherWorkspaceCaller = (await newKey(gateway, { workspace_id: otherWorkspace.id, scopes: ['completions:write'] })).key;
  workspaceWriter = (await newKey(gateway, { scopes: ['deployments:create', 'deployments:read', 'deployments:update', 'deployments:delete', 'deployments:list', 'completions:write'] })).key;
  readOnly = (await newKey(gateway, { scopes: ['deployments:read', 'deployments:list'] })).key;
  noScope = (await newKey(gateway, { scopes: ['configs:read'] })).key;
  otherOrgAdmin = (await otherOrganisation()).adminKey;
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('/v1/deployments', () => {
  it('creates, reads (by id and slug), lists by type, updates and deletes; secrets in inline configs are masked; every change is audited', async () => {
    const created = await call('POST', '/v1/deployments', { body: { name: 'Chat Prod', type: 'production', config: inline('prod-model') } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ object: 'deployment', name: 'Chat Prod', slug: 'chat-prod', type: 'production', workspace_id: gateway.bootstrap.workspaceId, restricted_to_workspaces: [] });
    expect(JSON.stringify(created.body)).not.toContain('sk-deploy-secret-1');
    expect((created.body.config as { api_key: string }).api_key).toBe('********');
    // At rest too: the credential is in the secret store, the tables hold only its mask.
    expect(await everyStoredItem()).not.toContain('sk-deploy-secret-1');

    const staging = await call('POST', '/v1/deployments', { body: { name: 'staging', slug: 'chat-staging', type: 'non-production', config: inline('staging-model') } });
    expect(staging.status).toBe(201);

    const bySlug = await call('GET', '/v1/deployments/chat-prod');
    expect(bySlug.body.id).toBe(created.body.id);
    const production = await call<Page<DeploymentView>>('GET', '/v1/deployments?type=production&limit=100');
    expect(production.body.data.map((item) => item.slug)).toContain('chat-prod');
    expect(production.body.data.map((item) => item.slug)).not.toContain('chat-staging');

    const updated = await call('PATCH', `/v1/deployments/${created.body.id}`, { body: { type: 'non-production', description: 'moved' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ type: 'non-production', description: 'moved', slug: 'chat-prod' });

    const deleted = await call('DELETE', `/v1/deployments/${staging.body.id}`);
    expect(deleted.body).toEqual({ object: 'deployment', id: staging.body.id, deleted: true });
    expectError(await call('GET', `/v1/deployments/${staging.body.id}`), 404, 'not_found');

    const audit = await call<Page<{ action: string; outcome: string }>>('GET', `/v1/audit-logs?resource_id=${created.body.id}`);
    expect(audit.body.data.filter((event) => event.outcome === 'success').map((event) => event.action).sort()).toEqual(['deployment.create', 'deployment.update']);
  });

  it('refuses bad bodies with 400 naming the field, a taken slug with 409, an unknown saved config with 400', async () => {
    expectError(await call('POST', '/v1/deployments', { body: { name: 'x', type: 'staging', config: {} } }), 400, 'invalid_request', { param: 'type' });
    expectError(await call('POST', '/v1/deployments', { body: { name: 'x'.repeat(256), type: 'production', config: inline('m') } }), 400, 'invalid_request', { param: 'name' });
    expectError(await call('POST', '/v1/deployments', { body: { name: 'x', slug: 'Bad Slug', type: 'production', config: inline('m') } }), 400, 'invalid_request', { param: 'slug' });
    const badConfig = await call('POST', '/v1/deployments', { body: { name: 'x', type: 'production', config: { strategy: { mode: 'sometimes' } } } });
    expect(badConfig.status).toBe(400);
    expectError(await call('POST', '/v1/deployments', { body: { name: 'x', type: 'production', config: { id: 'cfg-missing' } } }), 400, 'invalid_config_reference', { param: 'config.id' });
    await call('POST', '/v1/deployments', { body: { name: 'dup', type: 'production', config: inline('m') } });
    expectError(await call('POST', '/v1/deployments', { body: { name: 'dup', type: 'production', config: inline('m') } }), 409, 'slug_taken');
    expectError(await call('GET', '/v1/deployments?type=qa'), 400, 'invalid_request', { param: 'type' });
  });

  it('enforces scopes: no deployments scope → 403, read-only key cannot create, a JWT cannot write', async () => {
    expectError(await call('GET', '/v1/deployments', { key: noScope }), 403, 'missing_scope');
    expectError(await call('POST', '/v1/deployments', { key: readOnly, body: { name: 'ro', type: 'production', config: inline('m') } }), 403, 'missing_scope');
    const jwt = await readOnlyJwt(gateway);
    expect((await call('GET', '/v1/deployments', { bearer: jwt })).status).toBe(200);
    expectError(await call('POST', '/v1/deployments', { bearer: jwt, body: { name: 'jwt', type: 'production', config: inline('m') } }), 403, 'jwt_read_only');
  });

  it('scopes to the workspace: another workspace’s key and another organisation get 404; organisation-wide needs an admin', async () => {
    const mine = await call('POST', '/v1/deployments', { key: workspaceWriter, body: { name: 'mine only', type: 'production', config: inline('m') } });
    expect(mine.status).toBe(201);
    expectError(await call('GET', `/v1/deployments/${mine.body.id}`, { key: otherWorkspaceKey }), 404, 'not_found');
    expectError(await call('GET', `/v1/deployments/${mine.body.id}`, { key: otherOrgAdmin }), 404, 'not_found');
    const theirs = await call<Page<DeploymentView>>('GET', '/v1/deployments?limit=100', { key: otherWorkspaceKey });
    expect(theirs.body.data.map((item) => item.id)).not.toContain(mine.body.id);
    expectError(await call('POST', '/v1/deployments', { key: workspaceWriter, body: { name: 'org wide', type: 'production', config: inline('m'), workspace_id: null } }), 403, 'admin_required');
    expectError(await call('POST', '/v1/deployments', { key: workspaceWriter, body: { name: 'elsewhere', type: 'production', config: inline('m'), workspace_id: otherWorkspace.id } }), 404, 'not_found');
  });
});

describe('x-gw-deployment on the gateway', () => {
  it('runs an inline deployment config, and a saved config pinned to a version', async () => {
    await call('POST', '/v1/deployments', { body: { name: 'run inline', type: 'production', config: inline('from-inline-deployment') } });
    const start = upstream.requests.length;
    const response = await chat({ 'x-gw-deployment': 'run-inline' });
    expect(response.status, await response.clone().text()).toBe(200);
    expect((upstream.requests[start].json as { model: string }).model).toBe('from-inline-deployment');
    expect(upstream.requests[start].headers.authorization).toBe('Bearer sk-deploy-secret-1');

    const saved = await call<{ id: string }>('POST', '/v1/configs', { body: { name: 'saved', config: inline('saved-v1') } });
    expect(saved.status).toBe(201);
    await call('PUT', `/v1/configs/${saved.body.id}`, { body: { config: inline('saved-v2') } });
    await call('POST', '/v1/deployments', { body: { name: 'pinned', type: 'production', config: { id: saved.body.id, version: 1 } } });
    const pinned = await chat({ 'x-gw-deployment': 'pinned' });
    expect(pinned.status).toBe(200);
    expect((upstream.requests.at(-1)!.json as { model: string }).model).toBe('saved-v1');
  });

  it('a workspace the deployment is restricted away from gets 404; a listed one may use it', async () => {
    const restricted = await call('POST', '/v1/deployments', {
      body: { name: 'restricted', type: 'production', config: inline('restricted-model'), workspace_id: null, restricted_to_workspaces: [otherWorkspace.slug] },
    });
    expect(restricted.status, JSON.stringify(restricted.body)).toBe(201);
    expect(restricted.body.restricted_to_workspaces).toEqual([otherWorkspace.id]);
    const refused = await chat({ 'x-gw-deployment': 'restricted' }, workspaceWriter);
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('deployment_not_found');
    const allowed = await chat({ 'x-gw-deployment': 'restricted' }, otherWorkspaceCaller);
    expect(allowed.status, await allowed.clone().text()).toBe(200);
  });

  it('unknown slug → 404, malformed header → 400, together with x-gw-config → 400', async () => {
    expect((await chat({ 'x-gw-deployment': 'no-such-deployment' })).status).toBe(404);
    const malformed = await chat({ 'x-gw-deployment': 'Not A Slug' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { param: string } }).error.param).toBe('x-gw-deployment');
    const both = await chat({ 'x-gw-deployment': 'run-inline', 'x-gw-config': JSON.stringify(inline('m')) });
    expect(both.status).toBe(400);
  });
});
