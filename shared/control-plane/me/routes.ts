import { isJwtPrincipal, type Principal } from '../../auth/principal.js';
import { SCOPES } from '../../auth/scopes.js';
import { jsonResponse } from '../../http/types.js';
import { UserRepository } from '../../store/user-repository.js';
import type { RouteRegistrar } from '../handler-types.js';
import type { PrincipalView } from './schemas.js';

/** GET /v1/me: any authenticated caller reads its own identity; a read of the caller itself, so not audited. */
export function registerMeRoutes(register: RouteRegistrar): void {
  register('GET', '/v1/me', async (call) => jsonResponse(200, await describePrincipal(call.principal)));
}

/** What the caller is and holds, never a secret (the key's hash and secret are not on the principal at all). */
export async function describePrincipal(principal: Principal, users = new UserRepository()): Promise<PrincipalView> {
  const jwt = isJwtPrincipal(principal);
  const allScopes = principal.kind === 'admin' && !jwt;
  const userKey = !jwt && principal.keyType === 'user' && principal.userId !== undefined;
  const membership = userKey ? await users.getMembership(principal.workspaceId, principal.userId!) : undefined;
  return {
    object: 'principal',
    kind: principal.kind === 'admin' ? 'organisation_admin' : 'workspace',
    type: jwt || principal.keyType === 'user' ? 'user' : 'service',
    auth_method: jwt ? 'jwt' : 'api_key',
    key_id: principal.keyId,
    user_id: principal.userId ?? null,
    organisation_id: principal.organisationId,
    workspace_id: principal.workspaceId,
    scopes: allScopes ? [...SCOPES] : [...principal.scopes].sort(),
    read_only: jwt,
    role: membership && membership.organisation_id === principal.organisationId ? membership.role : null,
    expires_at: principal.expiresAt ?? null,
  };
}
