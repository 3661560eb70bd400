import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrincipalView } from '../../../shared/control-plane/me/schemas.js';
import { SCOPES } from '../../../shared/auth/scopes.js';
import { hashApiKey } from '../../../shared/auth/api-key-secrets.js';
import { ApiKeyRepository } from '../../../shared/store/api-key-repository.js';
import { AuditLogRepository } from '../../../shared/store/audit-log-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, expectError, newKey, newWorkspace, type Reply } from './identities-support.js';
import { readOnlyJwt, TEST_JWT_SECRET } from './jwt-support.js';

let gateway: TestGateway;
/** Every secret a test here handed out: none may appear in any answer of GET /v1/me. */
const secrets: string[] = [];

beforeAll(async () => {
  gateway = await startTestGateway({ GW_JWT_SECRET: TEST_JWT_SECRET });
  secrets.push(gateway.apiKey, hashApiKey(gateway.apiKey), TEST_JWT_SECRET);
});
afterAll(async () => {
  await gateway?.close();
});

async function me(options: Parameters<typeof api>[3] = {}): Promise<Reply<PrincipalView>> {
  const reply = await api<PrincipalView>(gateway, 'GET', '/v1/me', options);
  const text = JSON.stringify(reply.body);
  for (const secret of secrets) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/key_hash|"key"|secret/);
  return reply;
}

describe('GET /v1/me', () => {
  it('an organisation admin key: every scope, its default workspace, not read-only', async () => {
    const reply = await me();
    expect(reply.status).toBe(200);
    const adminKey = (await new ApiKeyRepository().findByHash(hashApiKey(gateway.apiKey)))!;
    expect(reply.body).toEqual({
      object: 'principal',
      kind: 'organisation_admin',
      type: 'service',
      auth_method: 'api_key',
      key_id: adminKey.id,
      user_id: null,
      organisation_id: gateway.bootstrap.organisationId,
      workspace_id: gateway.bootstrap.workspaceId,
      scopes: [...SCOPES],
      read_only: false,
      role: null,
      expires_at: null,
    });
  });

  it('a workspace key: exactly its own scopes, sorted', async () => {
    const workspace = await newWorkspace(gateway);
    const key = await newKey(gateway, { workspace_id: workspace.id, scopes: ['configs:write', 'configs:read', 'completions:write'] });
    secrets.push(key.key);
    const reply = await me({ key: key.key });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      kind: 'workspace',
      type: 'service',
      key_id: key.id,
      workspace_id: workspace.id,
      scopes: ['completions:write', 'configs:read', 'configs:write'],
      read_only: false,
      role: null,
    });
  });

  it('a user key: its user and the user’s role in the workspace', async () => {
    const workspace = await newWorkspace(gateway);
    const invited = await api<{ id: string }>(gateway, 'POST', '/v1/admin/users/invites', { body: { email: 'me-manager@example.com', workspaces: [{ workspace_id: workspace.id, role: 'manager' }] } });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const key = await newKey(gateway, { workspace_id: workspace.id, user_id: invited.body.id, scopes: ['api_keys:read'] });
    secrets.push(key.key);
    const reply = await me({ key: key.key });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ kind: 'workspace', type: 'user', key_id: key.id, user_id: invited.body.id, workspace_id: workspace.id, scopes: ['api_keys:read'], role: 'manager' });
  });

  it('a JWT: read-only, with the read and list scopes its grants expand to, even with role admin', async () => {
    const token = await readOnlyJwt(gateway, { scope: 'read' });
    secrets.push(token);
    const reply = await me({ bearer: token });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ kind: 'organisation_admin', type: 'user', auth_method: 'jwt', key_id: 'jwt:dashboard-user', user_id: 'dashboard-user', read_only: true, role: null });
    expect(reply.body.scopes.length).toBeGreaterThan(0);
    expect(reply.body.scopes.every((scope) => scope.endsWith(':read'))).toBe(true);
    expect(reply.body.expires_at).not.toBeNull();
  });

  it('no key → 401; a revoked key → 401', async () => {
    expectError(await api(gateway, 'GET', '/v1/me', { key: null }), 401, 'api_key_missing');
    const key = await newKey(gateway, { scopes: ['configs:read'] });
    expect((await api(gateway, 'DELETE', `/v1/api-keys/${key.id}`)).status).toBe(200);
    expectError(await api(gateway, 'GET', '/v1/me', { key: key.key }), 401, 'api_key_revoked');
  });

  it('is not audited: reading oneself writes no audit entry', async () => {
    const key = await newKey(gateway, { scopes: ['configs:read'] });
    expect((await me({ key: key.key })).status).toBe(200);
    const events = await new AuditLogRepository().list({ organisationId: gateway.bootstrap.organisationId }, { actor_id: key.id }, 100);
    expect(events.items).toEqual([]);
  });
});
