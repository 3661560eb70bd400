import { randomBytes } from 'node:crypto';
import { readConfigSecret, storeConfigSecret } from '../../store/config-secrets.js';
import type { DeploymentConfig } from '../../store/deployment-repository.js';
import { secretStore } from '../../store/secrets/secret-store-factory.js';
import type { SecretStore } from '../../store/secrets/secret-store.js';
import { refuseKeptCredentialMoves, sealConfig } from '../configs/sealing.js';

/**
 * Inline deployment configs keep credentials the way saved configs do (store/config-secrets.ts): cut out into
 * the secret store on save, masked in the stored record and in every read, put back only by the gateway. A
 * field sent back exactly as a read showed it keeps the credential it masks.
 */
export async function sealDeploymentConfig(
  config: DeploymentConfig,
  at: { organisationId: string; deploymentId: string },
  previous?: DeploymentConfig,
  store: SecretStore = secretStore(),
): Promise<DeploymentConfig> {
  if (config.kind !== 'inline') return config;
  if (previous?.kind === 'inline') refuseKeptCredentialMoves(config.inline, { config: previous.inline, ref: previous.secret_ref });
  const old = previous?.kind === 'inline' && previous.secret_ref ? { ref: previous.secret_ref, values: await readConfigSecret(store, previous.secret_ref) } : undefined;
  const sealed = sealConfig(config.inline, old);
  if (sealed.fields.length === 0) return { kind: 'inline', inline: config.inline };
  const name = `deployment-secrets/${at.organisationId}/${at.deploymentId}/${randomBytes(6).toString('hex')}`;
  const ref = await storeConfigSecret(store, name, sealed);
  return { kind: 'inline', inline: sealed.config as Record<string, unknown>, ...(ref ? { secret_ref: ref } : {}) };
}

/** Removes a replaced or deleted deployment's secret; a missing one is not an error. */
export async function forgetDeploymentSecret(config: DeploymentConfig | undefined, store: SecretStore = secretStore()): Promise<void> {
  if (config?.kind === 'inline' && config.secret_ref) await store.delete(config.secret_ref.name);
}
