import type { Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import { UserRepository } from '../../store/user-repository.js';

const MANAGING_ROLES = new Set(['admin', 'manager']);

/**
 * May the caller create a user key for `userId` in this workspace? The user must be a member of it; the
 * caller must be that user, an organisation admin key, or a key of a user who manages the workspace
 * (workspace role admin or manager). A service key that belongs to nobody may not act for a person.
 */
export async function requireMayActForUser(principal: Principal, workspaceId: string, userId: string, users = new UserRepository()): Promise<void> {
  const membership = await users.getMembership(workspaceId, userId);
  if (!membership || membership.organisation_id !== principal.organisationId) {
    throw new GatewayError(404, 'not_found', `No user with id '${userId}' in this workspace`, { param: 'user_id' });
  }
  if (userId === principal.userId || principal.kind === 'admin') return;
  const callerMembership = principal.userId ? await users.getMembership(workspaceId, principal.userId) : undefined;
  if (callerMembership && MANAGING_ROLES.has(callerMembership.role)) return;
  throw new GatewayError(403, 'user_key_not_allowed', 'Only workspace managers and admins can create API keys on behalf of another user', { param: 'user_id' });
}
