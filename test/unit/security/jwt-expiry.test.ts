import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../../shared/auth/authentication-error.js';
import { JwtAuthenticator } from '../../../shared/auth/jwt.js';
import { parseSettings } from '../../../shared/settings.js';
import type { WorkspaceRecord, WorkspaceRepository } from '../../../shared/store/workspace-repository.js';

const SECRET = 'unit-test-secret-with-at-least-32-chars';
const workspaces = {
  getWorkspace: async (id: string): Promise<WorkspaceRecord | undefined> => ({ id, organisation_id: 'org-1', name: 'one', slug: 'one', created_at: '2026-01-01T00:00:00Z' }),
} as unknown as WorkspaceRepository;
const claims = { sub: 'u1', organisation_id: 'org-1', workspace_id: 'ws-1', scope: 'read' };
const neverExpiring = () => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));

describe('JWTs without exp', () => {
  it('are refused by default, filed under the organisation of the (verified) token', async () => {
    const error = await new JwtAuthenticator({ secret: SECRET, clockToleranceSeconds: 0 }, workspaces).authenticate(await neverExpiring()).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 'jwt_exp_required', caller: { method: 'jwt', organisationId: 'org-1' } });
  });

  it('are accepted only with GW_JWT_ALLOW_NO_EXP=ON', async () => {
    expect(parseSettings({}).GW_JWT_ALLOW_NO_EXP).toBe(false);
    expect(parseSettings({ GW_JWT_ALLOW_NO_EXP: 'on' }).GW_JWT_ALLOW_NO_EXP).toBe(true);
    const principal = await new JwtAuthenticator({ secret: SECRET, clockToleranceSeconds: 0, allowNoExp: true }, workspaces).authenticate(await neverExpiring());
    expect(principal).toMatchObject({ organisationId: 'org-1', expiresAt: undefined });
  });

  it('a bad signature names no organisation, whatever the token claims', async () => {
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode('another-secret-with-at-least-32-chars!!'));
    const error = await new JwtAuthenticator({ secret: SECRET, clockToleranceSeconds: 0 }, workspaces).authenticate(forged).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'jwt_invalid', caller: { method: 'jwt' } });
    expect((error as AuthenticationError).caller.organisationId).toBeUndefined();
  });
});
