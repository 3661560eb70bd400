import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { readConfigSecret, unsealConfig, type ConfigSecretRef } from './config-secrets.js';
import { secretStore } from './secrets/secret-store-factory.js';
import type { SecretStore } from './secrets/secret-store.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

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

const partition = (workspaceId: string, id: string) => `WS#${workspaceId}#CONFIG#${id}`;
const versionKey = (version: number) => `V#${String(version).padStart(9, '0')}`;

/**
 * Saved configs, versioned and scoped to their workspace: every key starts with the workspace, so one
 * workspace can never read another's. The latest item carries a copy of the latest body (one read on the hot
 * path); each version is immutable.
 */
export class ConfigRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  async create(record: Omit<SavedConfigRecord, 'version' | 'updated_at'>): Promise<SavedConfigRecord> {
    const saved: SavedConfigRecord = { ...record, version: 1, updated_at: record.created_at };
    await this.putVersion(saved);
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: partition(record.workspace_id, record.id), sk: 'LATEST', gsi1pk: `WS#${record.workspace_id}#CONFIGS`, gsi1sk: record.id, ...saved },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return saved;
  }

  async get(workspaceId: string, id: string): Promise<SavedConfigRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: { pk: partition(workspaceId, id), sk: 'LATEST' } }));
    return result.Item ? strip<SavedConfigRecord>(result.Item) : undefined;
  }

  async getVersion(workspaceId: string, id: string, version: number): Promise<SavedConfigVersion | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: { pk: partition(workspaceId, id), sk: versionKey(version) } }));
    return result.Item ? strip<SavedConfigVersion>(result.Item) : undefined;
  }

  async listVersions(workspaceId: string, id: string): Promise<SavedConfigVersion[]> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :v)',
        ExpressionAttributeValues: { ':pk': partition(workspaceId, id), ':v': 'V#' },
        ScanIndexForward: false,
      }),
    );
    return (result.Items ?? []).map((item) => strip<SavedConfigVersion>(item));
  }

  async list(workspaceId: string, limit: number, startKey?: Record<string, unknown>): Promise<{ items: SavedConfigRecord[]; lastKey?: Record<string, unknown> }> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': `WS#${workspaceId}#CONFIGS` },
        Limit: limit,
        ExclusiveStartKey: startKey,
      }),
    );
    return { items: (result.Items ?? []).map((item) => strip<SavedConfigRecord>(item)), lastKey: result.LastEvaluatedKey };
  }

  /**
   * Writes version `current.version + 1`. The version item is created only if absent and the latest item only
   * moves forward from the version the caller read, so two concurrent updates can never both win.
   */
  async update(current: SavedConfigRecord, changes: { name?: string; config: unknown; secret_ref?: ConfigSecretRef }, at: string): Promise<SavedConfigRecord | undefined> {
    const next: SavedConfigRecord = { ...current, name: changes.name ?? current.name, config: changes.config, secret_ref: changes.secret_ref, version: current.version + 1, updated_at: at };
    try {
      await this.putVersion(next);
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: partition(current.workspace_id, current.id), sk: 'LATEST' },
          UpdateExpression: `SET #version = :next, #config = :config, #name = :name, updated_at = :at${next.secret_ref ? ', secret_ref = :ref' : ' REMOVE secret_ref'}`,
          ConditionExpression: '#version = :current',
          ExpressionAttributeNames: { '#version': 'version', '#config': 'config', '#name': 'name' },
          ExpressionAttributeValues: {
            ':next': next.version,
            ':current': current.version,
            ':config': next.config,
            ':name': next.name,
            ':at': at,
            ...(next.secret_ref ? { ':ref': next.secret_ref } : {}),
          },
        }),
      );
      return next;
    } catch (error) {
      if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return undefined;
      throw error;
    }
  }

  async delete(workspaceId: string, id: string): Promise<void> {
    const versions = await this.listVersions(workspaceId, id);
    await this.client.send(new DeleteCommand({ TableName: this.table, Key: { pk: partition(workspaceId, id), sk: 'LATEST' } }));
    for (const version of versions) {
      await this.client.send(new DeleteCommand({ TableName: this.table, Key: { pk: partition(workspaceId, id), sk: versionKey(version.version) } }));
    }
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
          Key: { pk: partition(workspaceId, id), sk: version === undefined ? 'LATEST' : versionKey(version) },
          UpdateExpression: 'SET #config = :config, secret_ref = :ref',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(secret_ref)',
          ExpressionAttributeNames: { '#config': 'config' },
          ExpressionAttributeValues: { ':config': config, ':ref': ref },
        }),
      );
      return true;
    } catch (error) {
      if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }

  private async putVersion(record: SavedConfigRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          pk: partition(record.workspace_id, record.id),
          sk: versionKey(record.version),
          id: record.id,
          version: record.version,
          config: record.config,
          ...(record.secret_ref ? { secret_ref: record.secret_ref } : {}),
          created_at: record.updated_at,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }
}

function strip<T>(item: Record<string, unknown>): T {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, ...rest } = item;
  return rest as T;
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
