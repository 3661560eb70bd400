import type { ApiKeyKind } from '../store/api-key-repository.js';
import type { Scope } from './scopes.js';

/** How the caller proved who it is. */
export type AuthMethod = 'api_key' | 'jwt';

/** Who is calling, as established by authentication. Everything downstream scopes its work by this. */
export interface Principal {
  /** The API key id; for a JWT caller `jwt:<sub>`, so logs and audit events still name someone. */
  keyId: string;
  kind: ApiKeyKind;
  organisationId: string;
  workspaceId: string;
  userId?: string;
  /** The API key's type: `service` (an automation) or `user` (a person, `userId`). Absent for a JWT. */
  keyType?: 'service' | 'user';
  scopes: ReadonlySet<string>;
  /** ISO time after which the key stops working; checked on every request, cached or not. */
  expiresAt?: string;
  /** A service key made by a user's key: that user, whose role decides what the key may see (api-key-repository.ts). */
  madeByUserId?: string;
  /** Absent means `api_key` (the gateway only knows API keys). */
  authMethod?: AuthMethod;
}

/** The person whose workspace role decides what this caller may see: its own user, or the maker of its service key. */
export function actingUserOf(principal: Principal): string | undefined {
  return principal.userId ?? principal.madeByUserId;
}

export function isJwtPrincipal(principal: Principal): boolean {
  return principal.authMethod === 'jwt';
}

/**
 * Admin API keys hold every scope. A JWT never does, whatever its role: it only holds the read/list scopes its
 * `read` and `list` grants were expanded to.
 */
export function hasScope(principal: Principal, scope: Scope): boolean {
  if (principal.kind === 'admin' && !isJwtPrincipal(principal)) return true;
  return principal.scopes.has(scope);
}
