import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../../shared/control-plane/users/schemas.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { allPages, api, expectError, newKey, newWorkspace, otherOrganisation, type ApiKey, type Workspace } from './identities-support.js';

let gateway: TestGateway;
let workspace: Workspace;

beforeAll(async () => {
  gateway = await startTestGateway();
  workspace = await newWorkspace(gateway, { slug: 'people' });
});
afterAll(async () => {
  await gateway?.close();
});

let counter = 0;
async function invite(body: Record<string, unknown> = {}): Promise<User> {
  const reply = await api<User>(gateway, 'POST', '/v1/admin/users/invites', { body: { email: `person${++counter}@example.com`, ...body } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

describe('POST /v1/admin/users/invites', () => {
  it('invites a user into the organisation and workspaces (by id or slug)', async () => {
    const reply = await api<User>(gateway, 'POST', '/v1/admin/users/invites', {
      body: { email: 'Ada@Example.com', name: 'Ada', role: 'admin', workspaces: [{ workspace_id: 'people', role: 'manager' }] },
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      object: 'user',
      email: 'ada@example.com',
      name: 'Ada',
      role: 'admin',
      status: 'invited',
      organisation_id: gateway.bootstrap.organisationId,
      workspaces: [{ workspace_id: workspace.id, role: 'manager' }],
    });
    expect((await api<User>(gateway, 'GET', `/v1/admin/users/${reply.body.id}`)).body.email).toBe('ada@example.com');
  });

  it('refuses an e-mail address that is already in the organisation, whatever its case', async () => {
    await invite({ email: 'twice@example.com' });
    expectError(await api(gateway, 'POST', '/v1/admin/users/invites', { body: { email: 'TWICE@example.com' } }), 409, 'email_taken', { param: 'email' });
  });

  it.each([
    ['no email', {}, 'email'],
    ['a bad email', { email: 'not-an-address' }, 'email'],
    ['an unknown organisation role', { email: 'a@example.com', role: 'god' }, 'role'],
    ['an unknown workspace role', { email: 'a@example.com', workspaces: [{ workspace_id: 'people', role: 'boss' }] }, 'workspaces[0].role'],
    ['a workspace named twice', { email: 'a@example.com', workspaces: [{ workspace_id: 'people', role: 'member' }, { workspace_id: 'people', role: 'admin' }] }, 'workspaces'],
  ])('answers 400 for %s', async (_case, body, param) => {
    expectError(await api(gateway, 'POST', '/v1/admin/users/invites', { body }), 400, 'invalid_request', { param });
  });

  it('answers 400 for unknown fields and 404 for a workspace outside the organisation', async () => {
    expectError(await api(gateway, 'POST', '/v1/admin/users/invites', { body: { email: 'a@example.com', password: 'x' } }), 400, 'invalid_request', { message: /password/ });
    const other = await otherOrganisation();
    expectError(
      await api(gateway, 'POST', '/v1/admin/users/invites', { body: { email: 'b@example.com', workspaces: [{ workspace_id: other.workspaceId, role: 'member' }] } }),
      404,
      'not_found',
      { param: 'workspaces[0].workspace_id' },
    );
  });

  it('needs a key (401) and an organisation admin key (403)', async () => {
    expectError(await api(gateway, 'POST', '/v1/admin/users/invites', { key: null, body: { email: 'c@example.com' } }), 401, 'api_key_missing');
    const workspaceKey = await newKey(gateway, { workspace_id: workspace.id, scopes: ['users:write', 'users:read'] });
    expectError(await api(gateway, 'POST', '/v1/admin/users/invites', { key: workspaceKey.key, body: { email: 'c@example.com' } }), 403, 'admin_required');
    expectError(await api(gateway, 'GET', '/v1/admin/users', { key: workspaceKey.key }), 403, 'admin_required');
  });
});

describe('GET /v1/admin/users', () => {
  it('pages through the organisation, filters by role and by workspace', async () => {
    const team = await newWorkspace(gateway);
    const members = [
      await invite({ workspaces: [{ workspace_id: team.id, role: 'member' }] }),
      await invite({ role: 'admin', workspaces: [{ workspace_id: team.id, role: 'admin' }] }),
      await invite({ workspaces: [{ workspace_id: team.id, role: 'manager' }] }),
    ];
    const outsider = await invite();
    const { items, pages } = await allPages<User>(gateway, '/v1/admin/users');
    expect(pages).toBeGreaterThanOrEqual(2);
    const ids = items.map((user) => user.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining([...members.map((user) => user.id), outsider.id]));

    const inTeam = await allPages<User>(gateway, `/v1/admin/users?workspace_id=${team.id}`);
    expect(inTeam.items.map((user) => user.id).sort()).toEqual(members.map((user) => user.id).sort());
    const admins = await allPages<User>(gateway, '/v1/admin/users?role=admin', {}, 100);
    expect(admins.items.every((user) => user.role === 'admin')).toBe(true);
    expect(admins.items.map((user) => user.id)).toContain(members[1].id);
  });

  it('answers 400 for bad filters, 404 for an unknown workspace, 403 without users:read', async () => {
    expectError(await api(gateway, 'GET', '/v1/admin/users?role=king'), 400, 'invalid_request', { param: 'role' });
    expectError(await api(gateway, 'GET', '/v1/admin/users?limit=1000'), 400, 'invalid_limit');
    expectError(await api(gateway, 'GET', '/v1/admin/users?workspace_id=nowhere'), 404, 'not_found');
    expectError(await api(gateway, 'GET', '/v1/admin/users/00000000-0000-0000-0000-000000000000'), 404, 'not_found');
    const other = await otherOrganisation();
    const theirs = await api<{ data: User[] }>(gateway, 'GET', '/v1/admin/users', { key: other.adminKey });
    expect(theirs.body.data).toEqual([]);
    const ours = await invite();
    expectError(await api(gateway, 'GET', `/v1/admin/users/${ours.id}`, { key: other.adminKey }), 404, 'not_found');
  });
});

describe('PATCH /v1/admin/users/{id}', () => {
  it('changes role, status and memberships; leaving a workspace revokes the user keys in it', async () => {
    const team = await newWorkspace(gateway);
    const user = await invite({ workspaces: [{ workspace_id: team.id, role: 'member' }, { workspace_id: workspace.id, role: 'member' }] });
    const teamKey = await newKey(gateway, { workspace_id: team.id, user_id: user.id, scopes: ['api_keys:read'] });
    const otherKey = await newKey(gateway, { workspace_id: workspace.id, user_id: user.id, scopes: ['api_keys:read'] });
    const reply = await api<User & { revoked_api_keys?: string[] }>(gateway, 'PATCH', `/v1/admin/users/${user.id}`, {
      body: { role: 'admin', status: 'active', workspaces: [{ workspace_id: workspace.id, role: 'manager' }] },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ role: 'admin', status: 'active', workspaces: [{ workspace_id: workspace.id, role: 'manager' }] });
    expectError(await api(gateway, 'GET', '/v1/api-keys', { key: teamKey.key }), 401, 'api_key_revoked');
    expect((await api(gateway, 'GET', '/v1/api-keys', { key: otherKey.key })).status).toBe(200);
    const inTeam = await allPages<User>(gateway, `/v1/admin/users?workspace_id=${team.id}`);
    expect(inTeam.items.map((member) => member.id)).not.toContain(user.id);
  });

  it('answers 400 for bad bodies and 404 for unknown users', async () => {
    const user = await invite();
    expectError(await api(gateway, 'PATCH', `/v1/admin/users/${user.id}`, { body: {} }), 400, 'invalid_request');
    expectError(await api(gateway, 'PATCH', `/v1/admin/users/${user.id}`, { body: { email: 'new@example.com' } }), 400, 'invalid_request', { message: /email/ });
    expectError(await api(gateway, 'PATCH', `/v1/admin/users/${user.id}`, { body: { status: 'banned' } }), 400, 'invalid_request', { param: 'status' });
    expectError(await api(gateway, 'PATCH', '/v1/admin/users/00000000-0000-0000-0000-000000000000', { body: { role: 'member' } }), 404, 'not_found');
  });
});

describe('DELETE /v1/admin/users/{id}', () => {
  it('removes the user from the organisation and revokes every key of theirs', async () => {
    const user = await invite({ email: 'leaver@example.com', workspaces: [{ workspace_id: workspace.id, role: 'member' }] });
    const key = await newKey(gateway, { workspace_id: workspace.id, user_id: user.id, scopes: ['api_keys:read'] });
    const reply = await api<{ deleted: boolean; revoked_api_keys: string[] }>(gateway, 'DELETE', `/v1/admin/users/${user.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ object: 'user', id: user.id, deleted: true, revoked_api_keys: [key.id] });
    expectError(await api(gateway, 'GET', `/v1/admin/users/${user.id}`), 404, 'not_found');
    expectError(await api(gateway, 'GET', '/v1/api-keys', { key: key.key }), 401, 'api_key_revoked');
    expect((await api<ApiKey>(gateway, 'GET', `/v1/api-keys/${key.id}`)).body.status).toBe('revoked');
    // The address can be invited again.
    await invite({ email: 'leaver@example.com' });
  });

  it('answers 404 for an unknown user and 403 for a workspace key', async () => {
    expectError(await api(gateway, 'DELETE', '/v1/admin/users/00000000-0000-0000-0000-000000000000'), 404, 'not_found');
    const user = await invite();
    const key = await newKey(gateway, { scopes: ['users:write'] });
    expectError(await api(gateway, 'DELETE', `/v1/admin/users/${user.id}`, { key: key.key }), 403, 'admin_required');
  });
});
