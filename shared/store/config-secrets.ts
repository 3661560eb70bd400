import { randomBytes } from 'node:crypto';
import { SecretStoreError, type SecretStore } from './secrets/secret-store.js';

/**
 * Credentials of saved configs at rest. On save every credential field (config/credential-fields.ts) is cut
 * out of the config into one secret per version, `config-secrets/<workspace>/<config>/v<version>-<random>`
 * (relative: the store adds its own prefix); the stored config keeps a masked value in its place and a
 * reference saying where the secret is and which paths it fills (cutting out: control-plane/configs/sealing.ts).
 * Only the gateway puts the values back.
 */
export interface ConfigSecretRef {
  name: string;
  /** The credential paths, in the order of the values in the secret, with the masked value each shows. */
  fields: Array<{ path: Array<string | number>; masked: string }>;
}

/** The config with its credentials back in place: what the gateway routes with. */
export function unsealConfig(config: unknown, ref: ConfigSecretRef, values: string[]): unknown {
  if (values.length !== ref.fields.length) throw new SecretStoreError(`The secret '${ref.name}' does not match its config`, 'get');
  const opened = structuredClone(config);
  ref.fields.forEach((field, index) => setAt(opened, field.path, values[index]));
  return opened;
}

export function configSecretName(workspaceId: string, configId: string, version: number): string {
  return `config-secrets/${workspaceId}/${configId}/v${version}-${randomBytes(6).toString('hex')}`;
}

/** Stores the cut-out credential values; returns the reference to keep with the config (none without credentials). */
export async function storeConfigSecret(store: SecretStore, name: string, sealed: { fields: ConfigSecretRef['fields']; values: string[] }): Promise<ConfigSecretRef | undefined> {
  if (sealed.fields.length === 0) return undefined;
  await store.put(name, JSON.stringify(sealed.values));
  return { name, fields: sealed.fields };
}

export async function readConfigSecret(store: SecretStore, ref: ConfigSecretRef): Promise<string[]> {
  const text = await store.get(ref.name);
  if (text === undefined) throw new SecretStoreError(`The secret '${ref.name}' of a saved config is missing`, 'get');
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!Array.isArray(parsed) || !parsed.every((value) => typeof value === 'string')) throw new Error('not a list of strings');
    return parsed;
  } catch {
    // Never quote the text: it holds the credentials.
    throw new SecretStoreError(`The secret '${ref.name}' of a saved config is not a list of strings`, 'get');
  }
}

export function setAt(root: unknown, path: ReadonlyArray<string | number>, value: string): void {
  let node = root as Record<string | number, unknown>;
  for (const part of path.slice(0, -1)) node = node[part] as Record<string | number, unknown>;
  node[path[path.length - 1]] = value;
}
