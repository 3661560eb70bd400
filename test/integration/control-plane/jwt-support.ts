import { SignJWT } from 'jose';
import type { TestGateway } from '../../support/gateway.js';

/** The shared HMAC secret test files pass as GW_JWT_SECRET when they also check that a JWT cannot write. */
export const TEST_JWT_SECRET = 'a-shared-secret-for-h8-tests-of-32-plus-characters';

/** A `read list` JWT of the bootstrap organisation and workspace, signed with TEST_JWT_SECRET. */
export function readOnlyJwt(gateway: TestGateway, claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ sub: 'dashboard-user', organisation_id: gateway.bootstrap.organisationId, workspace_id: gateway.bootstrap.workspaceId, scope: 'read list', role: 'admin', ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));
}
