import { virtualKeySecretName, type VirtualKeySecret } from '../virtual-key-repository.js';
import { SecretStoreError, type SecretStore } from './secret-store.js';

/** A virtual key's secret parts, read from the store; undefined when the store holds nothing for it. */
export async function readVirtualKeySecret(store: SecretStore, workspaceId: string, virtualKeyId: string): Promise<VirtualKeySecret | undefined> {
  const text = await store.get(virtualKeySecretName(workspaceId, virtualKeyId));
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as VirtualKeySecret;
  } catch {
    // Never quote the text: it is the credential.
    throw new SecretStoreError(`The stored secret of virtual key '${virtualKeyId}' is not a JSON object`, 'get');
  }
}

export async function writeVirtualKeySecret(store: SecretStore, workspaceId: string, virtualKeyId: string, secret: VirtualKeySecret): Promise<void> {
  await store.put(virtualKeySecretName(workspaceId, virtualKeyId), JSON.stringify(secret));
}

export async function deleteVirtualKeySecret(store: SecretStore, workspaceId: string, virtualKeyId: string): Promise<void> {
  await store.delete(virtualKeySecretName(workspaceId, virtualKeyId));
}
