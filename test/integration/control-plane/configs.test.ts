import { beforeAll, describe, expect, it } from 'vitest';
import { faultInjectingHandler } from '../../support/fault-mock.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { call, createKey, createWorkspace, type CreatedKey } from './policies-support.js';

let gateway: TestGateway;
let upstream: MockUpstream;
let otherWorkspaceKey: CreatedKey;
let readOnlyKey: CreatedKey;
useGatewayWithUpstream(faultInjectingHandler(), (started) => ({ gateway, upstream } = started));
beforeAll(async () => {
  const { organisationId, workspaceId } = gateway.bootstrap;
  const otherWorkspace = await createWorkspace(organisationId, 'configs-other');
  otherWorkspaceKey = await createKey({ organisationId, workspaceId: otherWorkspace, scopes: ['configs:read', 'configs:write', 'completions:write'] });
  readOnlyKey = await createKey({ organisationId, workspaceId, scopes: ['configs:read'] });
});

const target = (model: string) => ({ provider: 'openai', api_key: 'sk-saved', custom_host: upstream.url, override_params: { model } });
interface SavedConfig {
  id: string;
  version: number;
  name: string;
  config: Record<string, unknown>;
}

async function chatWith(configHeader: string, key = gateway.apiKey) {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'x-gw-api-key': key, 'x-gw-config': configHeader, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }] }),
  });
}
const lastModel = () => (upstream.requests.at(-1)!.json as { model: string }).model;

