import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { gsi1Children, queryPage } from '../paged-query.js';
import { settings } from '../../settings.js';
import { isConditionalCheckFailure, updateExpression } from '../conditional-writes.js';
import { dynamoDocumentClient } from '../dynamo-client.js';
import { MAIN_TABLE, tableName } from '../table-definitions.js';
import {
  documentKey,
  documentListPartition,
  VERSION_SORT_PREFIX,
  withoutTableKeys,
  type StoredVersion,
  type VersionedEntity,
  type VersionedLayout,
} from './layout.js';

/**
 * Versioned documents of one kind, scoped to their workspace (the item layout: layout.ts). The latest item
 * carries a copy of the latest body (one read on the hot path); each version is immutable, so a pinned `…@N`
 * always means the same thing. A kind is an instance of this class with its layout (config-repository.ts,
 * guardrail-repository.ts); the rules a control plane reads them by are versioned-documents.ts.
 */
export class VersionedRepository<R extends VersionedEntity, V extends StoredVersion> {
  protected readonly client = dynamoDocumentClient();
  protected readonly table = tableName(settings(), MAIN_TABLE);

  constructor(readonly layout: VersionedLayout<R>) {}

  /** The key of the latest item (`version` undefined) or of one version. */
  protected itemKey(workspaceId: string, id: string, version?: number): { pk: string; sk: string } {
    return documentKey(this.layout.kind, workspaceId, id, version);
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
    return result.Item ? withoutTableKeys<R>(result.Item) : undefined;
  }

  async getVersion(workspaceId: string, id: string, version: number): Promise<V | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: this.itemKey(workspaceId, id, version) }));
    return result.Item ? withoutTableKeys<V>(result.Item) : undefined;
  }

  /** Every version, newest first. */
  async listVersions(workspaceId: string, id: string): Promise<V[]> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :v)',
        ExpressionAttributeValues: { ':pk': this.itemKey(workspaceId, id).pk, ':v': VERSION_SORT_PREFIX },
        ScanIndexForward: false,
      }),
    );
    return (result.Items ?? []).map((item) => withoutTableKeys<V>(item));
  }

  /** One page of the workspace's documents. A cursor from another list (another workspace's) is a 400 `invalid_cursor`. */
  async list(workspaceId: string, limit: number, startKey?: Record<string, unknown>): Promise<{ items: R[]; lastKey?: Record<string, unknown> }> {
    const page = await queryPage({ ...gsi1Children(this.table, this.listPartition(workspaceId)), limit, startKey });
    return { items: page.items.map((item) => withoutTableKeys<R>(item)), lastKey: page.nextKey };
  }

  /** Deletes the latest item first (so the document is gone at once), then its versions; returns the versions deleted. */
  async delete(workspaceId: string, id: string): Promise<V[]> {
    const versions = await this.listVersions(workspaceId, id);
    await this.client.send(new DeleteCommand({ TableName: this.table, Key: this.itemKey(workspaceId, id) }));
    for (const { version } of versions) {
      await this.client.send(new DeleteCommand({ TableName: this.table, Key: this.itemKey(workspaceId, id, version) }));
    }
    return versions;
  }

  /**
   * Writes version `current.version + 1`: `fields` over `current`, where a mutable field given as undefined is
   * removed and one not given is kept. The version item is written only if absent, the latest item only from the
   * version the caller read, so two concurrent updates can never both win. Undefined when another update won.
   */
  async update(current: R, fields: Partial<R>, at: string): Promise<R | undefined> {
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
    return documentListPartition(this.layout.kind, workspaceId);
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
