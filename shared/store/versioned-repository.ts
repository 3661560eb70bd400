import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { isConditionalCheckFailure, updateExpression } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

/** What every versioned entity has: saved configs and guardrails. */
export interface VersionedEntity {
  id: string;
  workspace_id: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface VersionedLayout<R> {
  /** Names the partitions: `WS#{workspace}#{KIND}#{id}` for an entity, `WS#{workspace}#{KIND}S` for the list. */
  kind: string;
  /** The fields each immutable version item keeps besides id, version and created_at. */
  versionFields: ReadonlyArray<keyof R & string>;
  /** The fields an update may change on the latest item (an undefined value removes the attribute). */
  mutableFields: ReadonlyArray<keyof R & string>;
}

const versionKey = (version: number) => `V#${String(version).padStart(9, '0')}`;

/**
 * Versioned entities scoped to their workspace: every key starts with the workspace, so one workspace can never
 * read another's. The latest item carries a copy of the latest body (one read on the hot path); each version is
 * immutable, so a pinned `…@N` always means the same thing.
 */
export class VersionedRepository<R extends VersionedEntity, V> {
  protected readonly client = dynamoDocumentClient();
  protected readonly table = tableName(settings(), MAIN_TABLE);

  constructor(private readonly layout: VersionedLayout<R>) {}

  /** The key of the latest item (`version` undefined) or of one version. */
  protected itemKey(workspaceId: string, id: string, version?: number): { pk: string; sk: string } {
    return { pk: `WS#${workspaceId}#${this.layout.kind}#${id}`, sk: version === undefined ? 'LATEST' : versionKey(version) };
  }

  async create(record: Omit<R, 'version' | 'updated_at'>): Promise<R> {
    const saved = { ...record, version: 1, updated_at: record.created_at } as R;
    await this.putVersion(saved);
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...this.itemKey(record.workspace_id, record.id), gsi1pk: this.listPartition(record.workspace_id), gsi1sk: record.id, ...saved },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return saved;
  }

  async get(workspaceId: string, id: string): Promise<R | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: this.itemKey(workspaceId, id) }));
    return result.Item ? strip<R>(result.Item) : undefined;
  }

  async getVersion(workspaceId: string, id: string, version: number): Promise<V | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: this.itemKey(workspaceId, id, version) }));
    return result.Item ? strip<V>(result.Item) : undefined;
  }

  async listVersions(workspaceId: string, id: string): Promise<V[]> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :v)',
        ExpressionAttributeValues: { ':pk': this.itemKey(workspaceId, id).pk, ':v': 'V#' },
        ScanIndexForward: false,
      }),
    );
    return (result.Items ?? []).map((item) => strip<V>(item));
  }

  async list(workspaceId: string, limit: number, startKey?: Record<string, unknown>): Promise<{ items: R[]; lastKey?: Record<string, unknown> }> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': this.listPartition(workspaceId) },
        Limit: limit,
        ExclusiveStartKey: startKey,
      }),
    );
    return { items: (result.Items ?? []).map((item) => strip<R>(item)), lastKey: result.LastEvaluatedKey };
  }

  async delete(workspaceId: string, id: string): Promise<void> {
    const versions = (await this.listVersions(workspaceId, id)) as Array<{ version: number }>;
    await this.client.send(new DeleteCommand({ TableName: this.table, Key: this.itemKey(workspaceId, id) }));
    for (const { version } of versions) {
      await this.client.send(new DeleteCommand({ TableName: this.table, Key: this.itemKey(workspaceId, id, version) }));
    }
  }

  /**
   * Writes version `current.version + 1` with every mutable field as given: the version item only if absent, the
   * latest item only from the version the caller read, so two concurrent updates can never both win. Undefined
   * when another update won.
   */
  protected async commit(current: R, fields: Partial<R>, at: string): Promise<R | undefined> {
    const next = { ...current, ...fields, version: current.version + 1, updated_at: at } as R;
    const changed: Record<string, unknown> = { version: next.version, updated_at: at };
    const removed: string[] = [];
    for (const field of this.layout.mutableFields) {
      if (next[field] === undefined) removed.push(field);
      else changed[field] = next[field];
    }
    const expression = updateExpression(changed, removed);
    try {
      await this.putVersion(next);
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: this.itemKey(current.workspace_id, current.id),
          ...expression,
          ConditionExpression: '#current = :current',
          ExpressionAttributeNames: { ...expression.ExpressionAttributeNames, '#current': 'version' },
          ExpressionAttributeValues: { ...expression.ExpressionAttributeValues, ':current': current.version },
        }),
      );
      return next;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return undefined;
      throw error;
    }
  }

  private listPartition(workspaceId: string): string {
    return `WS#${workspaceId}#${this.layout.kind}S`;
  }

  private async putVersion(record: R): Promise<void> {
    const body: Record<string, unknown> = {};
    for (const field of this.layout.versionFields) if (record[field] !== undefined) body[field] = record[field];
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...this.itemKey(record.workspace_id, record.id, record.version), id: record.id, version: record.version, ...body, created_at: record.updated_at },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }
}

function strip<T>(item: Record<string, unknown>): T {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, ...rest } = item;
  return rest as T;
}
