import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../shared/auth/api-key-secrets.js';
import { expireDueApiKeys } from '../../../shared/control-plane/api-keys/expiry.js';
import type { User } from '../../../shared/control-plane/users/schemas.js';
import { ApiKeyRepository } from '../../../shared/store/api-key-repository.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { allPages, api, expectError, newKey, newWorkspace, otherOrganisation, waitUntilPast, type ApiKey, type ApiKeyWithSecret, type Page, type Workspace } from './identities-support.js';

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

/** A chat completion through the gateway with `key`, to the mock provider. */
async function chat(key: string): Promise<Response> {
  return gateway.post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }, {
    'x-gw-api-key': key,
    'x-gw-provider': 'openai',
    'x-gw-custom-host': upstream.url,
    authorization: 'Bearer sk-provider',
  });
}

async function invite(email: string, workspaces: Array<{ workspace_id: string; role: string }>): Promise<User> {
  const reply = await api<User>(gateway, 'POST', '/v1/admin/users/invites', { body: { email, workspaces } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

describe('POST /v1/api-keys', () => {
  it('returns the raw key once; get and list show only the masked form', async () => {
    const created = await newKey(gateway, { name: 'ci', scopes: ['api_keys:read', 'completions:write'], metadata: { team: 'ci' } });
    expect(created).toMatchObject({ object: 'api_key', name: 'ci', kind: 'workspace', type: 'service', status: 'active', workspace_id: gateway.bootstrap.workspaceId });
    expect(created.key).toMatch(/^gwk_[A-Za-z0-9_-]{32}$/);
    expect(created.masked).toBe(`${created.key.slice(0, 8)}…${created.key.slice(-4)}`);
    const fetched = await api<ApiKey>(gateway, 'GET', `/v1/api-keys/${created.id}`);
    const listed = await api<Page<ApiKey>>(gateway, 'GET', '/v1/api-keys?limit=100');
    for (const body of [JSON.stringify(fetched.body), JSON.stringify(listed.body)]) {
      expect(body).not.toContain(created.key);
      expect(body).not.toContain(hashApiKey(created.key));
      expect(body).not.toContain('"key"');
    }
    expect(fetched.body.masked).toBe(created.masked);
    // The new key works at once, on the control plane and the gateway.
    expect((await api(gateway, 'GET', '/v1/api-keys', { key: created.key })).status).toBe(200);
    expect((await chat(created.key)).status).toBe(200);
  });

  it('creates organisation admin keys for admin callers only', async () => {
    const admin = await newKey(gateway, { kind: 'admin' });
    expect(admin).toMatchObject({ kind: 'admin', type: 'service', scopes: [] });
    const created = await api<Workspace>(gateway, 'POST', '/v1/workspaces', { key: admin.key, body: { name: 'made by second admin' } });
    expect(created.status).toBe(201);
    const workspaceKey = await newKey(gateway, { scopes: ['api_keys:write', 'api_keys:read'] });
    expectError(await api(gateway, 'POST', '/v1/api-keys', { key: workspaceKey.key, body: { name: 'x', kind: 'admin' } }), 403, 'admin_required');
    expectError(await api(gateway, 'GET', '/v1/api-keys?kind=admin', { key: workspaceKey.key }), 403, 'admin_required');
    const admins = await api<Page<ApiKey>>(gateway, 'GET', '/v1/api-keys?kind=admin&limit=100');
    expect(admins.body.data.map((key) => key.id)).toContain(admin.id);
    expect(admins.body.data.every((key) => key.kind === 'admin')).toBe(true);
  });

  it.each([
    ['no name', { scopes: ['api_keys:read'] }, 'name'],
    ['no scopes on a workspace key', { name: 'x' }, 'scopes'],
    ['an empty scope list', { name: 'x', scopes: [] }, 'scopes'],
    ['an unknown scope', { name: 'x', scopes: ['everything:write'] }, 'scopes[0]'],
    ['a repeated scope', { name: 'x', scopes: ['api_keys:read', 'api_keys:read'] }, 'scopes'],
    ['an expiry that is not a date-time', { name: 'x', scopes: ['api_keys:read'], expires_at: 'tomorrow' }, 'expires_at'],
    ['a custom rotation without interval_days', { name: 'x', scopes: ['api_keys:read'], rotation_policy: { period: 'custom' } }, 'rotation_policy.interval_days'],
    ['interval_days with a weekly rotation', { name: 'x', scopes: ['api_keys:read'], rotation_policy: { period: 'weekly', interval_days: 3 } }, 'rotation_policy.interval_days'],
    ['a transition longer than 7 days', { name: 'x', scopes: ['api_keys:read'], rotation_policy: { period: 'weekly', transition_period_ms: 8 * 86_400_000 } }, 'rotation_policy.transition_period_ms'],
    ['an unknown kind', { name: 'x', kind: 'root', scopes: ['api_keys:read'] }, 'kind'],
    ['user_id on a service key', { name: 'x', type: 'service', user_id: 'u1', scopes: ['api_keys:read'] }, 'user_id'],
    ['a user key without a user', { name: 'x', type: 'user', scopes: ['api_keys:read'] }, 'user_id'],
  ])('answers 400 for %s', async (_case, body, param) => {
    expectError(await api(gateway, 'POST', '/v1/api-keys', { body }), 400, 'invalid_request', { param });
  });

  it('answers 400 for an expiry in the past and for unknown fields', async () => {
    expectError(await api(gateway, 'POST', '/v1/api-keys', { body: { name: 'x', scopes: ['api_keys:read'], expires_at: '2020-01-01T00:00:00Z' } }), 400, 'invalid_expiry', {
      param: 'expires_at',
    });
    expectError(await api(gateway, 'POST', '/v1/api-keys', { body: { name: 'x', scopes: ['api_keys:read'], secret: 'mine' } }), 400, 'invalid_request', { message: /secret/ });
  });

  it('refuses keys without api_keys:write (403) and scopes the caller does not hold (403)', async () => {
    const reader = await newKey(gateway, { scopes: ['api_keys:read'] });
    expectError(await api(gateway, 'POST', '/v1/api-keys', { key: reader.key, body: { name: 'x', scopes: ['api_keys:read'] } }), 403, 'missing_scope');
    const writer = await newKey(gateway, { scopes: ['api_keys:write', 'api_keys:read'] });
    expectError(await api(gateway, 'POST', '/v1/api-keys', { key: writer.key, body: { name: 'x', scopes: ['workspaces:write'] } }), 403, 'scope_not_grantable', {
      param: 'scopes',
    });
    const narrower = await api<ApiKeyWithSecret>(gateway, 'POST', '/v1/api-keys', { key: writer.key, body: { name: 'x', scopes: ['api_keys:read'] } });
    expect(narrower.status).toBe(201);
    expectError(await api(gateway, 'POST', '/v1/api-keys', { key: null, body: { name: 'x', scopes: ['api_keys:read'] } }), 401, 'api_key_missing');
  });

  it('applies the workspace default and maximum expiry', async () => {
    const workspace = await newWorkspace(gateway, { api_key_settings: { default_expiry_days: 7, max_expiry_days: 30 } });
    const before = Date.now();
    const defaulted = await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read'] });
    const expiresIn = Date.parse(defaulted.expires_at as string) - before;
    expect(expiresIn).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(expiresIn).toBeLessThan(7 * 86_400_000 + 60_000);
    const tooLate = new Date(Date.now() + 31 * 86_400_000).toISOString();
    expectError(await api(gateway, 'POST', '/v1/api-keys', { body: { name: 'x', workspace_id: workspace.id, scopes: ['api_keys:read'], expires_at: tooLate } }), 400, 'expiry_too_late', {
      param: 'expires_at',
    });
    expectError(await api(gateway, 'POST', '/v1/api-keys', { body: { name: 'x', workspace_id: workspace.id, scopes: ['api_keys:read'], expires_at: null } }), 400, 'expiry_required', {
      param: 'expires_at',
    });
    const inRange = new Date(Date.now() + 20 * 86_400_000).toISOString();
    expect((await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read'], expires_at: inRange })).expires_at).toBe(inRange);
  });

  it('enforces the per-workspace maximum of active keys; revoking frees a slot', async () => {
    const workspace = await newWorkspace(gateway, { api_key_settings: { max_api_keys: 2 } });
    const first = await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read'] });
    await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read'] });
    expectError(await api(gateway, 'POST', '/v1/api-keys', { body: { name: 'third', workspace_id: workspace.id, scopes: ['api_keys:read'] } }), 409, 'api_key_limit_reached');
    expect((await api(gateway, 'DELETE', `/v1/api-keys/${first.id}`)).status).toBe(200);
    await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read'] });
    expect((await api<Workspace>(gateway, 'GET', `/v1/workspaces/${workspace.id}`)).body.active_api_keys).toBe(2);
  });

  it('creates user keys for oneself, and for others only as a workspace manager or admin', async () => {
    const workspace = await newWorkspace(gateway);
    const manager = await invite('manager@example.com', [{ workspace_id: workspace.id, role: 'manager' }]);
    const member = await invite('member@example.com', [{ workspace_id: workspace.id, role: 'member' }]);
    const colleague = await invite('colleague@example.com', [{ workspace_id: workspace.id, role: 'member' }]);
    const outsider = await invite('outsider@example.com', []);
    const scopes = ['api_keys:write', 'api_keys:read'];

    const managerKey = await newKey(gateway, { workspace_id: workspace.id, user_id: manager.id, scopes });
    expect(managerKey).toMatchObject({ type: 'user', user_id: manager.id });
    const forMember = await newKey(gateway, { user_id: member.id, scopes }, managerKey.key);
    expect(forMember).toMatchObject({ type: 'user', user_id: member.id, workspace_id: workspace.id });

    expectError(await api(gateway, 'POST', '/v1/api-keys', { key: forMember.key, body: { name: 'x', user_id: colleague.id, scopes } }), 403, 'user_key_not_allowed', {
      param: 'user_id',
    });
    const own = await api<ApiKeyWithSecret>(gateway, 'POST', '/v1/api-keys', { key: forMember.key, body: { name: 'mine', type: 'user', scopes: ['api_keys:read'] } });
    expect(own.body).toMatchObject({ type: 'user', user_id: member.id });

    const serviceKey = await newKey(gateway, { workspace_id: workspace.id, scopes });
    expectError(await api(gateway, 'POST', '/v1/api-keys', { key: serviceKey.key, body: { name: 'x', user_id: member.id, scopes } }), 403, 'user_key_not_allowed');
    expectError(await api(gateway, 'POST', '/v1/api-keys', { body: { name: 'x', workspace_id: workspace.id, user_id: outsider.id, scopes } }), 404, 'not_found', {
      param: 'user_id',
    });
    const byUser = await api<Page<ApiKey>>(gateway, 'GET', `/v1/api-keys?workspace_id=${workspace.id}&user_id=${member.id}`);
    expect(byUser.body.data.map((key) => key.id).sort()).toEqual([forMember.id, own.body.id].sort());
  });
});

describe('GET /v1/api-keys', () => {
  it('pages through the keys of a workspace with filters', async () => {
    const workspace = await newWorkspace(gateway);
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read'], name: `k${i}` })).id);
    await api(gateway, 'DELETE', `/v1/api-keys/${created[1]}`);
    const { items, pages } = await allPages<ApiKey>(gateway, `/v1/api-keys?workspace_id=${workspace.id}`);
    expect(pages).toBe(3);
    expect(items.map((key) => key.id)).toEqual(created);
    expect(items.every((key) => key.masked.includes('…') && !('key' in key))).toBe(true);
    const revoked = await allPages<ApiKey>(gateway, `/v1/api-keys?workspace_id=${workspace.id}&status=revoked`);
    expect(revoked.items.map((key) => key.id)).toEqual([created[1]]);
    const active = await allPages<ApiKey>(gateway, `/v1/api-keys?workspace_id=${workspace.id}&status=active`, {}, 3);
    expect(active.items.map((key) => key.id)).toEqual([created[0], ...created.slice(2)]);
  });

  it("keeps a second workspace's key out of the first workspace's keys", async () => {
    const first = await newWorkspace(gateway);
    const second = await newWorkspace(gateway);
    const firstKey = await newKey(gateway, { workspace_id: first.id, scopes: ['api_keys:read'] });
    const secondKey = await newKey(gateway, { workspace_id: second.id, scopes: ['api_keys:read', 'api_keys:write'] });
    const seen = await api<Page<ApiKey>>(gateway, 'GET', '/v1/api-keys?limit=100', { key: secondKey.key });
    expect(seen.body.data.map((key) => key.id)).toEqual([secondKey.id]);
    expectError(await api(gateway, 'GET', `/v1/api-keys?workspace_id=${first.id}`, { key: secondKey.key }), 404, 'not_found');
    expectError(await api(gateway, 'GET', `/v1/api-keys/${firstKey.id}`, { key: secondKey.key }), 404, 'not_found');
    expectError(await api(gateway, 'PATCH', `/v1/api-keys/${firstKey.id}`, { key: secondKey.key, body: { name: 'hijacked' } }), 404, 'not_found');
    expectError(await api(gateway, 'POST', `/v1/api-keys/${firstKey.id}/rotate`, { key: secondKey.key, body: {} }), 404, 'not_found');
    expectError(await api(gateway, 'DELETE', `/v1/api-keys/${firstKey.id}`, { key: secondKey.key }), 404, 'not_found');
    expectError(await api(gateway, 'POST', '/v1/api-keys', { key: secondKey.key, body: { name: 'x', workspace_id: first.id, scopes: ['api_keys:read'] } }), 404, 'not_found');
    // The first key is untouched and still works.
    expect((await api<ApiKey>(gateway, 'GET', `/v1/api-keys/${firstKey.id}`)).body).toMatchObject({ name: 'test key', status: 'active' });
    expect((await api(gateway, 'GET', '/v1/api-keys', { key: firstKey.key })).status).toBe(200);
    // Another organisation's admin sees nothing of ours.
    const other = await otherOrganisation();
    expectError(await api(gateway, 'GET', `/v1/api-keys/${firstKey.id}`, { key: other.adminKey }), 404, 'not_found');
  });

  it('answers 400 for bad filters and a bad limit, 403 without a read scope', async () => {
    expectError(await api(gateway, 'GET', '/v1/api-keys?status=sleeping'), 400, 'invalid_request', { param: 'status' });
    expectError(await api(gateway, 'GET', '/v1/api-keys?colour=red'), 400, 'invalid_request');
    expectError(await api(gateway, 'GET', '/v1/api-keys?limit=abc'), 400, 'invalid_limit', { param: 'limit' });
    expectError(await api(gateway, 'GET', `/v1/api-keys?kind=admin&workspace_id=${gateway.bootstrap.workspaceId}`), 400, 'invalid_request', { param: 'workspace_id' });
    const writer = await newKey(gateway, { scopes: ['completions:write'] });
    expectError(await api(gateway, 'GET', '/v1/api-keys', { key: writer.key }), 403, 'missing_scope');
    expectError(await api(gateway, 'GET', '/v1/api-keys/00000000-0000-0000-0000-000000000000'), 404, 'not_found');
  });
});

describe('PATCH /v1/api-keys/{id}', () => {
  it('changes name, scopes and expiry; a lost scope is refused at once', async () => {
    const key = await newKey(gateway, { scopes: ['api_keys:read', 'workspaces:read'] });
    expect((await api(gateway, 'GET', '/v1/api-keys', { key: key.key })).status).toBe(200);
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const updated = await api<ApiKey>(gateway, 'PATCH', `/v1/api-keys/${key.id}`, { body: { name: 'renamed', scopes: ['workspaces:read'], expires_at: expiresAt } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'renamed', scopes: ['workspaces:read'], expires_at: expiresAt, masked: key.masked });
    expectError(await api(gateway, 'GET', '/v1/api-keys', { key: key.key }), 403, 'missing_scope');
    expect((await api(gateway, 'GET', '/v1/workspaces', { key: key.key })).status).toBe(200);
    const cleared = await api<ApiKey>(gateway, 'PATCH', `/v1/api-keys/${key.id}`, { body: { expires_at: null } });
    expect(cleared.body.expires_at).toBeNull();
  });

  it('answers 400 for bad bodies, 403 for scopes the caller lacks, 409 for a revoked key', async () => {
    const key = await newKey(gateway, { scopes: ['api_keys:read'] });
    const path = `/v1/api-keys/${key.id}`;
    expectError(await api(gateway, 'PATCH', path, { body: {} }), 400, 'invalid_request');
    expectError(await api(gateway, 'PATCH', path, { body: { scopes: ['nope'] } }), 400, 'invalid_request', { param: 'scopes[0]' });
    expectError(await api(gateway, 'PATCH', path, { body: { kind: 'admin' } }), 400, 'invalid_request', { message: /kind/ });
    expectError(await api(gateway, 'PATCH', path, { body: { expires_at: '2001-01-01T00:00:00Z' } }), 400, 'invalid_expiry');
    const writer = await newKey(gateway, { scopes: ['api_keys:write'] });
    expectError(await api(gateway, 'PATCH', path, { key: writer.key, body: { scopes: ['users:write'] } }), 403, 'scope_not_grantable');
    await api(gateway, 'DELETE', path);
    expectError(await api(gateway, 'PATCH', path, { body: { name: 'again' } }), 409, 'api_key_not_active');
  });
});

describe('DELETE /v1/api-keys/{id}', () => {
  it('revokes a key: refused at once by the control plane and the gateway, and idempotent', async () => {
    const key = await newKey(gateway, { scopes: ['api_keys:read', 'completions:write'] });
    expect((await chat(key.key)).status).toBe(200);
    const revoked = await api<ApiKey>(gateway, 'DELETE', `/v1/api-keys/${key.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: key.id, status: 'revoked' });
    expect(revoked.body.revoked_at).not.toBeNull();
    const refused = await chat(key.key);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('api_key_revoked');
    expectError(await api(gateway, 'GET', '/v1/api-keys', { key: key.key }), 401, 'api_key_revoked');
    expect((await api<ApiKey>(gateway, 'DELETE', `/v1/api-keys/${key.id}`)).body.status).toBe('revoked');
  });

  it('needs api_keys:write', async () => {
    const key = await newKey(gateway, { scopes: ['api_keys:read'] });
    expectError(await api(gateway, 'DELETE', `/v1/api-keys/${key.id}`, { key: key.key }), 403, 'missing_scope');
  });
});

describe('POST /v1/api-keys/{id}/rotate', () => {
  it('issues a new secret under the same id; the old one works during the transition only', async () => {
    const key = await newKey(gateway, { scopes: ['api_keys:read'], rotation_policy: { period: 'custom', interval_days: 10 } });
    const scheduled = Date.parse(key.next_rotation_at as string) - Date.now();
    expect(scheduled).toBeGreaterThan(10 * 86_400_000 - 60_000);
    expect(key.rotation_due).toBe(false);

    const rotated = await api<ApiKeyWithSecret>(gateway, 'POST', `/v1/api-keys/${key.id}/rotate`, { body: { transition_period_ms: 3_600_000 } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.id).toBe(key.id);
    expect(rotated.body.key).not.toBe(key.key);
    expect(rotated.body.masked).not.toBe(key.masked);
    expect(rotated.body.last_rotated_at).not.toBeNull();
    expect(Date.parse(rotated.body.previous_key_expires_at as string) - Date.now()).toBeGreaterThan(3_500_000);
    expect(Date.parse(rotated.body.next_rotation_at as string)).toBeGreaterThanOrEqual(Date.parse(key.next_rotation_at as string));
    // Both secrets work during the transition; the list shows the key once, with the new mask.
    expect((await api(gateway, 'GET', '/v1/api-keys', { key: key.key })).status).toBe(200);
    expect((await api(gateway, 'GET', '/v1/api-keys', { key: rotated.body.key })).status).toBe(200);
    const listed = await allPages<ApiKey>(gateway, '/v1/api-keys', {}, 100);
    expect(listed.items.filter((item) => item.id === key.id).map((item) => item.masked)).toEqual([rotated.body.masked]);

    // Rotating again without a transition stops the secret it replaces at once.
    const again = await api<ApiKeyWithSecret>(gateway, 'POST', `/v1/api-keys/${key.id}/rotate`, { body: {} });
    expect(again.status).toBe(200);
    expectError(await api(gateway, 'GET', '/v1/api-keys', { key: rotated.body.key }), 401, 'api_key_expired');
    expect((await api(gateway, 'GET', '/v1/api-keys', { key: again.body.key })).status).toBe(200);

    // Revoking the key also stops the first secret, still inside its transition.
    expect((await api(gateway, 'GET', '/v1/api-keys', { key: key.key })).status).toBe(200);
    await api(gateway, 'DELETE', `/v1/api-keys/${key.id}`);
    expectError(await api(gateway, 'GET', '/v1/api-keys', { key: key.key }), 401, 'api_key_revoked');
    expectError(await api(gateway, 'GET', '/v1/api-keys', { key: again.body.key }), 401, 'api_key_revoked');
  });

  it('sets, changes and clears a rotation schedule by update', async () => {
    const key = await newKey(gateway, { scopes: ['api_keys:read'] });
    expect(key).toMatchObject({ rotation_policy: null, next_rotation_at: null, rotation_due: false });
    const weekly = await api<ApiKey>(gateway, 'PATCH', `/v1/api-keys/${key.id}`, { body: { rotation_policy: { period: 'weekly', transition_period_ms: 60_000 } } });
    expect(weekly.body.rotation_policy).toEqual({ period: 'weekly', transition_period_ms: 60_000 });
    expect(Math.abs(Date.parse(weekly.body.next_rotation_at as string) - (Date.now() + 7 * 86_400_000))).toBeLessThan(60_000);
    // The policy's transition applies when the rotate call names none.
    const rotated = await api<ApiKeyWithSecret>(gateway, 'POST', `/v1/api-keys/${key.id}/rotate`, { body: {} });
    expect(Date.parse(rotated.body.previous_key_expires_at as string) - Date.now()).toBeGreaterThan(30_000);
    expect((await api(gateway, 'GET', '/v1/api-keys', { key: key.key })).status).toBe(200);
    const cleared = await api<ApiKey>(gateway, 'PATCH', `/v1/api-keys/${key.id}`, { body: { rotation_policy: null } });
    expect(cleared.body).toMatchObject({ rotation_policy: null, next_rotation_at: null });
  });

  it('answers 400 for a bad transition, 409 for a revoked key, 403 without api_keys:write', async () => {
    const key = await newKey(gateway, { scopes: ['api_keys:read'] });
    const path = `/v1/api-keys/${key.id}/rotate`;
    expectError(await api(gateway, 'POST', path, { body: { transition_period_ms: -1 } }), 400, 'invalid_request', { param: 'transition_period_ms' });
    expectError(await api(gateway, 'POST', path, { body: { transition_period_ms: 604_800_001 } }), 400, 'invalid_request', { param: 'transition_period_ms' });
    expectError(await api(gateway, 'POST', path, { key: key.key, body: {} }), 403, 'missing_scope');
    await api(gateway, 'DELETE', `/v1/api-keys/${key.id}`);
    expectError(await api(gateway, 'POST', path, { body: {} }), 409, 'api_key_not_active');
  });
});

describe('expiry', () => {
  it('refuses an expired key at once, on the gateway and the control plane, before any worker runs', async () => {
    const expiresAt = new Date(Date.now() + 3_000).toISOString();
    const key = await newKey(gateway, { scopes: ['api_keys:read', 'completions:write'], expires_at: expiresAt });
    expect((await chat(key.key)).status).toBe(200);
    await waitUntilPast(expiresAt);
    const refused = await chat(key.key);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('api_key_expired');
    expectError(await api(gateway, 'GET', '/v1/api-keys', { key: key.key }), 401, 'api_key_expired');
    const shown = await api<ApiKey>(gateway, 'GET', `/v1/api-keys/${key.id}`);
    expect(shown.body.status).toBe('expired');
    const expiredList = await allPages<ApiKey>(gateway, '/v1/api-keys?status=expired', {}, 100);
    expect(expiredList.items.map((item) => item.id)).toContain(key.id);
  });

  it('keeps the expiry index right: keys enter it on creation, leave it when revoked, and the worker expires them', async () => {
    const repository = new ApiKeyRepository();
    const horizon = new Date(Date.now() + 10 * 86_400_000).toISOString();
    const inIndex = async () => (await repository.dueForExpiry(horizon, 1000)).map((record) => record.id);
    const expiring = await newKey(gateway, { scopes: ['api_keys:read'], expires_at: new Date(Date.now() + 86_400_000).toISOString() });
    const revoked = await newKey(gateway, { scopes: ['api_keys:read'], expires_at: new Date(Date.now() + 86_400_000).toISOString() });
    const neverExpires = await newKey(gateway, { scopes: ['api_keys:read'] });
    await api(gateway, 'DELETE', `/v1/api-keys/${revoked.id}`);
    expect(await inIndex()).toContain(expiring.id);
    expect(await inIndex()).not.toContain(revoked.id);
    expect(await inIndex()).not.toContain(neverExpires.id);
    const extended = await api<ApiKey>(gateway, 'PATCH', `/v1/api-keys/${expiring.id}`, { body: { expires_at: new Date(Date.now() + 20 * 86_400_000).toISOString() } });
    expect(extended.status).toBe(200);
    expect(await inIndex()).not.toContain(expiring.id);
    const later = await repository.dueForExpiry(new Date(Date.now() + 30 * 86_400_000).toISOString(), 1000);
    expect(later.filter((record) => record.id === expiring.id).map((record) => record.expires_at)).toEqual([extended.body.expires_at]);

    const shortLived = await newKey(gateway, { scopes: ['api_keys:read'], expires_at: new Date(Date.now() + 1_500).toISOString() });
    await waitUntilPast(shortLived.expires_at as string);
    expect(await expireDueApiKeys(new Date())).toBeGreaterThanOrEqual(1);
    expect((await repository.findByHash(hashApiKey(shortLived.key)))?.status).toBe('expired');
    expect(await inIndex()).not.toContain(shortLived.id);
    expect(await expireDueApiKeys(new Date())).toBe(0);
  });

  it('answers 405 for a method the collection does not have', async () => {
    expectError(await api(gateway, 'PUT', '/v1/api-keys'), 405, 'method_not_allowed');
  });
});
