import { actingUserOf, hasScope, isJwtPrincipal, type Principal } from '../auth/principal.js';
import type { Scope } from '../auth/scopes.js';
import { GatewayError } from '../http/errors.js';
import type { ApiKeyRecord } from '../store/api-key-repository.js';
import { UserRepository } from '../store/user-repository.js';
import { keySeesUsage, usageViewerFor } from './analytics/visibility.js';

/**
 * The one privilege rule of the control plane (docs/security.md). Inside a workspace, a caller may create,
 * update, rotate or revoke an API key only when
 *   1. every scope of that key (before and after the change) is a scope the caller holds itself, and
 *   2. for a user key of someone else, the caller may manage that user: an organisation admin key, or a key of a
 *      user whose role in the key's workspace is manager or admin.
 * Organisation admin keys hold every scope; a JWT never writes. Budget and API-key limits of a workspace are
 * organisation-admin settings. Every refusal is a 403 whose code names the rule that refused it.
 */

/** Rule 1 refused: the key holds (or would get) scopes the caller lacks. */
export const SCOPES_NOT_SUBSET = 'scope_not_grantable';
/** Rule 2 refused: a user key of somebody the caller may not manage. */
export const USER_NOT_MANAGED = 'user_key_not_allowed';
/** Budget and key limits of a workspace belong to the organisation's admins. */
export const ORGANISATION_ADMIN_SETTING = 'organisation_admin_setting';

const MANAGING_ROLES = new Set(['admin', 'manager']);

/** An organisation admin API key (not a token): it holds every scope and may manage every user. */
function isAdminKey(principal: Principal): boolean {
  return principal.kind === 'admin' && !isJwtPrincipal(principal);
}

/** Rule 1 for a scope list: a caller can hand out, or act on a key holding, only scopes it holds itself. */
export function requireScopesWithinCaller(principal: Principal, scopes: readonly string[], acting: 'grant' | 'manage' = 'grant'): void {
  const missing = scopes.filter((scope) => !hasScope(principal, scope as Scope));
  if (missing.length === 0) return;
  const message =
    acting === 'grant'
      ? `A key cannot grant scopes it does not hold itself: ${missing.join(', ')}`
      : `This key cannot change, rotate or revoke a key that holds scopes it does not hold itself: ${missing.join(', ')}`;
  throw new GatewayError(403, SCOPES_NOT_SUBSET, message, { param: acting === 'grant' ? 'scopes' : null });
}

/** Rule 2: may the caller act for `userId` in `workspaceId`? Itself always; others as admin key or workspace manager. */
export async function mayManageUser(principal: Principal, workspaceId: string, userId: string, users = new UserRepository()): Promise<boolean> {
  if (userId === principal.userId || isAdminKey(principal)) return true;
  if (!principal.userId || isJwtPrincipal(principal)) return false;
  const membership = await users.getMembership(workspaceId, principal.userId);
  return membership !== undefined && membership.organisation_id === principal.organisationId && MANAGING_ROLES.has(membership.role);
}

/**
 * The rule for an existing key (update, rotate, revoke): its scopes within the caller's, and its user (if any)
 * manageable by the caller. `newScopes` are the scopes an update would give it. Nothing is written before this
 * passes, so a refused call leaves the key exactly as it was.
 */
export async function requireMayManageKey(principal: Principal, target: ApiKeyRecord, newScopes?: readonly string[], users = new UserRepository()): Promise<void> {
  if (target.kind === 'admin' && !isAdminKey(principal)) {
    throw new GatewayError(403, SCOPES_NOT_SUBSET, 'Only an organisation admin key can change, rotate or revoke an organisation admin key');
  }
  requireScopesWithinCaller(principal, target.scopes, 'manage');
  if (newScopes) requireScopesWithinCaller(principal, newScopes, 'grant');
  if (target.type === 'user' && target.user_id && !(await mayManageUser(principal, target.workspace_id, target.user_id, users))) {
    throw new GatewayError(403, USER_NOT_MANAGED, "Only the key's own user, a workspace manager or admin, or an organisation admin key can change, rotate or revoke another user's key");
  }
}

/** A key's secret would go to a caller that sees less (usage and cost) than the key. */
export const KEY_SEES_MORE = 'key_sees_more_than_caller';

/**
 * Visibility follows the key's maker, so a secret must never go to a hand that sees less than the key does:
 * rotating a key hands out its new secret, and so does making a user key for someone else. A member kept from
 * usage (membersViewAnalytics: false) cannot rotate a service key an admin made, or make a key for a user who sees
 * usage, and so read cost through it. Callers that see the workspace's usage pass at once (one read, cached).
 */
export async function requireSeesAsMuchAs(principal: Principal, key: Pick<ApiKeyRecord, 'kind' | 'organisation_id' | 'workspace_id' | 'user_id' | 'made_by_user_id'>): Promise<void> {
  if (isAdminKey(principal) || (await usageViewerFor(principal, key.workspace_id)).seesUsage) return;
  if (!(await keySeesUsage(key))) return;
  throw new GatewayError(
    403,
    KEY_SEES_MORE,
    "This key would hand out a key that sees usage and cost it cannot see itself (the workspace's membersViewAnalytics / managersViewAnalytics): ask a workspace admin",
  );
}

/** Settings of what a workspace's members may see belong to its admins. */
export const WORKSPACE_ADMIN_SETTING = 'workspace_admin_setting';

/**
 * Settings that govern what members may see (`membersViewAnalytics`, `managersViewAnalytics`, and
 * `log_request_bodies`, which decides whether colleagues' prompts are kept for log readers) may be changed only
 * by an organisation admin key or a key acting for a user who is an admin of that workspace (its own user key, or a
 * service key such a user made): a member's key with `workspaces:write` cannot widen its own view.
 */
export async function requireWorkspaceAdminSetting(principal: Principal, workspaceId: string, fields: readonly string[], users = new UserRepository()): Promise<void> {
  if (fields.length === 0 || isAdminKey(principal)) return;
  const userId = isJwtPrincipal(principal) ? undefined : actingUserOf(principal);
  const membership = userId === undefined ? undefined : await users.getMembership(workspaceId, userId);
  if (membership?.role === 'admin' && membership.organisation_id === principal.organisationId) return;
  throw new GatewayError(403, WORKSPACE_ADMIN_SETTING, `settings.${fields.join(' and settings.')} of a workspace can be changed only by an organisation admin key or a workspace admin`, {
    param: `settings.${fields[0]}`,
  });
}

/** Budget and API-key limits may be set only by an organisation admin key: a workspace key cannot lift its own limits. */
export function requireOrganisationAdminSetting(principal: Principal, fields: readonly string[]): void {
  if (fields.length === 0 || isAdminKey(principal)) return;
  throw new GatewayError(403, ORGANISATION_ADMIN_SETTING, `${fields.join(' and ')} of a workspace can be changed only with an organisation admin key`, { param: fields[0] });
}
