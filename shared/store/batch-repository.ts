import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import { settings } from '../settings.js';
import { isConditionalCheckFailure, updateExpression } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

/** A file uploaded through `POST /v1/files`: its bytes live in the blob store, this record in the main table. */
export interface FileRecord {
  id: string;
  workspace_id: string;
  filename: string;
  purpose: string;
  bytes: number;
  /** Unix seconds, as OpenAI's file object has it. */
  created_at: number;
  blob_key: string;
  /** The batch whose results it holds (purpose `batch_output`). */
  batch_id?: string;
  /** `uploading`: handed out as a presigned upload, its bytes not yet seen by gw (`bytes` is the size declared). */
  status?: 'uploading';
}

/** What admission reserved for a batch, kept with it until its results are read (plain data of an `Admission`). */
export type StoredHoldings = Record<string, unknown>;

/** A batch submitted through gw: the provider's ids, how to reach it again, and what it reserved. */
export interface BatchRecord {
  id: string;
  workspace_id: string;
  organisation_id: string;
  api_key_id: string;
  provider: string;
  provider_batch_id: string;
  /** The virtual key the batch was created with: polls without credentials use it again. */
  virtual_key_id?: string;
  endpoint: string;
  model: string;
  input_file_id: string;
  completion_window: string;
  metadata: Record<string, string>;
  status: string;
  created_at: number;
  /** The provider's latest batch object (its timestamps, counts, errors), as last read. */
  provider_view: Record<string, unknown>;
  trace_id: string;
  holdings?: StoredHoldings;
  output_file_id?: string;
  error_file_id?: string;
  /** Set once the results were read, logged and charged: never twice. */
  settled_at?: number;
  cost?: number | null;
  /** The summed usage of its result lines, once settled (the batch object's `usage`). */
  usage?: BatchUsage;
  /** What gw found wrong with the provider's result files when it read them (shared/gateway/batches/result-check.ts). */
  result_problems?: BatchResultProblem[];
}

/** OpenAI's BatchUsage: the tokens of a batch's result lines. */
export interface BatchUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens_details: { reasoning_tokens: number };
}

/** One problem of a batch's result files, shown in the batch's `errors` as OpenAI's error entries are. */
export interface BatchResultProblem {
  code: string;
  message: string;
  line: number | null;
}

export interface Page<Item> {
  items: Item[];
  hasMore: boolean;
}

const fileKey = (workspaceId: string, id: string) => ({ pk: `WS#${workspaceId}#FILES`, sk: `FILE#${id}` });
const batchKey = (workspaceId: string, id: string) => ({ pk: `WS#${workspaceId}#BATCHES`, sk: `BATCH#${id}` });

/**
 * An id that sorts by creation time (base-36 milliseconds, fixed width) with 64 random bits after it: a list of
 * one workspace's partition read backwards is newest first, as OpenAI lists files and batches.
 */
export function newTimeOrderedId(prefix: 'file' | 'batch'): string {
  return `${prefix}-${Date.now().toString(36).padStart(9, '0')}${randomBytes(8).toString('hex')}`;
}

/**
 * Files and batches of a workspace, one partition each in the main table (`WS#<ws>#FILES`, `WS#<ws>#BATCHES`):
 * every read names the workspace in its key, so an id of another workspace is simply not found.
 */
export class BatchRepository {
  private readonly table = tableName(settings(), MAIN_TABLE);

  async putFile(record: FileRecord): Promise<void> {
    await dynamoDocumentClient().send(new PutCommand({ TableName: this.table, Item: { ...fileKey(record.workspace_id, record.id), ...record }, ConditionExpression: 'attribute_not_exists(pk)' }));
  }

  async getFile(workspaceId: string, id: string): Promise<FileRecord | undefined> {
    const result = await dynamoDocumentClient().send(new GetCommand({ TableName: this.table, Key: fileKey(workspaceId, id), ConsistentRead: true }));
    return result.Item ? strip<FileRecord>(result.Item) : undefined;
  }

  /** `oldestFirst`: OpenAI's `order=asc` (ids are time-ordered, so the key order is the creation order). */
  async listFiles(workspaceId: string, limit: number, after?: string, purpose?: string, oldestFirst = false): Promise<Page<FileRecord>> {
    return this.page<FileRecord>(fileKey(workspaceId, '').pk, 'FILE#', limit, after === undefined ? undefined : fileKey(workspaceId, after), purpose, oldestFirst);
  }

