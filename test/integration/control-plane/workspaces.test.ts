import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settings } from '../../../shared/settings.js';
import { dynamoDocumentClient } from '../../../shared/store/dynamo-client.js';
import { keys } from '../../../shared/store/keys.js';
import { MAIN_TABLE, tableName } from '../../../shared/store/table-definitions.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { allPages, api, expectError, newKey, newWorkspace, otherOrganisation, type ApiKey, type Page, type Workspace } from './identities-support.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

/** What the gateway's budget meter would do: charge usage to the workspace record. */
async function chargeUsage(workspaceId: string, usage: number): Promise<void> {
  await dynamoDocumentClient().send(
    new UpdateCommand({
      TableName: tableName(settings(), MAIN_TABLE),
      Key: keys.workspace(workspaceId),
      UpdateExpression: 'SET budget_current_usage = :usage',
      ExpressionAttributeValues: { ':usage': usage },
    }),
  );
}

describe('POST /v1/workspaces', () => {
  it('creates a workspace with a derived slug, default budget and key settings', async () => {
    const reply = await api<Workspace>(gateway, 'POST', '/v1/workspaces', { body: { name: 'Research Team', description: 'R&D' } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      object: 'workspace',
      name: 'Research Team',
      slug: 'research-team',
      description: 'R&D',
      organisation_id: gateway.bootstrap.organisationId,
      budget: { credit_limit: null, periodic_reset: 'none', current_usage: 0, status: 'active', next_reset_at: null },
      api_key_settings: { max_api_keys: null, default_expiry_days: null, max_expiry_days: null },
      active_api_keys: 0,
    });
    expect(reply.body.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('stores a budget with a periodic reset and schedules the next reset', async () => {
    const workspace = await newWorkspace(gateway, { budget: { credit_limit: 50, periodic_reset: 'monthly' }, api_key_settings: { max_api_keys: 3, default_expiry_days: 7, max_expiry_days: 30 } });
    expect(workspace.budget).toMatchObject({ credit_limit: 50, periodic_reset: 'monthly', status: 'active' });
    const next = new Date(workspace.budget.next_reset_at as string);
    expect(next.getUTCDate()).toBe(1);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(workspace.api_key_settings).toEqual({ max_api_keys: 3, default_expiry_days: 7, max_expiry_days: 30 });
  });

  it('refuses a slug that is taken with 409', async () => {
    await newWorkspace(gateway, { slug: 'taken-slug' });
    expectError(await api(gateway, 'POST', '/v1/workspaces', { body: { name: 'again', slug: 'taken-slug' } }), 409, 'slug_taken', { param: 'slug' });
  });

  it('gives a derived slug that is taken a suffix instead of failing', async () => {
    const first = await newWorkspace(gateway, { name: 'Same Name' });
    const second = await newWorkspace(gateway, { name: 'Same Name' });
    expect(first.slug).toBe('same-name');
    expect(second.slug).toMatch(/^same-name-[0-9a-f]{6}$/);
  });

  it.each([
    ['no name', {}, 'name'],
    ['an empty name', { name: '' }, 'name'],
    ['a name that is too long', { name: 'x'.repeat(256) }, 'name'],
    ['a bad slug', { name: 'a', slug: 'Not A Slug' }, 'slug'],
    ['a negative credit limit', { name: 'a', budget: { credit_limit: -1 } }, 'budget.credit_limit'],
    ['an unknown periodic reset', { name: 'a', budget: { periodic_reset: 'daily' } }, 'budget.periodic_reset'],
    ['a default expiry beyond the maximum', { name: 'a', api_key_settings: { default_expiry_days: 40, max_expiry_days: 30 } }, 'api_key_settings.default_expiry_days'],
    ['a fractional key maximum', { name: 'a', api_key_settings: { max_api_keys: 1.5 } }, 'api_key_settings.max_api_keys'],
    ['too many metadata entries', { name: 'a', metadata: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
  ])('answers 400 for %s', async (_case, body, param) => {
    expectError(await api(gateway, 'POST', '/v1/workspaces', { body }), 400, 'invalid_request', { param });
  });

  it('answers 400 for an unknown field and for a body that is not JSON', async () => {
    expectError(await api(gateway, 'POST', '/v1/workspaces', { body: { name: 'a', colour: 'red' } }), 400, 'invalid_request', { message: /colour/ });
    expectError(await api(gateway, 'POST', '/v1/workspaces', { body: '{"name":' }), 400, 'invalid_json');
  });

  it('needs a key (401) and an organisation admin key (403)', async () => {
    expectError(await api(gateway, 'POST', '/v1/workspaces', { key: null, body: { name: 'a' } }), 401, 'api_key_missing');
    expectError(await api(gateway, 'POST', '/v1/workspaces', { key: 'gwk_not_a_real_key', body: { name: 'a' } }), 401, 'api_key_invalid');
    const workspaceKey = await newKey(gateway, { scopes: ['workspaces:write', 'workspaces:read'] });
    expectError(await api(gateway, 'POST', '/v1/workspaces', { key: workspaceKey.key, body: { name: 'a' } }), 403, 'admin_required');
  });
});

describe('GET /v1/workspaces', () => {
  it('pages through every workspace of the organisation for an admin key', async () => {
    for (let i = 0; i < 3; i++) await newWorkspace(gateway);
    const { items, pages } = await allPages<Workspace>(gateway, '/v1/workspaces');
    expect(pages).toBeGreaterThanOrEqual(2);
    const ids = items.map((workspace) => workspace.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain(gateway.bootstrap.workspaceId);
    expect(items.every((workspace) => workspace.organisation_id === gateway.bootstrap.organisationId)).toBe(true);
  });

  it('shows a workspace key only its own workspace', async () => {
    const workspace = await newWorkspace(gateway);
    const key = await newKey(gateway, { workspace_id: workspace.id, scopes: ['workspaces:read'] });
    const reply = await api<Page<Workspace>>(gateway, 'GET', '/v1/workspaces', { key: key.key });
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((item) => item.id)).toEqual([workspace.id]);
    expect(reply.body.has_more).toBe(false);
  });

  it('accepts workspaces:list instead of workspaces:read for listing, but not for a single read', async () => {
    const key = await newKey(gateway, { scopes: ['workspaces:list'] });
    expect((await api(gateway, 'GET', '/v1/workspaces', { key: key.key })).status).toBe(200);
    expectError(await api(gateway, 'GET', `/v1/workspaces/${gateway.bootstrap.workspaceId}`, { key: key.key }), 403, 'missing_scope');
  });

  it('answers 400 for a bad limit or cursor and 403 without a read scope', async () => {
    expectError(await api(gateway, 'GET', '/v1/workspaces?limit=0'), 400, 'invalid_limit', { param: 'limit' });
    expectError(await api(gateway, 'GET', '/v1/workspaces?limit=101'), 400, 'invalid_limit', { param: 'limit' });
    expectError(await api(gateway, 'GET', '/v1/workspaces?cursor=not-a-cursor'), 400, 'invalid_cursor', { param: 'cursor' });
    expectError(await api(gateway, 'GET', '/v1/workspaces?name=x'), 400, 'invalid_request', { message: /name/ });
    const foreignCursor = Buffer.from(JSON.stringify({ pk: 'X', sk: 'Y', gsi1pk: 'ORG#someone-else#WORKSPACES', gsi1sk: 'Z' })).toString('base64url');
    expectError(await api(gateway, 'GET', `/v1/workspaces?cursor=${foreignCursor}`), 400, 'invalid_cursor', { param: 'cursor' });
    const key = await newKey(gateway, { scopes: ['api_keys:read'] });
    expectError(await api(gateway, 'GET', '/v1/workspaces', { key: key.key }), 403, 'missing_scope');
  });
});

describe('GET /v1/workspaces/{id}', () => {
  it('finds a workspace by id and by slug', async () => {
    const workspace = await newWorkspace(gateway, { slug: 'find-me' });
    expect((await api<Workspace>(gateway, 'GET', `/v1/workspaces/${workspace.id}`)).body.id).toBe(workspace.id);
    expect((await api<Workspace>(gateway, 'GET', '/v1/workspaces/find-me')).body.id).toBe(workspace.id);
  });

  it('answers 404 for a workspace that does not exist', async () => {
    expectError(await api(gateway, 'GET', '/v1/workspaces/00000000-0000-0000-0000-000000000000'), 404, 'not_found');
  });

  it("answers a second workspace's key 404 for the first workspace, exactly as for a missing one", async () => {
    const first = await newWorkspace(gateway);
    const second = await newWorkspace(gateway);
    const secondKey = await newKey(gateway, { workspace_id: second.id, scopes: ['workspaces:read', 'workspaces:write'] });
    const existing = await api(gateway, 'GET', `/v1/workspaces/${first.id}`, { key: secondKey.key });
    const missing = await api(gateway, 'GET', '/v1/workspaces/00000000-0000-0000-0000-000000000000', { key: secondKey.key });
    expectError(existing, 404, 'not_found');
    expectError(missing, 404, 'not_found');
    expectError(await api(gateway, 'PATCH', `/v1/workspaces/${first.id}`, { key: secondKey.key, body: { name: 'mine now' } }), 404, 'not_found');
    expect((await api<Workspace>(gateway, 'GET', `/v1/workspaces/${first.id}`)).body.name).toBe(first.name);
  });

  it("never shows another organisation's workspace, even to its admin key", async () => {
    const other = await otherOrganisation();
    expectError(await api(gateway, 'GET', `/v1/workspaces/${gateway.bootstrap.workspaceId}`, { key: other.adminKey }), 404, 'not_found');
    expectError(await api(gateway, 'GET', `/v1/workspaces/${other.workspaceId}`), 404, 'not_found');
    const theirs = await api<Page<Workspace>>(gateway, 'GET', '/v1/workspaces', { key: other.adminKey });
    expect(theirs.body.data.map((workspace) => workspace.id)).toEqual([other.workspaceId]);
  });
});

describe('PATCH /v1/workspaces/{id}', () => {
  it('updates name, description, metadata and API-key settings', async () => {
    const workspace = await newWorkspace(gateway, { api_key_settings: { max_expiry_days: 30 } });
    const reply = await api<Workspace>(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, {
      body: { name: 'Renamed', description: 'new', metadata: { team: 'ml' }, api_key_settings: { default_expiry_days: 10 } },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ name: 'Renamed', description: 'new', metadata: { team: 'ml' }, slug: workspace.slug });
    expect(reply.body.api_key_settings).toEqual({ max_api_keys: null, default_expiry_days: 10, max_expiry_days: 30 });
    expect(reply.body.updated_at).not.toBeNull();
  });

  it('sets a weekly reset for next Monday and removes it again', async () => {
    const workspace = await newWorkspace(gateway);
    const weekly = await api<Workspace>(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { budget: { periodic_reset: 'weekly' } } });
    const next = new Date(weekly.body.budget.next_reset_at as string);
    expect(next.getUTCDay()).toBe(1);
    expect(next.getUTCHours()).toBe(0);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    const none = await api<Workspace>(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { budget: { periodic_reset: 'none' } } });
    expect(none.body.budget).toMatchObject({ periodic_reset: 'none', next_reset_at: null });
  });

  it('makes an exhausted workspace active as soon as its limit is raised above usage', async () => {
    const workspace = await newWorkspace(gateway, { budget: { credit_limit: 10 } });
    await chargeUsage(workspace.id, 12);
    const lowered = await api<Workspace>(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { budget: { credit_limit: 11 } } });
    expect(lowered.body.budget).toMatchObject({ credit_limit: 11, current_usage: 12, status: 'exhausted' });
    const raised = await api<Workspace>(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { budget: { credit_limit: 20 } } });
    expect(raised.body.budget).toMatchObject({ credit_limit: 20, current_usage: 12, status: 'active' });
    expect((await api<Workspace>(gateway, 'GET', `/v1/workspaces/${workspace.id}`)).body.budget.status).toBe('active');
    const unlimited = await api<Workspace>(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { budget: { credit_limit: null } } });
    expect(unlimited.body.budget).toMatchObject({ credit_limit: null, status: 'active' });
  });

  it('lets a workspace key with workspaces:write change its own workspace', async () => {
    const workspace = await newWorkspace(gateway);
    const key = await newKey(gateway, { workspace_id: workspace.id, scopes: ['workspaces:write'] });
    const reply = await api<Workspace>(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { key: key.key, body: { name: 'self-service' } });
    expect(reply.status).toBe(200);
    expect(reply.body.name).toBe('self-service');
  });

  it('answers 400 for bad bodies and 403 without workspaces:write', async () => {
    const workspace = await newWorkspace(gateway, { api_key_settings: { max_expiry_days: 30 } });
    const path = `/v1/workspaces/${workspace.id}`;
    expectError(await api(gateway, 'PATCH', path, { body: {} }), 400, 'invalid_request', { message: /at least one field/ });
    expectError(await api(gateway, 'PATCH', path, { body: { slug: 'new-slug' } }), 400, 'invalid_request', { message: /slug/ });
    expectError(await api(gateway, 'PATCH', path, { body: { budget: { credit_limit: 'lots' } } }), 400, 'invalid_request', { param: 'budget.credit_limit' });
    expectError(await api(gateway, 'PATCH', path, { body: { api_key_settings: { default_expiry_days: 31 } } }), 400, 'invalid_request', {
      param: 'api_key_settings.default_expiry_days',
    });
    const reader = await newKey(gateway, { workspace_id: workspace.id, scopes: ['workspaces:read'] });
    expectError(await api(gateway, 'PATCH', path, { key: reader.key, body: { name: 'x' } }), 403, 'missing_scope');
  });
});

