import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../shared/auth/api-key-secrets.js';
import type { User } from '../../../shared/control-plane/users/schemas.js';
import { ApiKeyRepository } from '../../../shared/store/api-key-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, expectError, newKey, newWorkspace, type ApiKey, type ApiKeyWithSecret, type Workspace } from '../control-plane/identities-support.js';

/**
 * The one privilege rule (shared/control-plane/privilege.ts), attempted through HTTP with real keys of each kind
 * and role. Every escalation must answer 403 with the rule's code and leave the target key exactly as it was.
 */
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

async function invite(email: string, workspaceId: string, role: string): Promise<User> {
  const reply = await api<User>(gateway, 'POST', '/v1/admin/users/invites', { body: { email, workspaces: [{ workspace_id: workspaceId, role }] } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

/** Everything stored about a key (every secret record), read straight from the table: the "before" and "after". */
async function storedKey(id: string): Promise<unknown> {
  const found = await new ApiKeyRepository().findById(id);
  expect(found).toBeDefined();
  const secrets = await Promise.all([found!.pointer.key_hash, ...found!.pointer.previous_key_hashes].map((hash) => new ApiKeyRepository().findByHash(hash)));
  return { pointer: found!.pointer, secrets };
}

type Attempt = 'rotate' | 'update' | 'revoke' | 'widen';

function attempt(kind: Attempt, targetId: string, callerKey: string) {
  const path = `/v1/api-keys/${targetId}`;
  if (kind === 'rotate') return api(gateway, 'POST', `${path}/rotate`, { key: callerKey, body: {} });
  if (kind === 'revoke') return api(gateway, 'DELETE', path, { key: callerKey });
  if (kind === 'update') return api(gateway, 'PATCH', path, { key: callerKey, body: { name: 'taken over' } });
  return api(gateway, 'PATCH', path, { key: callerKey, body: { scopes: ['api_keys:write', 'configs:write'] } });
}

/** Runs an escalation attempt and checks the 403 code and that nothing about the target changed. */
async function expectRefused(kind: Attempt, target: ApiKeyWithSecret, callerKey: string, code: string): Promise<void> {
  const before = await storedKey(target.id);
  const reply = await attempt(kind, target.id, callerKey);
  expectError(reply, 403, code);
  expect(JSON.stringify(reply.body)).not.toContain('gwk_');
  expect(await storedKey(target.id)).toEqual(before);
  // The target still works with its old secret.
  expect((await api(gateway, 'GET', `/v1/api-keys/${target.id}`, { key: target.key })).status).toBe(200);
}

describe('a key holding fewer scopes cannot act on a key holding more', () => {
  it.each<Attempt>(['rotate', 'update', 'revoke', 'widen'])('%s → 403 scope_not_grantable, target unchanged', async (kind) => {
    const workspace = await newWorkspace(gateway);
    const strong = await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read', 'api_keys:write', 'configs:write', 'workspaces:write'] });
    const weak = await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:write', 'api_keys:read'] });
    await expectRefused(kind, strong, weak.key, 'scope_not_grantable');
  });

  it('a key may still rotate, update and revoke keys whose scopes it holds (itself included)', async () => {
    const workspace = await newWorkspace(gateway);
    const manager = await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read', 'api_keys:write', 'configs:read'] });
    const narrow = await newKey(gateway, { workspace_id: workspace.id, scopes: ['configs:read'] });
    const rotated = await api<ApiKeyWithSecret>(gateway, 'POST', `/v1/api-keys/${narrow.id}/rotate`, { key: manager.key, body: {} });
    expect(rotated.status).toBe(200);
    expect(rotated.body.key).toMatch(/^gwk_/);
    const renamed = await api<ApiKey>(gateway, 'PATCH', `/v1/api-keys/${narrow.id}`, { key: manager.key, body: { name: 'renamed' } });
    expect(renamed.body).toMatchObject({ name: 'renamed', scopes: ['configs:read'] });
    expect((await api<ApiKey>(gateway, 'DELETE', `/v1/api-keys/${narrow.id}`, { key: manager.key })).body.status).toBe('revoked');
    const self = await api<ApiKeyWithSecret>(gateway, 'POST', `/v1/api-keys/${manager.id}/rotate`, { key: manager.key, body: {} });
    expect(self.status).toBe(200);
  });

  it('an update cannot add a scope the caller lacks, even to a weaker key', async () => {
    const workspace = await newWorkspace(gateway);
    const caller = await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read', 'api_keys:write'] });
    const target = await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read'] });
    const before = await storedKey(target.id);
    expectError(await api(gateway, 'PATCH', `/v1/api-keys/${target.id}`, { key: caller.key, body: { scopes: ['api_keys:read', 'completions:write'] } }), 403, 'scope_not_grantable');
    expect(await storedKey(target.id)).toEqual(before);
  });

  it('refuses 200 concurrent rotations of a stronger key, and the key keeps its one secret', async () => {
    const workspace = await newWorkspace(gateway);
    const strong = await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read', 'api_keys:write', 'logs:read'] });
    const weak = await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:write'] });
    const before = await storedKey(strong.id);
    const replies = await Promise.all(Array.from({ length: 200 }, () => attempt('rotate', strong.id, weak.key)));
    expect(replies.map((reply) => reply.status)).toEqual(Array(200).fill(403));
    expect(await storedKey(strong.id)).toEqual(before);
  });
});

describe('user keys: only their user, a workspace manager/admin or an admin key may act on them', () => {
  it("a member's user key cannot take over a manager's key, nor a colleague's", async () => {
    const workspace = await newWorkspace(gateway);
    const scopes = ['api_keys:read', 'api_keys:write'];
    const manager = await invite(`m-${workspace.id}@example.com`, workspace.id, 'manager');
    const member = await invite(`a-${workspace.id}@example.com`, workspace.id, 'member');
    const colleague = await invite(`b-${workspace.id}@example.com`, workspace.id, 'member');
    const managerKey = await newKey(gateway, { workspace_id: workspace.id, user_id: manager.id, scopes });
    const memberKey = await newKey(gateway, { workspace_id: workspace.id, user_id: member.id, scopes });
    const colleagueKey = await newKey(gateway, { workspace_id: workspace.id, user_id: colleague.id, scopes });
    for (const kind of ['rotate', 'update', 'revoke'] as const) {
      await expectRefused(kind, managerKey, memberKey.key, 'user_key_not_allowed');
      await expectRefused(kind, colleagueKey, memberKey.key, 'user_key_not_allowed');
    }
    // A service key holding the same scopes is nobody: it cannot manage a person's key either.
    const service = await newKey(gateway, { workspace_id: workspace.id, scopes });
    await expectRefused('rotate', memberKey, service.key, 'user_key_not_allowed');
  });

  it('the manager may rotate a member key; the member may rotate its own; an admin key may rotate any', async () => {
    const workspace = await newWorkspace(gateway);
    const scopes = ['api_keys:read', 'api_keys:write'];
    const manager = await invite(`m2-${workspace.id}@example.com`, workspace.id, 'manager');
    const member = await invite(`a2-${workspace.id}@example.com`, workspace.id, 'member');
    const managerKey = await newKey(gateway, { workspace_id: workspace.id, user_id: manager.id, scopes });
    const memberKey = await newKey(gateway, { workspace_id: workspace.id, user_id: member.id, scopes });
    const byManager = await api<ApiKeyWithSecret>(gateway, 'POST', `/v1/api-keys/${memberKey.id}/rotate`, { key: managerKey.key, body: { transition_period_ms: 60_000 } });
    expect(byManager.status, JSON.stringify(byManager.body)).toBe(200);
    const byItself = await api<ApiKeyWithSecret>(gateway, 'POST', `/v1/api-keys/${memberKey.id}/rotate`, { key: byManager.body.key, body: {} });
    expect(byItself.status, JSON.stringify(byItself.body)).toBe(200);
    const byAdmin = await api<ApiKeyWithSecret>(gateway, 'POST', `/v1/api-keys/${managerKey.id}/rotate`, { body: {} });
    expect(byAdmin.status).toBe(200);
  });
});

describe('workspace budget and key limits are organisation-admin settings', () => {
  it.each([
    ['budget.credit_limit', { budget: { credit_limit: 1_000_000 } }],
    ['budget.periodic_reset', { budget: { periodic_reset: 'weekly' } }],
    ['api_key_settings.max_api_keys', { api_key_settings: { max_api_keys: 10_000 } }],
    ['api_key_settings.max_expiry_days', { api_key_settings: { max_expiry_days: 3650 } }],
  ])('a workspace key with workspaces:write cannot raise its own %s', async (_field, body) => {
    const workspace = await newWorkspace(gateway, { budget: { credit_limit: 5 }, api_key_settings: { max_api_keys: 3, max_expiry_days: 30 } });
    const key = await newKey(gateway, { workspace_id: workspace.id, scopes: ['workspaces:read', 'workspaces:write'] });
    const before = (await api<Workspace>(gateway, 'GET', `/v1/workspaces/${workspace.id}`)).body;
    expectError(await api(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { key: key.key, body }), 403, 'organisation_admin_setting');
    const after = (await api<Workspace>(gateway, 'GET', `/v1/workspaces/${workspace.id}`)).body;
    expect(after).toEqual(before);
  });

  it('the workspace key may still rename its workspace; the admin key may change the limits', async () => {
    const workspace = await newWorkspace(gateway, { budget: { credit_limit: 5 } });
    const key = await newKey(gateway, { workspace_id: workspace.id, scopes: ['workspaces:read', 'workspaces:write'] });
    const renamed = await api<Workspace>(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { key: key.key, body: { name: 'renamed by its key' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('renamed by its key');
    const raised = await api<Workspace>(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { budget: { credit_limit: 50 } } });
    expect(raised.body.budget.credit_limit).toBe(50);
  });
});

describe('refused attempts leave no usable trace', () => {
  it('a refused rotation does not leak the hash or a new secret of the target', async () => {
    const workspace = await newWorkspace(gateway);
    const strong = await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read', 'api_keys:write', 'audit_logs:read'] });
    const weak = await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:write'] });
    const reply = await attempt('rotate', strong.id, weak.key);
    expect(JSON.stringify(reply.body)).not.toContain(hashApiKey(strong.key));
    expectError(reply, 403, 'scope_not_grantable', { message: /audit_logs:read/ });
  });
});
