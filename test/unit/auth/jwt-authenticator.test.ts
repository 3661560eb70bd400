import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../../shared/auth/authentication-error.js';
import { JwtAuthenticator } from '../../../shared/auth/jwt.js';
import type { WorkspaceRecord, WorkspaceRepository } from '../../../shared/store/workspace-repository.js';

const SECRET = 'unit-test-secret-with-at-least-32-chars';
const workspaces = {
  getWorkspace: async (id: string): Promise<WorkspaceRecord | undefined> =>
    id === 'ws-1' ? { id, organisation_id: 'org-1', name: 'one', slug: 'one', created_at: '2026-01-01T00:00:00Z' } : undefined,
} as unknown as WorkspaceRepository;

function authenticator(options: { issuer?: string; audience?: string } = {}): JwtAuthenticator {
  return new JwtAuthenticator({ secret: SECRET, clockToleranceSeconds: 0, ...options }, workspaces);
}

async function sign(claims: Record<string, unknown>, expiresAt = Math.floor(Date.now() / 1000) + 300): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(expiresAt).sign(new TextEncoder().encode(SECRET));
}

async function failure(promise: Promise<unknown>): Promise<AuthenticationError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AuthenticationError);
  return error as AuthenticationError;
}

describe('JwtAuthenticator', () => {
  it('turns verified claims into a read-only principal', async () => {
    const exp = Math.floor(Date.now() / 1000) + 300;
    const principal = await authenticator().authenticate(await sign({ sub: 'u1', organisation_id: 'org-1', workspace_id: 'ws-1', scope: 'read list write' }, exp));
    expect(principal).toMatchObject({ keyId: 'jwt:u1', userId: 'u1', kind: 'workspace', organisationId: 'org-1', workspaceId: 'ws-1', authMethod: 'jwt' });
    expect(principal.expiresAt).toBe(new Date(exp * 1000).toISOString());
    expect(principal.scopes.has('workspaces:read')).toBe(true);
    expect(principal.scopes.has('workspaces:list')).toBe(true);
    expect([...principal.scopes].some((scope) => scope.endsWith(':write'))).toBe(false);
  });

  it('reads the admin role and scopes given as an array', async () => {
    const principal = await authenticator().authenticate(await sign({ sub: 'u1', organisation_id: 'org-1', workspace_id: 'ws-1', role: 'admin', scopes: ['list'] }));
    expect(principal.kind).toBe('admin');
    expect(principal.scopes.has('api_keys:list')).toBe(true);
    expect(principal.scopes.has('api_keys:read')).toBe(false);
  });

  it('names the organisation of a signed token whose claims fail, and nobody for a bad signature', async () => {
    const expired = await failure(authenticator().authenticate(await sign({ sub: 'u1', organisation_id: 'org-1', workspace_id: 'ws-1' }, Math.floor(Date.now() / 1000) - 60)));
    expect(expired.code).toBe('jwt_expired');
    expect(expired.caller).toEqual({ method: 'jwt', organisationId: 'org-1', workspaceId: 'ws-1', actorId: 'jwt:u1' });
    const forged = await new SignJWT({ sub: 'u1', organisation_id: 'org-1', workspace_id: 'ws-1' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('a-different-secret-of-32-characters-x'));
    const invalid = await failure(authenticator().authenticate(forged));
    expect(invalid.code).toBe('jwt_invalid');
    expect(invalid.caller).toEqual({ method: 'jwt' });
  });

  it('checks issuer and audience when configured, and the workspace against the store', async () => {
    const token = await sign({ sub: 'u1', organisation_id: 'org-1', workspace_id: 'ws-1', iss: 'a', aud: 'b' });
    expect((await failure(authenticator({ issuer: 'other' }).authenticate(token))).code).toBe('jwt_claims_invalid');
    expect((await failure(authenticator({ audience: 'other' }).authenticate(token))).code).toBe('jwt_claims_invalid');
    expect((await authenticator({ issuer: 'a', audience: 'b' }).authenticate(token)).workspaceId).toBe('ws-1');
    const wrongOrganisation = await sign({ sub: 'u1', organisation_id: 'org-2', workspace_id: 'ws-1' });
    expect((await failure(authenticator().authenticate(wrongOrganisation))).code).toBe('jwt_claims_invalid');
  });

  it('refuses every token when no key material is configured', async () => {
    const unconfigured = new JwtAuthenticator({ clockToleranceSeconds: 0 }, workspaces);
    expect(unconfigured.configured).toBe(false);
    expect((await failure(unconfigured.authenticate(await sign({ sub: 'u1' })))).code).toBe('jwt_not_configured');
  });
});
