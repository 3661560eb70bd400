import { gunzipSync, gzipSync } from 'node:zlib';
import { BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../../store/dynamo-client.js';
import { MAIN_TABLE, tableName } from '../../store/table-definitions.js';
import { blobStore } from '../../store/blobs/blob-store-factory.js';
import { settings } from '../../settings.js';

/** Stored responses live as long as OpenAI keeps them: 30 days. */
export const STORED_RESPONSE_TTL_SECONDS = 30 * 24 * 3600;
/**
 * A DynamoDB item holds at most 400 KB. Stored conversations are gzip-compressed and kept inline up to this
 * size; larger ones go to the BlobStore (S3 on AWS, a folder locally), the item keeping the pointer.
 */
export const STORED_RESPONSE_INLINE_BYTES = 300 * 1024;
/** A conversation larger than this (compressed) is not stored at all. */
export const STORED_RESPONSE_MAX_BYTES = 64 * 1024 * 1024;
const SAFE_ID = /^[A-Za-z0-9._=-]{1,200}$/;
const blobKey = (workspaceId: string, responseId: string) => `responses/${workspaceId}/${responseId}.json.gz`;

/** What gw keeps of one Response: the Response object, this turn's input items, and the conversation before it. */
export interface StoredResponse {
  response: Record<string, unknown>;
  /** The items this request sent (each with an id), for `GET /v1/responses/{id}/input_items`. */
  inputItems: Array<Record<string, unknown>>;
  /** Every input item of the conversation up to this turn (earlier turns' input and output, then this input). */
  conversation: Array<Record<string, unknown>>;
}

const key = (workspaceId: string, responseId: string) => ({ pk: `WS#${workspaceId}#RESPONSE#${responseId}`, sk: 'RESPONSE' });
/** One output item, so an `item_reference` (what the Vercel AI SDK sends for earlier turns) can be resolved by id. */
const itemKey = (workspaceId: string, itemId: string) => ({ pk: `WS#${workspaceId}#RESPITEM#${itemId}`, sk: 'RESPITEM' });
/** BatchWriteItem and BatchGetItem limits. */
const WRITE_BATCH = 25;
const READ_BATCH = 100;

/**
 * Responses-API state, scoped to a workspace: a response id of another workspace is simply not found. Items
 * carry an epoch-seconds `ttl` that AWS expires them by; reads check it themselves (the local store never expires).
 */
export class ResponseRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  /** Saves the response; false when it is too large to keep. */
  async save(workspaceId: string, stored: StoredResponse, now = Date.now()): Promise<boolean> {
    const id = String(stored.response.id);
    const body = gzipSync(Buffer.from(JSON.stringify(stored), 'utf8'));
    if (body.length > STORED_RESPONSE_MAX_BYTES) return false;
    const inline = body.length <= STORED_RESPONSE_INLINE_BYTES;
    if (!inline) {
      if (!SAFE_ID.test(id) || !SAFE_ID.test(workspaceId)) return false;
      await blobStore().put(blobKey(workspaceId, id), body, 'application/gzip');
    }
    const item = { ...key(workspaceId, id), kind: 'response', id, workspace_id: workspaceId, created_at: new Date(now).toISOString(), ttl: Math.floor(now / 1000) + STORED_RESPONSE_TTL_SECONDS };
    await this.client.send(new PutCommand({ TableName: this.table, Item: inline ? { ...item, body } : { ...item, body_ref: blobKey(workspaceId, id) } }));
    return true;
  }

  /** Keeps output items by id for `item_reference`s; items too large for an item of their own are skipped. */
  async saveItems(workspaceId: string, items: Array<Record<string, unknown>>, now = Date.now()): Promise<void> {
    const ttl = Math.floor(now / 1000) + STORED_RESPONSE_TTL_SECONDS;
    const puts = items
      .filter((item) => typeof item.id === 'string')
      .map((item) => ({ ...itemKey(workspaceId, item.id as string), kind: 'response_item', body: gzipSync(Buffer.from(JSON.stringify(item), 'utf8')), ttl }))
      .filter((item) => item.body.length <= STORED_RESPONSE_INLINE_BYTES);
    for (let start = 0; start < puts.length; start += WRITE_BATCH) {
      const batch = puts.slice(start, start + WRITE_BATCH).map((Item) => ({ PutRequest: { Item } }));
      let pending: Record<string, unknown[]> | undefined = { [this.table]: batch };
      // Unprocessed writes (throttling) are sent again until none are left.
      while (pending && Object.keys(pending).length > 0) {
        const result: { UnprocessedItems?: Record<string, unknown[]> } = await this.client.send(new BatchWriteCommand({ RequestItems: pending as never }));
        pending = result.UnprocessedItems;
      }
    }
  }

  /** The stored items with these ids (missing or expired ones are left out). */
  async getItems(workspaceId: string, ids: string[], now = Date.now()): Promise<Map<string, Record<string, unknown>>> {
    const found = new Map<string, Record<string, unknown>>();
    const unique = [...new Set(ids)];
    for (let start = 0; start < unique.length; start += READ_BATCH) {
      let keys: Array<Record<string, string>> = unique.slice(start, start + READ_BATCH).map((id) => itemKey(workspaceId, id));
      while (keys.length > 0) {
        const result = await this.client.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys } } }));
        for (const row of result.Responses?.[this.table] ?? []) {
          if (typeof row.ttl === 'number' && row.ttl * 1000 <= now) continue;
          const item = JSON.parse(gunzipSync(Buffer.from(row.body as Uint8Array)).toString('utf8')) as Record<string, unknown>;
          found.set(String(item.id), item);
        }
        keys = (result.UnprocessedKeys?.[this.table]?.Keys as Array<Record<string, string>> | undefined) ?? [];
      }
    }
    return found;
  }

  async get(workspaceId: string, responseId: string, now = Date.now()): Promise<StoredResponse | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: key(workspaceId, responseId) }));
    const item = result.Item;
    if (!item || (typeof item.ttl === 'number' && item.ttl * 1000 <= now)) return undefined;
    const body = typeof item.body_ref === 'string' ? await blobStore().get(item.body_ref) : Buffer.from(item.body as Uint8Array);
    if (!body) return undefined;
    return JSON.parse(gunzipSync(body).toString('utf8')) as StoredResponse;
  }

  /** Deletes the response; false when there was none (in this workspace). */
  async delete(workspaceId: string, responseId: string): Promise<boolean> {
    const result = await this.client.send(new DeleteCommand({ TableName: this.table, Key: key(workspaceId, responseId), ReturnValues: 'ALL_OLD' }));
    if (typeof result.Attributes?.body_ref === 'string') await blobStore().delete(result.Attributes.body_ref);
    return result.Attributes !== undefined;
  }
}

let repository: ResponseRepository | undefined;
export const responseRepository = () => (repository ??= new ResponseRepository());