describe('saved configs', () => {
  it('creates, reads, lists, versions on update, and deletes', async () => {
    const created = await call<SavedConfig>(gateway, 'POST', '/v1/configs', { body: { name: 'primary', config: target('v1-model') } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'config', name: 'primary', version: 1 });
    const id = created.body.id;
    expect(id).toMatch(/^cfg-/);

    const updated = await call<SavedConfig>(gateway, 'PUT', `/v1/configs/${id}`, { body: { config: target('v2-model') } });
    expect(updated.status).toBe(200);
    expect(updated.body.version).toBe(2);

    const latest = await call<SavedConfig>(gateway, 'GET', `/v1/configs/${id}`);
    expect(latest.body.version).toBe(2);
    expect(latest.body.config.override_params).toEqual({ model: 'v2-model' });
    const first = await call<SavedConfig>(gateway, 'GET', `/v1/configs/${id}?version=1`);
    expect(first.body.config.override_params).toEqual({ model: 'v1-model' });
    const versions = await call<{ data: Array<{ version: number }> }>(gateway, 'GET', `/v1/configs/${id}/versions`);
    expect(versions.body.data.map((version) => version.version)).toEqual([2, 1]);

    const list = await call<{ data: SavedConfig[] }>(gateway, 'GET', '/v1/configs');
    expect(list.body.data.map((config) => config.id)).toContain(id);

    expect((await call(gateway, 'DELETE', `/v1/configs/${id}`)).status).toBe(200);
    expect((await call(gateway, 'GET', `/v1/configs/${id}`)).status).toBe(404);
  });

  it('the gateway uses the latest version by id and a pinned one with id@version', async () => {
    const created = await call<SavedConfig>(gateway, 'POST', '/v1/configs', { body: { name: 'pinned', config: target('pin-1') } });
    const id = created.body.id;
    await call(gateway, 'PUT', `/v1/configs/${id}`, { body: { config: target('pin-2') } });
    expect((await chatWith(id)).status).toBe(200);
    expect(lastModel()).toBe('pin-2');
    expect((await chatWith(`${id}@1`)).status).toBe(200);
    expect(lastModel()).toBe('pin-1');
    const missing = await chatWith(`${id}@9`);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('AB0111');
  });

  it('validates on save with the gateway schema', async () => {
    const invalid = await call<{ error: { code: string; param: string } }>(gateway, 'POST', '/v1/configs', {
      body: { name: 'bad', config: { strategy: { mode: 'fallback' }, targets: [{ ...target('x'), retry: { attempts: 9 } }] } },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toMatchObject({ code: 'AB0106', param: 'config.targets[0].retry.attempts' });
    const unknownProvider = await call<{ error: { code: string } }>(gateway, 'POST', '/v1/configs', { body: { name: 'bad', config: { provider: 'nope' } } });
    expect(unknownProvider.body.error.code).toBe('AB0107');
    const noName = await call<{ error: { code: string; param: string } }>(gateway, 'POST', '/v1/configs', { body: { config: target('x') } });
    expect(noName.status).toBe(400);
    expect(noName.body.error.param).toBe('name');
    const notObject = await call<{ error: { code: string } }>(gateway, 'POST', '/v1/configs', { body: { name: 'n', config: 'cfg' } });
    expect(notObject.body.error.code).toBe('AB0105');
  });

  it('keeps workspaces apart: another workspace can neither see, use, change nor delete a config (404)', async () => {
    const created = await call<SavedConfig>(gateway, 'POST', '/v1/configs', { body: { name: 'private', config: target('private') } });
    const id = created.body.id;
    expect((await call(gateway, 'GET', `/v1/configs/${id}`, { key: otherWorkspaceKey.raw })).status).toBe(404);
    expect((await call(gateway, 'PUT', `/v1/configs/${id}`, { key: otherWorkspaceKey.raw, body: { config: target('stolen') } })).status).toBe(404);
    expect((await call(gateway, 'DELETE', `/v1/configs/${id}`, { key: otherWorkspaceKey.raw })).status).toBe(404);
    const listed = await call<{ data: SavedConfig[] }>(gateway, 'GET', '/v1/configs', { key: otherWorkspaceKey.raw });
    expect(listed.body.data.map((config) => config.id)).not.toContain(id);
    const used = await chatWith(id, otherWorkspaceKey.raw);
    expect(used.status).toBe(400);
    expect(((await used.json()) as { error: { code: string } }).error.code).toBe('AB0111');
    expect((await call<SavedConfig>(gateway, 'GET', `/v1/configs/${id}`)).body.version).toBe(1);
  });

  it('needs configs:write to change and configs:read to read', async () => {
    const denied = await call<{ error: { code: string } }>(gateway, 'POST', '/v1/configs', { key: readOnlyKey.raw, body: { name: 'x', config: target('x') } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('missing_scope');
    expect((await call(gateway, 'GET', '/v1/configs', { key: readOnlyKey.raw })).status).toBe(200);
    expect((await call(gateway, 'GET', '/v1/configs', { key: null })).status).toBe(401);
  });

  it('keeps a workspace that holds configs from being deleted without force', async () => {
    const workspace = await call<{ id: string }>(gateway, 'POST', '/v1/workspaces', { body: { name: 'Holds configs' } });
    expect(workspace.status).toBe(201);
    const created = await call(gateway, 'POST', `/v1/configs?workspace_id=${workspace.body.id}`, { body: { name: 'in-it', config: target('x') } });
    expect(created.status).toBe(201);
    const refused = await call<{ error: { code: string; message: string } }>(gateway, 'DELETE', `/v1/workspaces/${workspace.body.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('workspace_not_empty');
    expect(refused.body.error.message).toContain('configs');
  });

  it('paginates with limit and cursor', async () => {
    for (let i = 0; i < 3; i++) await call(gateway, 'POST', '/v1/configs', { body: { name: `page-${i}`, config: target('p') } });
    const first = await call<{ data: SavedConfig[]; has_more: boolean; next_cursor: string }>(gateway, 'GET', '/v1/configs?limit=2');
    expect(first.body.data).toHaveLength(2);
    expect(first.body.has_more).toBe(true);
    const second = await call<{ data: SavedConfig[] }>(gateway, 'GET', `/v1/configs?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((config) => config.id)).not.toContain(first.body.data[0].id);
    expect((await call(gateway, 'GET', '/v1/configs?limit=0')).status).toBe(400);
    expect((await call(gateway, 'GET', '/v1/configs?cursor=garbage')).status).toBe(400);
  });

  it('records each change with its details, reads versions by number, and names what it cannot find', async () => {
    const created = await call<SavedConfig>(gateway, 'POST', '/v1/configs', { body: { name: 'audited', config: target('a-1') } });
    const id = created.body.id;
    expect((await call<SavedConfig>(gateway, 'PUT', `/v1/configs/${id}`, { body: { name: 'renamed', config: target('a-2') } })).body).toMatchObject({ name: 'renamed', version: 2 });

    const pinned = await call<SavedConfig & { updated_at: string; created_at: string }>(gateway, 'GET', `/v1/configs/${id}?version=1`);
    expect(pinned.body).toMatchObject({ id, version: 1, name: 'renamed', config: { override_params: { model: 'a-1' } } });
    const versions = await call<{ object: string; data: Array<Record<string, unknown>>; has_more: boolean; next_cursor: null }>(gateway, 'GET', `/v1/configs/${id}/versions`);
    expect(versions.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(versions.body.data.map((version) => [version.object, version.id, version.version])).toEqual([['config_version', id, 2], ['config_version', id, 1]]);
    expect(JSON.stringify(versions.body)).not.toContain('sk-saved');

    const unknownVersion = await call<{ error: { code: string; message: string } }>(gateway, 'GET', `/v1/configs/${id}?version=9`);
    expect(unknownVersion.status).toBe(404);
    expect(unknownVersion.body.error.message).toBe(`Saved config '${id}' has no version 9`);
    const badVersion = await call<{ error: { code: string; param: string } }>(gateway, 'GET', `/v1/configs/${id}?version=first`);
    expect(badVersion.status).toBe(400);
    expect(badVersion.body.error).toMatchObject({ code: 'invalid_version', param: 'version' });
    const unknown = await call<{ error: { code: string; message: string } }>(gateway, 'GET', '/v1/configs/cfg-unknown/versions');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe("No saved config with id 'cfg-unknown' in this workspace");

    const deleted = await call<Record<string, unknown>>(gateway, 'DELETE', `/v1/configs/${id}`);
    expect(deleted.body).toEqual({ object: 'config', id, deleted: true });
    expect((await call(gateway, 'DELETE', `/v1/configs/${id}`)).status).toBe(404);

    const events = await call<{ data: Array<{ action: string; resource_type: string; resource_id?: string; workspace_id: string; outcome: string; details?: Record<string, unknown> }> }>(gateway, 'GET', '/v1/audit-logs?limit=100');
    const ours = events.body.data.filter((event) => event.resource_id === id).map(({ action, resource_type, workspace_id, outcome, details }) => ({ action, resource_type, workspace_id, outcome, details }));
    const workspace_id = gateway.bootstrap.workspaceId;
    expect(ours).toEqual(
      expect.arrayContaining([
        { action: 'config.create', resource_type: 'config', workspace_id, outcome: 'success', details: { name: 'audited', version: 1 } },
        { action: 'config.update', resource_type: 'config', workspace_id, outcome: 'success', details: { version: 2 } },
        { action: 'config.delete', resource_type: 'config', workspace_id, outcome: 'success', details: {} },
        { action: 'config.delete', resource_type: 'config', workspace_id, outcome: 'failure', details: { status: 404, code: 'not_found' } },
      ]),
    );
    expect(ours).toHaveLength(4);
  });
});
