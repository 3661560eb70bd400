import type { Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import { UserRepository } from '../../store/user-repository.js';
import { mayManageUser, USER_NOT_MANAGED } from '../privilege.js';

/**
 * May the caller create a user key for `userId` in this workspace? The user must be a member of it; the
 * caller must be allowed to manage that user (shared/control-plane/privilege.ts): that user itself, an
 * organisation admin key, or a key of a user who manages the workspace. A service key may not act for a person.
 */
export async function requireMayActForUser(principal: Principal, workspaceId: string, userId: string, users = new UserRepository()): Promise<void> {
  const membership = await users.getMembership(workspaceId, userId);
  if (!membership || membership.organisation_id !== principal.organisationId) {
    throw new GatewayError(404, 'not_found', `No user with id '${userId}' in this workspace`, { param: 'user_id' });
  }
  if (await mayManageUser(principal, workspaceId, userId, users)) return;
  throw new GatewayError(403, USER_NOT_MANAGED, 'Only workspace managers and admins can create API keys on behalf of another user', { param: 'user_id' });
}
