import type { ApiKeyKind } from '../store/api-key-repository.js';
import type { Scope } from './scopes.js';

/** Who is calling, as established by authentication. Everything downstream scopes its work by this. */
export interface Principal {
  keyId: string;
  kind: ApiKeyKind;
  organisationId: string;
  workspaceId: string;
  userId?: string;
  scopes: ReadonlySet<string>;
  /** ISO time after which the key stops working; checked on every request, cached or not. */
  expiresAt?: string;
}

export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.kind === 'admin' || principal.scopes.has(scope);
}
