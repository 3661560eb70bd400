import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, expectError, newKey, type ApiKey, type Page } from './identities-support.js';

// Settings are read once per process: this file runs the shared-secret (HS256) mode, without issuer/audience.
const SECRET = 'a-shared-secret-of-at-least-32-characters!';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ GW_JWT_SECRET: SECRET });
});
afterAll(async () => {
  await gateway?.close();
});

function sign(secret: string, claims: Record<string, unknown> = {}, alg = 'HS256'): Promise<string> {
  return new SignJWT({ sub: 'dashboard-user', organisation_id: gateway.bootstrap.organisationId, workspace_id: gateway.bootstrap.workspaceId, scope: 'read list', ...claims })
    .setProtectedHeader({ alg })
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(secret));
}

describe('JWT on control-plane routes (shared secret)', () => {
  it('reads with a token signed by the shared secret (HS256 and HS512)', async () => {
    const key = await newKey(gateway, { scopes: ['api_keys:read'] });
    for (const alg of ['HS256', 'HS512']) {
      const reply = await api<Page<ApiKey>>(gateway, 'GET', '/v1/api-keys?limit=100', { bearer: await sign(SECRET, {}, alg) });
      expect(reply.status).toBe(200);
      expect(reply.body.data.map((item) => item.id)).toContain(key.id);
    }
  });

  it('refuses writes with 403', async () => {
    expectError(await api(gateway, 'POST', '/v1/workspaces', { bearer: await sign(SECRET), body: { name: 'x' } }), 403, 'jwt_read_only');
  });

  it('refuses a token signed with another secret, an asymmetric token and an expired token with 401', async () => {
    expectError(await api(gateway, 'GET', '/v1/workspaces', { bearer: await sign('another-secret-that-is-also-32-chars-long') }), 401, 'jwt_invalid');
    const { privateKey } = await generateKeyPair('RS256');
    const rs256 = await new SignJWT({ sub: 'x', organisation_id: gateway.bootstrap.organisationId, workspace_id: gateway.bootstrap.workspaceId, scope: 'read' })
      .setProtectedHeader({ alg: 'RS256' })
      .setExpirationTime('5m')
      .sign(privateKey);
    expectError(await api(gateway, 'GET', '/v1/workspaces', { bearer: rs256 }), 401, 'jwt_invalid');
    const expired = await new SignJWT({ sub: 'x', organisation_id: gateway.bootstrap.organisationId, workspace_id: gateway.bootstrap.workspaceId, scope: 'read' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(SECRET));
    expectError(await api(gateway, 'GET', '/v1/workspaces', { bearer: expired }), 401, 'jwt_expired');
  });
});