describe('DELETE /v1/workspaces/{id}', () => {
  it('deletes an empty workspace; it is gone afterwards', async () => {
    const workspace = await newWorkspace(gateway, { slug: 'short-lived' });
    const reply = await api(gateway, 'DELETE', `/v1/workspaces/${workspace.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ object: 'workspace', id: workspace.id, deleted: true, revoked_api_keys: [] });
    expectError(await api(gateway, 'GET', `/v1/workspaces/${workspace.id}`), 404, 'not_found');
    // The slug is free again.
    expect((await newWorkspace(gateway, { slug: 'short-lived' })).slug).toBe('short-lived');
  });

  it('refuses a workspace with active keys unless forced, then revokes them', async () => {
    const workspace = await newWorkspace(gateway);
    const key = await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read'] });
    expectError(await api(gateway, 'DELETE', `/v1/workspaces/${workspace.id}`), 409, 'workspace_not_empty', { message: /api_keys/ });
    expect((await api(gateway, 'GET', '/v1/api-keys', { key: key.key })).status).toBe(200);
    const forced = await api<{ revoked_api_keys: string[] }>(gateway, 'DELETE', `/v1/workspaces/${workspace.id}?force=true`);
    expect(forced.status).toBe(200);
    expect(forced.body.revoked_api_keys).toEqual([key.id]);
    expectError(await api(gateway, 'GET', '/v1/api-keys', { key: key.key }), 401, 'api_key_revoked');
  });

  it('refuses the home workspace of admin keys, bad force values, workspace keys and other workspaces', async () => {
    expectError(await api(gateway, 'DELETE', `/v1/workspaces/${gateway.bootstrap.workspaceId}?force=true`), 409, 'workspace_in_use');
    const workspace = await newWorkspace(gateway);
    expectError(await api(gateway, 'DELETE', `/v1/workspaces/${workspace.id}?force=yes`), 400, 'invalid_request', { param: 'force' });
    const key = await newKey(gateway, { workspace_id: workspace.id, scopes: ['workspaces:write'] });
    expectError(await api(gateway, 'DELETE', `/v1/workspaces/${workspace.id}`, { key: key.key }), 403, 'admin_required');
    const other = await otherOrganisation();
    expectError(await api(gateway, 'DELETE', `/v1/workspaces/${workspace.id}`, { key: other.adminKey }), 404, 'not_found');
    const keys = await api<Page<ApiKey>>(gateway, 'GET', `/v1/api-keys?workspace_id=${workspace.id}`);
    expect(keys.body.data.map((item) => item.status)).toEqual(['active']);
  });
});
