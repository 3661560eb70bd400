import { credentialFieldsOf, type JsonPath } from '../../gateway/config/credential-fields.js';
import { configSecretName, readConfigSecret, setAt, storeConfigSecret, type ConfigSecretRef } from '../../store/config-secrets.js';
import type { ConfigRepository, SavedConfigRecord } from '../../store/config-repository.js';
import type { SecretStore } from '../../store/secrets/secret-store.js';
import { refuseTreeEndpointMoves } from './tree-endpoints.js';

/**
 * The control plane's half of credentials at rest (store/config-secrets.ts): cutting them out of a config on
 * save, and migrating configs saved in plaintext before that on their first read.
 */
export interface SealedConfig {
  /** The config to store and show: every credential replaced by its masked form. */
  config: unknown;
  fields: ConfigSecretRef['fields'];
  values: string[];
}

const SHORT_CREDENTIAL = 16;
const BARE_MASK = '********';

/**
 * What a read shows instead of a credential: a fixed run of stars and its last four characters, or only the
 * stars for a short value or a service-account file (whose tail is JSON punctuation, not an identifier).
 */
export function maskCredential(field: string, value: string): string {
  if (field === 'vertex_service_account_json' || value.length < SHORT_CREDENTIAL) return BARE_MASK;
  return `********${value.slice(-4)}`;
}

/**
 * Cuts the credentials out of `config`. `previous` is the version being replaced: a field sent back exactly as
 * a read showed it (its mask, at the same path) keeps the previous credential, so read → edit → save works.
 */
export function sealConfig(config: unknown, previous?: { ref: ConfigSecretRef; values: string[] }): SealedConfig {
  const sealed = structuredClone(config);
  const fields: ConfigSecretRef['fields'] = [];
  const values: string[] = [];
  for (const { path, field, value } of credentialFieldsOf(config)) {
    const index = previous ? keptIndex(previous.ref, path, value) : -1;
    const credential = index >= 0 ? previous!.values[index] : value;
    const masked = maskCredential(field, credential);
    setAt(sealed, path, masked);
    fields.push({ path: [...path], masked });
    values.push(credential);
  }
  return { config: sealed, fields, values };
}

/**
 * Refuses a new config that keeps a stored credential (its mask at the same path) but sends it to an endpoint
 * the previous config could not (tree-endpoints.ts). Runs before anything is read or stored.
 */
export function refuseKeptCredentialMoves(config: unknown, previous: { config: unknown; ref?: ConfigSecretRef } | undefined): void {
  const ref = previous?.ref;
  if (!ref) return;
  const kept = credentialFieldsOf(config).filter(({ path, value }) => keptIndex(ref, path, value) >= 0).map(({ path }) => path);
  refuseTreeEndpointMoves(previous.config, config, kept);
}

/** Seals `config` for version `version` and stores its credentials; the caller deletes `ref` if its write loses. */
export async function sealAndStore(
  store: SecretStore,
  at: { workspaceId: string; configId: string; version: number },
  config: unknown,
  previous?: SavedConfigRecord,
): Promise<{ config: unknown; ref?: ConfigSecretRef }> {
  refuseKeptCredentialMoves(config, previous && { config: previous.config, ref: previous.secret_ref });
  const old = previous?.secret_ref ? { ref: previous.secret_ref, values: await readConfigSecret(store, previous.secret_ref) } : undefined;
  const sealed = sealConfig(config, old);
  const ref = await storeConfigSecret(store, configSecretName(at.workspaceId, at.configId, at.version), sealed);
  return { config: sealed.config, ref };
}

/**
 * A stored item (the latest, or `version`) as it must be shown: when it still holds plaintext credentials they
 * are moved to the secret store first, with a conditional write so two readers migrating at once store one.
 */
export async function migratedItem<Item extends { config: unknown; secret_ref?: ConfigSecretRef }>(
  repository: ConfigRepository,
  store: SecretStore,
  at: { workspaceId: string; configId: string; version: number; latest: boolean },
  item: Item,
  reread: () => Promise<Item | undefined>,
): Promise<Item> {
  if (item.secret_ref !== undefined || credentialFieldsOf(item.config).length === 0) return item;
  const sealed = await sealAndStore(store, at, item.config);
  if (await repository.replacePlaintext(at.workspaceId, at.configId, at.latest ? undefined : at.version, sealed.config, sealed.ref!)) {
    return { ...item, config: sealed.config, secret_ref: sealed.ref };
  }
  // Someone else migrated (or deleted) it a moment ago: drop our copy and show theirs.
  await store.delete(sealed.ref!.name);
  const current = await reread();
  return current?.secret_ref ? current : { ...item, config: sealed.config };
}

/** Every secret a saved config's items refer to, for deletion. */
export function secretNamesOf(items: Array<{ secret_ref?: ConfigSecretRef }>): string[] {
  return [...new Set(items.flatMap((item) => (item.secret_ref ? [item.secret_ref.name] : [])))];
}

/**
 * Which stored credential a field sent back as its mask keeps: the previous one at the same path with that mask.
 * A deployment's read shows every credential as the bare stars (deployments/config-check.ts), so those keep the
 * one at their path too; otherwise read → edit → save would store the stars as the key.
 */
function keptIndex(ref: ConfigSecretRef, path: JsonPath, value: string): number {
  return ref.fields.findIndex((old) => samePath(old.path, path) && (old.masked === value || value === BARE_MASK));
}

function samePath(a: JsonPath, b: JsonPath): boolean {
  return a.length === b.length && a.every((part, index) => part === b[index]);
}
