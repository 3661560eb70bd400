import type { ScimIdentityRecord } from '../../store/scim-identity-repository.js';
import { UserRepository } from '../../store/user-repository.js';
import { revokeWorkspaceKeys } from '../api-keys/bulk-revoke.js';

/**
 * What a workspace identity grants: a membership of its workspace for the organisation user it is linked to, while
 * it is active and in the workspace's SCIM group. A pending identity grants nothing. Called after every change
 * with the identity as it was and as it is, so each path (SCIM user changes, group membership, an organisation
 * admin's link) moves access the same way; only the identity's own workspace is ever touched.
 */
export async function applyIdentityAccess(before: ScimIdentityRecord | undefined, after: ScimIdentityRecord, users = new UserRepository()): Promise<void> {
  const had = grants(before);
  const has = grants(after);
  if (had === has) return;
  const userId = (has ? after.user_id : before?.user_id) as string;
  const user = await users.get(after.organisation_id, userId);
  if (!user) return;
  const now = new Date().toISOString();
  const member = user.workspaces.some((membership) => membership.workspace_id === after.workspace_id);
  if (has && !member) {
    await users.update(user, { workspaces: [...user.workspaces, { workspace_id: after.workspace_id, role: 'member' }] }, now);
  } else if (!has && member) {
    // Deprovisioned in this workspace: the membership goes, and with it the user's keys here (not elsewhere).
    await users.removeMembership(user, after.workspace_id, now);
    await revokeWorkspaceKeys(after.workspace_id, (key) => key.user_id === user.id);
  }
}

function grants(identity: ScimIdentityRecord | undefined): boolean {
  return identity !== undefined && identity.user_id !== undefined && identity.active && identity.in_group;
}
