import { hasScope, isJwtPrincipal, type Principal } from '../auth/principal.js';
import { listScopeOf, type Scope } from '../auth/scopes.js';
import { GatewayError } from '../http/errors.js';

export function requireScope(principal: Principal, scope: Scope): void {
  if (!hasScope(principal, scope)) {
    const what = isJwtPrincipal(principal) ? 'This token (JWTs carry only read and list access)' : 'This API key';
    throw new GatewayError(403, 'missing_scope', `${what} lacks the ${scope} scope`);
  }
}

/** For list routes: `<resource>:read` or its `<resource>:list` companion (what a JWT's `list` grant gives). */
export function requireListScope(principal: Principal, readScope: Scope): void {
  const listScope = listScopeOf(readScope);
  if (listScope && hasScope(principal, listScope)) return;
  requireScope(principal, readScope);
}

/** Organisation-level operations (creating workspaces, managing users) need an organisation admin key or token. */
export function requireOrganisationAdmin(principal: Principal, operation: string): void {
  if (principal.kind !== 'admin') {
    throw new GatewayError(403, 'admin_required', `${operation} needs an organisation admin key; this key is confined to its workspace`);
  }
}

/** 404, never 403, for another workspace's resource: its existence must not leak. */
export function notFound(resource: string, id: string): GatewayError {
  return new GatewayError(404, 'not_found', `No ${resource} with id '${id}' in this workspace`);
}

/**
 * Which workspace a call acts on. Workspace keys act on their own workspace only; organisation admin keys may
 * name another workspace of their organisation (the caller checks that it belongs to it).
 */
export function workspaceOf(principal: Principal, requested?: string): string {
  if (requested === undefined || requested === principal.workspaceId) return principal.workspaceId;
  if (principal.kind === 'admin') return requested;
  throw new GatewayError(404, 'not_found', `No workspace with id '${requested}'`);
}
