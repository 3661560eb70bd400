import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailure } from './conditional-writes.js';
import { readConfigSecret, unsealConfig, type ConfigSecretRef } from './config-secrets.js';
import { secretStore } from './secrets/secret-store-factory.js';
import type { SecretStore } from './secrets/secret-store.js';
import { VersionedRepository } from './versioned/versioned-repository.js';

/** A saved config's current state; every version's body is kept under its own item as well. */
export interface SavedConfigRecord {
  id: string;
  workspace_id: string;
  name: string;
  version: number;
  /** With `secret_ref`, credentials are masked here and live in the secret store (store/config-secrets.ts). */
  config: unknown;
  secret_ref?: ConfigSecretRef;
  created_at: string;
  updated_at: string;
}

export interface SavedConfigVersion {
  id: string;
  version: number;
  config: unknown;
  secret_ref?: ConfigSecretRef;
  created_at: string;
}

/**
 * Saved configs, versioned and scoped to their workspace (store/versioned/). A version keeps the config body and
 * its secret reference; the name lives on the latest item only. An update given no `secret_ref` removes it (a
 * config that holds no credentials).
 */
export class ConfigRepository extends VersionedRepository<SavedConfigRecord, SavedConfigVersion> {
  constructor() {
    super({ kind: 'CONFIG', versionFields: ['config', 'secret_ref'], mutableFields: ['name', 'config', 'secret_ref'] });
  }

  /**
   * Replaces the plaintext config of one stored item (`version` undefined: the latest item) by its sealed form,
   * only while the item still has no secret reference: of two concurrent migrations exactly one wins (true).
   */
  async replacePlaintext(workspaceId: string, id: string, version: number | undefined, config: unknown, ref: ConfigSecretRef): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: this.itemKey(workspaceId, id, version),
          UpdateExpression: 'SET #config = :config, secret_ref = :ref',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(secret_ref)',
          ExpressionAttributeNames: { '#config': 'config' },
          ExpressionAttributeValues: { ':config': config, ':ref': ref },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }
}

/**
 * The gateway's view: the body of the latest or a pinned version, credentials read back from the secret store.
 * A config saved before credentials moved there still holds them in plaintext and is used as it is (the
 * gateway's grants are read-only; the control plane migrates it on its first read, see docs/security.md).
 */
export function savedConfigSource(repository = new ConfigRepository(), secrets: () => SecretStore = secretStore) {
  return {
    async load(workspaceId: string, id: string, version?: number) {
      const saved = version !== undefined ? await repository.getVersion(workspaceId, id, version) : await repository.get(workspaceId, id);
      if (!saved?.secret_ref) return saved;
      const values = await readConfigSecret(secrets(), saved.secret_ref);
      return { ...saved, config: unsealConfig(saved.config, saved.secret_ref, values) };
    },
  };
}
