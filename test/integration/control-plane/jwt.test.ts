import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditLog } from '../../../shared/control-plane/audit-logs/schemas.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { allPages, api, expectError, newKey, newWorkspace, otherOrganisation, type ApiKey, type Page, type Workspace } from './identities-support.js';

const ISSUER = 'https://idp.example.test';
const AUDIENCE = 'gw-control-plane';

let gateway: TestGateway;
let jwksServer: Server;
let jwksRequests = 0;
let signingKey: CryptoKey;
let strangerKey: CryptoKey;
let ecSigningKey: CryptoKey;

/** The identity provider's JWKS endpoint: a real HTTP server on loopback. */
async function startJwksServer(keys: JWK[]): Promise<string> {
  jwksServer = createServer((request, response) => {
    jwksRequests++;
    if (request.url !== '/.well-known/jwks.json') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
}

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  signingKey = pair.privateKey;
  strangerKey = (await generateKeyPair('RS256')).privateKey;
  const ecPair = await generateKeyPair('ES256', { extractable: true });
  ecSigningKey = ecPair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' };
  const ecJwk = { ...(await exportJWK(ecPair.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' };
  const jwksUrl = await startJwksServer([jwk, ecJwk]);
  gateway = await startTestGateway({ GW_JWT_JWKS_URL: jwksUrl, GW_JWT_ISSUER: ISSUER, GW_JWT_AUDIENCE: AUDIENCE });
});
afterAll(async () => {
  await gateway?.close();
  await new Promise<void>((resolve) => (jwksServer ? jwksServer.close(() => resolve()) : resolve()));
});

interface TokenOptions {
  key?: CryptoKey;
  kid?: string;
  issuer?: string;
  audience?: string;
  /** Seconds from now; negative for an expired token. */
  expiresIn?: number;
}

async function token(claims: Record<string, unknown>, options: TokenOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? 'rsa-1' })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt(now - 120)
    .setExpirationTime(now + (options.expiresIn ?? 300))
    .sign(options.key ?? signingKey);
}

function claimsFor(workspaceId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { sub: 'user-42', organisation_id: gateway.bootstrap.organisationId, workspace_id: workspaceId, scope: 'read list', ...extra };
}

describe('JWT on control-plane routes (JWKS)', () => {
  it('reads with a valid token sent as Authorization: Bearer', async () => {
    const workspace = await newWorkspace(gateway);
    const key = await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read'] });
    const bearer = await token(claimsFor(workspace.id));
    const own = await api<Workspace>(gateway, 'GET', `/v1/workspaces/${workspace.id}`, { bearer });
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(workspace.id);
    const keys = await api<Page<ApiKey>>(gateway, 'GET', '/v1/api-keys', { bearer });
    expect(keys.body.data.map((item) => item.id)).toEqual([key.id]);
    expect((await api<ApiKey>(gateway, 'GET', `/v1/api-keys/${key.id}`, { bearer })).status).toBe(200);
    expect(jwksRequests).toBeGreaterThan(0);
  });

  it('accepts an ES256 token signed by the other key of the set, and no ES256 key outside it', async () => {
    const es256 = (key: CryptoKey) =>
      new SignJWT(claimsFor(gateway.bootstrap.workspaceId))
        .setProtectedHeader({ alg: 'ES256', kid: 'ec-1' })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setExpirationTime('5m')
        .sign(key);
    expect((await api(gateway, 'GET', '/v1/workspaces', { bearer: await es256(ecSigningKey) })).status).toBe(200);
    const stranger = (await generateKeyPair('ES256')).privateKey;
    expectError(await api(gateway, 'GET', '/v1/workspaces', { bearer: await es256(stranger) }), 401, 'jwt_invalid');
  });

  it('refuses every change with 403, whatever scopes the token claims, and records it', async () => {
    const workspace = await newWorkspace(gateway);
    const bearer = await token(claimsFor(workspace.id, { scope: 'read list api_keys:write workspaces:write', role: 'admin' }));
    expectError(await api(gateway, 'POST', '/v1/api-keys', { bearer, body: { name: 'x', scopes: ['api_keys:read'] } }), 403, 'jwt_read_only');
    expectError(await api(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { bearer, body: { name: 'x' } }), 403, 'jwt_read_only');
    expectError(await api(gateway, 'DELETE', `/v1/workspaces/${workspace.id}`, { bearer }), 403, 'jwt_read_only');
    expectError(await api(gateway, 'POST', '/v1/admin/users/invites', { bearer, body: { email: 'x@example.com' } }), 403, 'jwt_read_only');
    const denied = (await allPages<AuditLog>(gateway, '/v1/audit-logs?action=authorization.denied', {}, 100)).items;
    expect(denied.filter((event) => event.actor.id === 'jwt:user-42' && event.actor.type === 'jwt').length).toBeGreaterThanOrEqual(4);
    expect((await api<Workspace>(gateway, 'GET', `/v1/workspaces/${workspace.id}`)).body.name).toBe(workspace.name);
  });

  it('honours only read and list: other scopes in the token grant nothing', async () => {
    const writeOnly = await token(claimsFor(gateway.bootstrap.workspaceId, { scope: 'api_keys:read workspaces:read write' }));
    expectError(await api(gateway, 'GET', '/v1/api-keys', { bearer: writeOnly }), 403, 'missing_scope', { message: /token/ });
    const listOnly = await token(claimsFor(gateway.bootstrap.workspaceId, { scope: undefined, scopes: ['list'] }));
    expect((await api(gateway, 'GET', '/v1/api-keys', { bearer: listOnly })).status).toBe(200);
    expect((await api(gateway, 'GET', '/v1/workspaces', { bearer: listOnly })).status).toBe(200);
    expectError(await api(gateway, 'GET', `/v1/workspaces/${gateway.bootstrap.workspaceId}`, { bearer: listOnly }), 403, 'missing_scope');
    const readOnly = await token(claimsFor(gateway.bootstrap.workspaceId, { scope: 'read' }));
    expect((await api(gateway, 'GET', `/v1/workspaces/${gateway.bootstrap.workspaceId}`, { bearer: readOnly })).status).toBe(200);
  });

  it("keeps a workspace token out of another workspace's resources (404)", async () => {
    const first = await newWorkspace(gateway);
    const second = await newWorkspace(gateway);
    const firstKey = await newKey(gateway, { workspace_id: first.id, scopes: ['api_keys:read'] });
    const bearer = await token(claimsFor(second.id));
    expectError(await api(gateway, 'GET', `/v1/workspaces/${first.id}`, { bearer }), 404, 'not_found');
    expectError(await api(gateway, 'GET', `/v1/api-keys/${firstKey.id}`, { bearer }), 404, 'not_found');
    expectError(await api(gateway, 'GET', `/v1/api-keys?workspace_id=${first.id}`, { bearer }), 404, 'not_found');
    expectError(await api(gateway, 'GET', '/v1/admin/users', { bearer }), 403, 'admin_required');
    const listed = await api<Page<Workspace>>(gateway, 'GET', '/v1/workspaces', { bearer });
    expect(listed.body.data.map((workspace) => workspace.id)).toEqual([second.id]);
  });

  it('lets an admin token read every workspace of its organisation and the users', async () => {
    const workspace = await newWorkspace(gateway);
    const bearer = await token(claimsFor(gateway.bootstrap.workspaceId, { role: 'admin' }));
    expect((await api(gateway, 'GET', `/v1/workspaces/${workspace.id}`, { bearer })).status).toBe(200);
    expect((await api(gateway, 'GET', '/v1/admin/users', { bearer })).status).toBe(200);
    expect((await api(gateway, 'GET', '/v1/audit-logs', { bearer })).status).toBe(200);
    const other = await otherOrganisation();
    expectError(await api(gateway, 'GET', `/v1/workspaces/${other.workspaceId}`, { bearer }), 404, 'not_found');
  });

  it.each([
    ['an expired token', { expiresIn: -600 }, {}, 'jwt_expired'],
    ['a token from another issuer', { issuer: 'https://evil.example' }, {}, 'jwt_claims_invalid'],
    ['a token for another audience', { audience: 'someone-else' }, {}, 'jwt_claims_invalid'],
    ['a token without workspace_id', {}, { workspace_id: undefined }, 'jwt_claims_invalid'],
    ['a token without sub', {}, { sub: undefined }, 'jwt_claims_invalid'],
    ['a token naming an unknown workspace', {}, { workspace_id: 'no-such-workspace' }, 'jwt_claims_invalid'],
  ])('refuses %s with 401', async (_case, options: TokenOptions, claims: Record<string, unknown>, code) => {
    const bearer = await token(claimsFor(gateway.bootstrap.workspaceId, claims), options);
    expectError(await api(gateway, 'GET', '/v1/workspaces', { bearer }), 401, code);
  });

  it('refuses a token signed by an unknown key, a garbled token and a workspace of another organisation', async () => {
    expectError(await api(gateway, 'GET', '/v1/workspaces', { bearer: await token(claimsFor(gateway.bootstrap.workspaceId), { key: strangerKey }) }), 401, 'jwt_invalid');
    expectError(await api(gateway, 'GET', '/v1/workspaces', { bearer: 'not.a.jwt' }), 401, 'jwt_invalid');
    const other = await otherOrganisation();
    const mixed = await token(claimsFor(other.workspaceId));
    expectError(await api(gateway, 'GET', '/v1/workspaces', { bearer: mixed }), 401, 'jwt_claims_invalid');
  });

  it('records authentication failures of signed tokens under their organisation', async () => {
    const bearer = await token(claimsFor(gateway.bootstrap.workspaceId, { sub: 'expired-user' }), { expiresIn: -600 });
    expectError(await api(gateway, 'GET', '/v1/workspaces', { bearer }), 401, 'jwt_expired');
    const failures = (await allPages<AuditLog>(gateway, '/v1/audit-logs?action=authentication.failed&actor_id=jwt:expired-user', {}, 100)).items;
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      outcome: 'failure',
      organisation_id: gateway.bootstrap.organisationId,
      actor: { type: 'jwt', id: 'jwt:expired-user' },
      details: { method: 'jwt', code: 'jwt_expired' },
    });
    expect(JSON.stringify(failures)).not.toContain(bearer);
  });

  it('prefers x-gw-api-key when both are sent', async () => {
    const key = await newKey(gateway, { scopes: ['workspaces:read'] });
    const reply = await api(gateway, 'GET', '/v1/workspaces', { key: key.key, bearer: 'not.a.jwt' });
    expect(reply.status).toBe(200);
    const bad = await api(gateway, 'GET', '/v1/workspaces', { key: 'gwk_unknown_key_1234567890', bearer: await token(claimsFor(gateway.bootstrap.workspaceId)) });
    expectError(bad, 401, 'api_key_invalid');
  });
});
