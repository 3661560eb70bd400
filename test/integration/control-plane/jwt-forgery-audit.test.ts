import { SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../../shared/observability/logger.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, expectError } from './identities-support.js';

/**
 * JWT failures that name no trustworthy organisation — `alg: none`, a signature by another key — were filed
 * nowhere an operator looks (expired and missing-exp tokens are audit events of their organisation). Each is now a
 * warning in gw's own log with what the token claimed, never the token. Class: forged-token failures unaudited.
 */
const SECRET = 'a-shared-secret-of-at-least-32-characters!';
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ GW_JWT_SECRET: SECRET });
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
