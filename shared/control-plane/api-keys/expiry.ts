import { ApiKeyRepository } from '../../store/api-key-repository.js';
import { WorkspaceRepository } from '../../store/workspace-repository.js';
import { recordAuditEvent } from '../../audit/record.js';
import { forgetSecrets } from './key-access.js';

/**
 * One pass of the expiry worker: moves active secrets whose `expires_at` has passed to `expired`, which takes
 * them out of the expiry index, gives the workspace its key slot back and audits the change. The gateway has
 * refused these keys since the moment they expired; this pass only makes the stored state say so.
 * Returns how many secrets this pass expired (a concurrent pass never counts the same one twice).
 */
export async function expireDueApiKeys(now = new Date(), batchSize = 100): Promise<number> {
  const keys = new ApiKeyRepository();
  const workspaces = new WorkspaceRepository();
  const nowIso = now.toISOString();
  let expired = 0;
  for (;;) {
    const due = await keys.dueForExpiry(nowIso, batchSize);
    let changedThisBatch = 0;
    for (const record of due) {
      if (!(await keys.deactivateSecret(record.key_hash, 'expired', nowIso))) continue;
      changedThisBatch++;
      forgetSecrets([record.key_hash]);
      // A rotation's previous secret never held a slot of its own.
      if (!record.previous_secret && record.kind === 'workspace') await workspaces.releaseApiKeySlot(record.workspace_id);
      await recordAuditEvent({
        action: 'api_key.expire',
        resource_type: 'api_key',
        resource_id: record.id,
        outcome: 'success',
        organisation_id: record.organisation_id,
        workspace_id: record.workspace_id,
        actor: { type: 'system', id: 'expire-api-keys' },
        details: { expires_at: record.expires_at, previous_secret: record.previous_secret === true },
      });
    }
    expired += changedThisBatch;
    // The index is read again from the start: what was expired has left it. Stop when nothing more changes.
    if (due.length < batchSize || changedThisBatch === 0) return expired;
  }
}
