import { describe, expect, it } from 'vitest';
import { hasScope, type Principal } from '../../../shared/auth/principal.js';
import { isScope, listScopeOf, SCOPE_DESCRIPTIONS, SCOPES, scopesGrantedByJwt } from '../../../shared/auth/scopes.js';

const principal = (overrides: Partial<Principal>): Principal => ({
  keyId: 'k',
  kind: 'workspace',
  organisationId: 'o',
  workspaceId: 'w',
  scopes: new Set<string>(),
  ...overrides,
});

describe('scopes', () => {
  it('describes every scope and names each one resource:action', () => {
    expect(SCOPES.length).toBe(Object.keys(SCOPE_DESCRIPTIONS).length);
    // `scim` is the one bare scope name (SCIM 2.0 provisioning as a whole).
    for (const scope of SCOPES) expect(scope).toMatch(/^([a-z_]+:[a-z]+|scim)$/);
    expect(SCOPES).toEqual(expect.arrayContaining(['completions:write', 'prompts:render', 'policies:write', 'virtual_keys:read', 'deployments:read']));
  });

  it('turns a JWT read grant into every :read scope and list into every :list scope, never a write', () => {
    const read = scopesGrantedByJwt(['read']);
    expect([...read].every((scope) => scope.endsWith(':read'))).toBe(true);
    expect(read.has('api_keys:read')).toBe(true);
    const list = scopesGrantedByJwt(['list']);
    expect([...list].every((scope) => scope.endsWith(':list'))).toBe(true);
    expect(list.has('deployments:list')).toBe(true);
    expect(scopesGrantedByJwt(['write', 'api_keys:write', 'admin', 'prompts:render']).size).toBe(0);
  });

  it('pairs a read scope with its list scope where one exists', () => {
    expect(listScopeOf('api_keys:read')).toBe('api_keys:list');
    expect(listScopeOf('logs:read')).toBeUndefined();
    expect(listScopeOf('api_keys:write')).toBeUndefined();
    expect(isScope('api_keys:list')).toBe(true);
    expect(isScope('toString')).toBe(false);
  });
});

describe('hasScope', () => {
  it('gives an admin API key every scope', () => {
    expect(hasScope(principal({ kind: 'admin' }), 'users:write')).toBe(true);
  });

  it('gives a JWT only the scopes it was granted, even with the admin role', () => {
    const token = principal({ kind: 'admin', authMethod: 'jwt', scopes: scopesGrantedByJwt(['read']) });
    expect(hasScope(token, 'users:read')).toBe(true);
    expect(hasScope(token, 'users:write')).toBe(false);
    expect(hasScope(token, 'users:list')).toBe(false);
  });

  it('gives a workspace key exactly its scopes', () => {
    const key = principal({ scopes: new Set(['api_keys:read']) });
    expect(hasScope(key, 'api_keys:read')).toBe(true);
    expect(hasScope(key, 'api_keys:write')).toBe(false);
  });
});
