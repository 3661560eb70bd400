import { ApiKeyAuthenticator } from '../../auth/authenticate.js';
import type { Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import type { ApiKeyPointer, ApiKeyRecord, ApiKeyRepository } from '../../store/api-key-repository.js';

export interface VisibleApiKey {
  pointer: ApiKeyPointer;
  record: ApiKeyRecord;
}

/**
 * A key the caller may see, by id: an admin caller sees every key of its organisation; a workspace caller
 * only the workspace keys of its own workspace. Anything else is the same 404, whether it exists or not.
 */
export async function findVisibleApiKey(principal: Principal, keyId: string, repository: ApiKeyRepository): Promise<VisibleApiKey> {
  const found = await repository.findById(keyId);
  const visible =
    found !== undefined &&
    found.pointer.organisation_id === principal.organisationId &&
    (principal.kind === 'admin' || (found.pointer.kind === 'workspace' && found.pointer.workspace_id === principal.workspaceId));
  if (!visible) throw new GatewayError(404, 'not_found', `No API key with id '${keyId}'`);
  return found as VisibleApiKey;
}

/** Every secret of a key that may still authenticate: the current one and those in a rotation's transition. */
export function secretHashesOf(pointer: ApiKeyPointer): string[] {
  return [pointer.key_hash, ...pointer.previous_key_hashes];
}

/**
 * Drops the cached lookups of these secrets in every authenticator of this process (gateway and control plane
 * share one locally). Other Lambda instances pick the change up within GW_AUTH_CACHE_TTL_MS.
 */
export function forgetSecrets(hashes: Iterable<string>): void {
  for (const hash of hashes) ApiKeyAuthenticator.forgetEverywhere(hash);
}
