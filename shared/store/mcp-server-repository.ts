import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { McpServerRecord } from './mcp-server-record.js';
import { settings } from '../settings.js';
import { isConditionalCheckFailure } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { keys } from './keys.js';
import { gsi1Children, queryPage } from './paged-query.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';
import { stripKeys, type RecordPage } from './virtual-key-repository.js';

/** The server's secret name in the SecretStore (which adds its own prefix). */
export function mcpServerSecretName(workspaceId: string, serverId: string): string {
  return `mcp-servers/${workspaceId}/${serverId}`;
}

export class SlugTakenError extends Error {
  constructor(readonly slug: string) {
    super(`slug '${slug}' is taken`);
    this.name = 'SlugTakenError';
  }
}

/**
 * MCP servers of a workspace: one item per server, listed through gsi1, plus one slug claim per server so
 * two servers of a workspace never share a slug and `/v1/mcp/<slug>` is one GetItem away from the id.
 * dynalite has no transactions, so the claim is written first and removed again when the server write fails.
 */
export class McpServerRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  async create(record: McpServerRecord): Promise<void> {
    await this.claimSlug(record.workspace_id, record.slug, record.id);
    try {
      await this.client.send(new PutCommand({ TableName: this.table, Item: this.item(record), ConditionExpression: 'attribute_not_exists(pk)' }));
    } catch (error) {
      await this.releaseSlug(record.workspace_id, record.slug, record.id);
      throw error;
    }
  }

  /** Replaces an existing record (claiming a new slug first when it changed); false when it no longer exists. */
  async replace(record: McpServerRecord, previousSlug: string): Promise<boolean> {
    const slugChanged = previousSlug !== record.slug;
    if (slugChanged) await this.claimSlug(record.workspace_id, record.slug, record.id);
    try {
      await this.client.send(new PutCommand({ TableName: this.table, Item: this.item(record), ConditionExpression: 'attribute_exists(pk)' }));
    } catch (error) {
      if (slugChanged) await this.releaseSlug(record.workspace_id, record.slug, record.id);
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
    if (slugChanged) await this.releaseSlug(record.workspace_id, previousSlug, record.id);
    return true;
  }

  async get(workspaceId: string, serverId: string): Promise<McpServerRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.mcpServer(workspaceId, serverId) }));
    return result.Item ? stripKeys<McpServerRecord>(result.Item) : undefined;
  }

  async idBySlug(workspaceId: string, slug: string): Promise<string | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.mcpServerSlug(workspaceId, slug) }));
    const id: unknown = result.Item?.server_id;
    return typeof id === 'string' ? id : undefined;
  }

  /** The workspace's servers, newest first. */
  async list(workspaceId: string, limit: number, startKey?: Record<string, unknown>): Promise<RecordPage<McpServerRecord>> {
    const page = await queryPage({ ...gsi1Children(this.table, keys.mcpServersOfWorkspace(workspaceId), 'newest-first'), limit, startKey });
    return { items: page.items.map((item) => stripKeys<McpServerRecord>(item)), nextKey: page.nextKey };
  }

  async delete(workspaceId: string, serverId: string): Promise<McpServerRecord | undefined> {
    const result = await this.client.send(new DeleteCommand({ TableName: this.table, Key: keys.mcpServer(workspaceId, serverId), ReturnValues: 'ALL_OLD' }));
    if (!result.Attributes) return undefined;
    const deleted = stripKeys<McpServerRecord>(result.Attributes);
    await this.releaseSlug(workspaceId, deleted.slug, serverId);
    return deleted;
  }

  private async claimSlug(workspaceId: string, slug: string, serverId: string): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...keys.mcpServerSlug(workspaceId, slug), server_id: serverId },
          ConditionExpression: 'attribute_not_exists(pk) OR server_id = :id',
          ExpressionAttributeValues: { ':id': serverId },
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailure(error)) throw new SlugTakenError(slug);
      throw error;
    }
  }

  /** Removes a slug claim, only while it still points at this server. */
  private async releaseSlug(workspaceId: string, slug: string, serverId: string): Promise<void> {
    try {
      await this.client.send(
        new DeleteCommand({ TableName: this.table, Key: keys.mcpServerSlug(workspaceId, slug), ConditionExpression: 'server_id = :id', ExpressionAttributeValues: { ':id': serverId } }),
      );
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
  }

  private item(record: McpServerRecord): Record<string, unknown> {
    return {
      ...keys.mcpServer(record.workspace_id, record.id),
      gsi1pk: keys.mcpServersOfWorkspace(record.workspace_id),
      gsi1sk: `${record.created_at}#${record.id}`,
      ...record,
    };
  }
}
