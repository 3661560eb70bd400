import { settings } from '../../settings.js';
import { LocalFileSecretStore } from './local-file-secret-store.js';
import type { SecretStore } from './secret-store.js';
import { SecretsManagerSecretStore } from './secrets-manager-secret-store.js';

let store: SecretStore | undefined;

/** The process's SecretStore, chosen once by GW_SECRET_STORE. */
export function secretStore(): SecretStore {
  if (store) return store;
  const current = settings();
  store =
    current.GW_SECRET_STORE === 'local-file'
      ? new LocalFileSecretStore({ directory: current.GW_LOCAL_SECRET_DIR, key: current.GW_LOCAL_SECRET_KEY })
      : new SecretsManagerSecretStore({ region: current.AWS_REGION, endpoint: current.GW_SECRETS_MANAGER_ENDPOINT, kmsKeyId: current.GW_SECRETS_KMS_KEY_ID });
  return store;
}
