import { hasScope, type Principal } from '../auth/principal.js';
import type { Scope } from '../auth/scopes.js';
import { GatewayError } from '../http/errors.js';

export function requireScope(principal: Principal, scope: Scope): void {
  if (!hasScope(principal, scope)) {
    throw new GatewayError(403, 'missing_scope', `This API key lacks the ${scope} scope`);
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