  /** A presigned upload gw has now read and checked: its real size, and no longer `uploading`. */
  async markFileProcessed(workspaceId: string, id: string, bytes: number): Promise<void> {
    await dynamoDocumentClient().send(
      new UpdateCommand({ TableName: this.table, Key: fileKey(workspaceId, id), UpdateExpression: 'SET #bytes = :bytes REMOVE #status', ExpressionAttributeNames: { '#bytes': 'bytes', '#status': 'status' }, ExpressionAttributeValues: { ':bytes': bytes }, ConditionExpression: 'attribute_exists(pk)' }),
    );
  }

  /** True when it was there. */
  async deleteFile(workspaceId: string, id: string): Promise<boolean> {
    const result = await dynamoDocumentClient().send(new DeleteCommand({ TableName: this.table, Key: fileKey(workspaceId, id), ReturnValues: 'ALL_OLD' }));
    return result.Attributes !== undefined;
  }

  async putBatch(record: BatchRecord): Promise<void> {
    await dynamoDocumentClient().send(new PutCommand({ TableName: this.table, Item: { ...batchKey(record.workspace_id, record.id), ...record }, ConditionExpression: 'attribute_not_exists(pk)' }));
  }

  async getBatch(workspaceId: string, id: string): Promise<BatchRecord | undefined> {
    const result = await dynamoDocumentClient().send(new GetCommand({ TableName: this.table, Key: batchKey(workspaceId, id), ConsistentRead: true }));
    return result.Item ? strip<BatchRecord>(result.Item) : undefined;
  }

  async listBatches(workspaceId: string, limit: number, after?: string): Promise<Page<BatchRecord>> {
    return this.page<BatchRecord>(batchKey(workspaceId, '').pk, 'BATCH#', limit, after === undefined ? undefined : batchKey(workspaceId, after));
  }

  async updateBatch(workspaceId: string, id: string, changes: Partial<Pick<BatchRecord, 'status' | 'provider_view' | 'output_file_id' | 'error_file_id'>>): Promise<void> {
    await dynamoDocumentClient().send(new UpdateCommand({ TableName: this.table, Key: batchKey(workspaceId, id), ...updateExpression(changes) }));
  }

  /**
   * Marks the batch settled, only if no one did before: of two polls that both see the results, exactly one
   * logs and charges them. False when another already had.
   */
  async claimSettlement(workspaceId: string, id: string, at: number): Promise<boolean> {
    try {
      await dynamoDocumentClient().send(
        new UpdateCommand({
          TableName: this.table,
          Key: batchKey(workspaceId, id),
          UpdateExpression: 'SET settled_at = :at',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(settled_at)',
          ExpressionAttributeValues: { ':at': at },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  /** Gives a claim back when reading the results failed, so the next poll tries again. */
  async releaseSettlement(workspaceId: string, id: string): Promise<void> {
    await dynamoDocumentClient().send(new UpdateCommand({ TableName: this.table, Key: batchKey(workspaceId, id), UpdateExpression: 'REMOVE settled_at' }));
  }

  async recordSettlement(workspaceId: string, id: string, changes: { output_file_id?: string; error_file_id?: string; cost: number | null; usage?: BatchUsage; result_problems?: BatchResultProblem[] }): Promise<void> {
    await dynamoDocumentClient().send(new UpdateCommand({ TableName: this.table, Key: batchKey(workspaceId, id), ...updateExpression(changes, ['holdings']) }));
  }

  /** Newest first (or oldest first); `after` is the last id of the previous page (OpenAI's cursor). */
  private async page<Item>(pk: string, prefix: string, limit: number, after: { pk: string; sk: string } | undefined, purpose?: string, oldestFirst = false): Promise<Page<Item>> {
    const items: Item[] = [];
    let startKey: Record<string, unknown> | undefined = after;
    // A purpose filter may drop items: a bounded number of reads, like paged-query.ts, never an unbounded scan.
    for (let trip = 0; trip < 25; trip++) {
      const result = await dynamoDocumentClient().send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
          ScanIndexForward: oldestFirst,
          Limit: limit + 1 - items.length,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of result.Items ?? []) if (purpose === undefined || item.purpose === purpose) items.push(strip<Item>(item));
      startKey = result.LastEvaluatedKey;
      if (items.length > limit || !startKey) break;
    }
    // Out of trips with the partition not read to its end, there may be more: say so rather than end the list early.
    return { items: items.slice(0, limit), hasMore: items.length > limit || startKey !== undefined };
  }
}

/** The record without its key attributes. */
function strip<Item>(item: Record<string, unknown>): Item {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record as Item;
}
