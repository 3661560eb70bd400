import { recordAwsOperation } from '../recording/aws-operation-recorder.js';
import type { SecretStore } from './secret-store.js';

/**
 * Test-only: a SecretStore that records, for each call, the Secrets Manager actions SecretsManagerSecretStore
 * issues for it (put: CreateSecret, then PutSecretValue when the secret exists; get: GetSecretValue; delete:
 * DeleteSecret) on the full name it would use, then delegates. The tests run the local file store, so this is
 * how their secret traffic reaches the grant check.
 */
export function recordingSecretStore(inner: SecretStore, prefix: string): SecretStore {
  const record = (action: string, name: string) => recordAwsOperation({ service: 'secretsmanager', action, resource: `secret/${prefix}${name}` });
  return {
    async put(name, value) {
      record('CreateSecret', name);
      if ((await inner.get(name).catch(() => undefined)) !== undefined) record('PutSecretValue', name);
      await inner.put(name, value);
    },
    async get(name) {
      record('GetSecretValue', name);
      return inner.get(name);
    },
    async delete(name) {
      record('DeleteSecret', name);
      await inner.delete(name);
    },
  };
}
