import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../settings.js';
import { dynamoDocumentClient } from '../../store/dynamo-client.js';
import { CACHE_TABLE, tableName } from '../../store/table-definitions.js';

/** DynamoDB's item limit is 400 KB; entries above this are skipped (and logged), never a failure. */
export const MAX_ENTRY_BYTES = 350 * 1024;
/** How many vectors one semantic partition keeps; the oldest are evicted past it. */
export const MAX_SEMANTIC_CANDIDATES = 256;

export interface SemanticCandidate {
  key: string;
  vector: Float32Array;
}

export type Clock = () => number;

/**
 * The response cache in the cache table. Every key starts with the workspace id, so one workspace can never
 * read, nor probe, another's entries. Reads check the stored expiry themselves: the AWS table's TTL only
 * cleans up, and the local store never deletes.
 */
export class ResponseCacheStore {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), CACHE_TABLE);

  constructor(private readonly now: Clock = Date.now) {}

  async get(workspaceId: string, key: string): Promise<string | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: { pk: entryPk(workspaceId, key), sk: 'ENTRY' } }));
    const item = result.Item as { body?: string; expires_at?: number } | undefined;
    if (!item?.body || (item.expires_at ?? 0) <= this.now()) return undefined;
    return item.body;
  }

  /** Stores an entry; returns false (and stores nothing) when it is too large for one item. */
  async put(workspaceId: string, key: string, body: string, maxAgeSeconds: number): Promise<boolean> {
    if (Buffer.byteLength(body) > MAX_ENTRY_BYTES) return false;
    const expiresAt = this.now() + maxAgeSeconds * 1000;
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: entryPk(workspaceId, key), sk: 'ENTRY', body, created_at: this.now(), expires_at: expiresAt, ttl: Math.ceil(expiresAt / 1000) },
      }),
    );
    return true;
  }

  /** The unexpired vectors of a partition (at most MAX_SEMANTIC_CANDIDATES). */
  async candidates(workspaceId: string, partition: string): Promise<SemanticCandidate[]> {
    const now = this.now();
    return (await this.partitionItems(workspaceId, partition))
      .filter((item) => (item.expires_at as number) > now)
      .map((item) => {
        const bytes = item.vector as Uint8Array;
        return { key: item.key as string, vector: new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)) };
      });
  }

  /** Adds a vector to a partition and evicts the oldest beyond the bound. */
  async putVector(workspaceId: string, partition: string, key: string, vector: Float32Array, maxAgeSeconds: number): Promise<void> {
    const now = this.now();
    const expiresAt = now + maxAgeSeconds * 1000;
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          pk: partitionPk(workspaceId, partition),
          sk: `${String(now).padStart(15, '0')}#${key}`,
          key,
          vector: new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength),
          expires_at: expiresAt,
          ttl: Math.ceil(expiresAt / 1000),
        },
      }),
    );
    await this.evictBeyondBound(workspaceId, partition);
  }

  private async evictBeyondBound(workspaceId: string, partition: string): Promise<void> {
    const keys = (await this.partitionItems(workspaceId, partition, 'sk')).map((item) => item.sk as string);
    // Sort keys start with the creation time, so the first ones are the oldest.
    for (const sk of keys.slice(0, Math.max(0, keys.length - MAX_SEMANTIC_CANDIDATES))) {
      await this.client.send(new DeleteCommand({ TableName: this.table, Key: { pk: partitionPk(workspaceId, partition), sk } }));
    }
  }

  /** Every item of a semantic partition, oldest first, across result pages. */
  private async partitionItems(workspaceId: string, partition: string, projection?: string): Promise<Array<Record<string, unknown>>> {
    const items: Array<Record<string, unknown>> = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': partitionPk(workspaceId, partition) },
          ProjectionExpression: projection,
          ExclusiveStartKey: startKey,
        }),
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return items;
  }
}

const entryPk = (workspaceId: string, key: string) => `WS#${workspaceId}#ENTRY#${key}`;
const partitionPk = (workspaceId: string, partition: string) => `WS#${workspaceId}#SEMANTIC#${partition}`;
