import { settings } from '../../settings.js';
import { isRecordingAwsOperations } from '../recording/aws-operation-recorder.js';
import { loadOnce } from '../../cache/load-once.js';
import { secretNamePrefix, type SecretStore } from './secret-store.js';

let store: SecretStore | undefined;

/** The process's SecretStore, chosen once by GW_SECRET_STORE. */
export function secretStore(): SecretStore {
  if (store) return store;
  const current = settings();
  const prefix = secretNamePrefix(current.GW_SECRET_NAME_PREFIX);
  if (current.GW_SECRET_STORE === 'local-file') {
    const local = () => import('./local-file-secret-store.js').then(({ LocalFileSecretStore }) => new LocalFileSecretStore({ directory: current.GW_LOCAL_SECRET_DIR, key: current.GW_LOCAL_SECRET_KEY }));
    // Test-only: the real Secrets Manager client against a stand-in keeping the secrets in the local store, so the
    // recorder on the client sees every Secrets Manager call the code makes (the grant check); never when deployed.
    store = isRecordingAwsOperations()
      ? storeLoadedOnFirstUse(async () => (await import('../recording/stand-ins/stores-over-stand-ins.js')).secretsManagerStoreOver(await local(), prefix, current.AWS_REGION))
      : storeLoadedOnFirstUse(local);
  } else {
    const options = { region: current.AWS_REGION, endpoint: current.GW_SECRETS_MANAGER_ENDPOINT, kmsKeyId: current.GW_SECRETS_KMS_KEY_ID, prefix };
    store = storeLoadedOnFirstUse(() => import('./secrets-manager-secret-store.js').then(({ SecretsManagerSecretStore }) => new SecretsManagerSecretStore(options)));
  }
  return store;
}

/**
 * A SecretStore whose implementation is imported by its first call: a secret store (the Secrets Manager client, or
 * the local file store) is needed by the first virtual key, saved-config secret or MCP credential a process reads,
 * which a plain request never does, so it stays out of the gateway's cold start.
 */
function storeLoadedOnFirstUse(load: () => Promise<SecretStore>): SecretStore {
  const loaded = loadOnce(load);
  return {
    put: async (name, value) => (await loaded()).put(name, value),
    get: async (name) => (await loaded()).get(name),
    delete: async (name) => (await loaded()).delete(name),
  };
}
