import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { GuardrailDefinition } from '../guardrails/schemas.js';
import { settings } from '../settings.js';
import { isConditionalCheckFailure } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { keys } from './keys.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

/** A guardrail's current state; every version's body (name, type, config) is kept under its own item too. */
export type GuardrailRecord = GuardrailDefinition & {
  id: string;
  workspace_id: string;
  name: string;
  version: number;
  created_at: string;
  updated_at: string;
};

export type GuardrailVersion = GuardrailDefinition & { id: string; name: string; version: number; created_at: string };

const partition = (workspaceId: string, id: string) => `WS#${workspaceId}#GUARDRAIL#${id}`;
const listPartition = (workspaceId: string) => `WS#${workspaceId}#GUARDRAILS`;
const versionKey = (version: number) => `V#${String(version).padStart(9, '0')}`;

/**
 * Guardrails, versioned and scoped to their workspace: every key starts with the workspace, so one workspace can
 * never read another's. The latest item carries a copy of the latest body (one read on a cold hot path); each
 * version is immutable, so a pinned `grd-…@N` always means the same rule.
 */
export class GuardrailRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  async create(record: Omit<GuardrailRecord, 'version' | 'updated_at'>): Promise<GuardrailRecord> {
    const saved = { ...record, version: 1, updated_at: record.created_at } as GuardrailRecord;
    await this.putVersion(saved);
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: partition(record.workspace_id, record.id), sk: 'LATEST', gsi1pk: listPartition(record.workspace_id), gsi1sk: record.id, ...saved },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return saved;
  }

  async get(workspaceId: string, id: string): Promise<GuardrailRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: { pk: partition(workspaceId, id), sk: 'LATEST' } }));
    return result.Item ? strip<GuardrailRecord>(result.Item) : undefined;
  }

  async getVersion(workspaceId: string, id: string, version: number): Promise<GuardrailVersion | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: { pk: partition(workspaceId, id), sk: versionKey(version) } }));
    return result.Item ? strip<GuardrailVersion>(result.Item) : undefined;
  }

  async listVersions(workspaceId: string, id: string): Promise<GuardrailVersion[]> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :v)',
        ExpressionAttributeValues: { ':pk': partition(workspaceId, id), ':v': 'V#' },
        ScanIndexForward: false,
      }),
    );
    return (result.Items ?? []).map((item) => strip<GuardrailVersion>(item));
  }

  async list(workspaceId: string, limit: number, startKey?: Record<string, unknown>): Promise<{ items: GuardrailRecord[]; lastKey?: Record<string, unknown> }> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': listPartition(workspaceId) },
        Limit: limit,
        ExclusiveStartKey: startKey,
      }),
    );
    return { items: (result.Items ?? []).map((item) => strip<GuardrailRecord>(item)), lastKey: result.LastEvaluatedKey };
  }

  /**
   * Writes version `current.version + 1`: the version item only if absent, the latest item only from the version
   * the caller read, so two concurrent updates can never both win. Undefined when another update won.
   */
  async update(current: GuardrailRecord, changes: { name: string } & GuardrailDefinition, at: string): Promise<GuardrailRecord | undefined> {
    const next = { ...current, name: changes.name, type: changes.type, config: changes.config, version: current.version + 1, updated_at: at } as GuardrailRecord;
    try {
      await this.putVersion(next);
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: partition(current.workspace_id, current.id), sk: 'LATEST' },
          UpdateExpression: 'SET #version = :next, #config = :config, #name = :name, #type = :type, updated_at = :at',
          ConditionExpression: '#version = :current',
          ExpressionAttributeNames: { '#version': 'version', '#config': 'config', '#name': 'name', '#type': 'type' },
          ExpressionAttributeValues: { ':next': next.version, ':current': current.version, ':config': next.config, ':name': next.name, ':type': next.type, ':at': at },
        }),
      );
      return next;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return undefined;
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

  /** The workspace's `default_guardrails` setting (kept on the workspace item), read alone. */
  async workspaceDefaults(workspaceId: string): Promise<string[]> {
    const result = await this.client.send(
      new GetCommand({ TableName: this.table, Key: keys.workspace(workspaceId), ProjectionExpression: 'default_guardrails' }),
    );
    const value = result.Item?.default_guardrails;
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
  }

  private async putVersion(record: GuardrailRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          pk: partition(record.workspace_id, record.id),
          sk: versionKey(record.version),
          id: record.id,
          name: record.name,
          type: record.type,
          version: record.version,
          config: record.config,
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
