import { SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AuditLog } from '../../../shared/control-plane/audit-logs/schemas.js';
import { logger } from '../../../shared/observability/logger.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { allPages, api, expectError } from './identities-support.js';

/**
 * JWT failures that name no trustworthy organisation — `alg: none`, a signature by another key — were filed
 * nowhere an operator looks (expired and missing-exp tokens are audit events of their organisation). Each is now a
 * warning in gw's own log with what the token claimed, never the token; so is a malformed one. A token that verifies
 * but names another issuer or audience is an audit event of its organisation, as an expired one is. Class: JWT
 * failures unaudited.
 */
const SECRET = 'a-shared-secret-of-at-least-32-characters!';
const ISSUER = 'https://issuer.example';
const AUDIENCE = 'gw-control-plane';
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ GW_JWT_SECRET: SECRET, GW_JWT_ISSUER: ISSUER, GW_JWT_AUDIENCE: AUDIENCE });
});
afterAll(async () => {
  await gateway?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const claims = () => ({ sub: 'mallory', organisation_id: gateway.bootstrap.organisationId, scope: 'read list', exp: Math.floor(Date.now() / 1000) + 300 });
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('forged JWTs are recorded where an operator sees them', () => {
  it('logs alg:none and a bad signature as warnings naming the claims, never the token', async () => {
    const warn = vi.spyOn(logger, 'warn');
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`;
    const foreign = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('another-secret-that-is-also-32-chars-long'));
    for (const [token, alg] of [[unsigned, 'none'], [foreign, 'HS256']]) {
      warn.mockClear();
      expectError(await api(gateway, 'GET', '/v1/workspaces', { bearer: token }), 401, 'jwt_invalid');
      const lines = warn.mock.calls.filter(([message]) => String(message).includes('signature does not verify'));
      expect(lines).toHaveLength(1);
      expect(lines[0][1]).toMatchObject({ code: 'jwt_invalid', token_alg: alg, claimed_organisation_id: gateway.bootstrap.organisationId, claimed_sub: 'mallory', path: '/v1/workspaces' });
      expect(JSON.stringify(lines[0])).not.toContain(token.split('.')[1]);
    }
  });
});

describe('other JWT failures are recorded too, without the token', () => {
  it('logs malformed tokens (not a JWT, undecodable parts) as warnings in gw’s own log', async () => {
    const warn = vi.spyOn(logger, 'warn');
    for (const token of ['not.a.jwt', `${b64({ alg: 'HS256' })}.%%%.sig`, 'eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.c2ln']) {
      warn.mockClear();
      expectError(await api(gateway, 'GET', '/v1/workspaces', { bearer: token }), 401, 'jwt_invalid');
      const lines = warn.mock.calls.filter(([message]) => String(message).startsWith('authentication failed'));
      expect(lines, token).toHaveLength(1);
      expect(lines[0][1]).toMatchObject({ code: 'jwt_invalid', path: '/v1/workspaces' });
      expect(JSON.stringify(lines[0])).not.toContain(token);
    }
  });

  it('files a wrong issuer or audience under the organisation’s audit log, as an expired token is', async () => {
    const signed = (sub: string, issuer: string, audience: string) =>
      new SignJWT({ ...claims(), sub }).setProtectedHeader({ alg: 'HS256' }).setIssuer(issuer).setAudience(audience).sign(new TextEncoder().encode(SECRET));
    for (const [sub, token] of [['wrong-issuer', await signed('wrong-issuer', 'https://evil.example', AUDIENCE)], ['wrong-audience', await signed('wrong-audience', ISSUER, 'another-service')]] as const) {
      expectError(await api(gateway, 'GET', '/v1/workspaces', { bearer: token }), 401, 'jwt_claims_invalid');
      const failures = (await allPages<AuditLog>(gateway, `/v1/audit-logs?action=authentication.failed&actor_id=jwt:${sub}`, {}, 100)).items;
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({ organisation_id: gateway.bootstrap.organisationId, actor: { type: 'jwt', id: `jwt:${sub}` }, details: { method: 'jwt', code: 'jwt_claims_invalid' } });
      expect(JSON.stringify(failures)).not.toContain(token.split('.')[2]);
    }
  });
});
