import { ApiKeyRepository, type ApiKeyRecord } from '../../store/api-key-repository.js';
import { WorkspaceRepository } from '../../store/workspace-repository.js';
import { forgetSecrets, secretHashesOf } from './key-access.js';

/**
 * Revokes every workspace key of a workspace that matches `which` (all of them by default), with every secret
 * still in a rotation's transition. Used when a workspace is force-deleted or a user leaves it.
 * Returns the ids of the keys this call revoked.
 */
export async function revokeWorkspaceKeys(workspaceId: string, which: (record: ApiKeyRecord) => boolean = () => true): Promise<string[]> {
  const keys = new ApiKeyRepository();
  const workspaces = new WorkspaceRepository();
  const now = new Date().toISOString();
  const revoked: string[] = [];
  for (const record of await keys.allOfWorkspace(workspaceId)) {
    if (record.kind !== 'workspace' || !which(record)) continue;
    const pointer = await keys.findPointer(record.id);
    const hashes = pointer ? secretHashesOf(pointer) : [record.key_hash];
    let changed = false;
    for (const hash of hashes) {
      const deactivated = await keys.deactivateSecret(hash, 'revoked', now);
      if (hash === record.key_hash) changed = deactivated;
    }
    if (changed) {
      await workspaces.releaseApiKeySlot(workspaceId);
      revoked.push(record.id);
    }
    forgetSecrets(hashes);
  }
  return revoked;
}
