import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { HotEntries } from '../../cache/hot-entries.js';
import { settings } from '../../settings.js';
import { dynamoDocumentClient } from '../../store/dynamo-client.js';
import { CACHE_TABLE, tableName } from '../../store/table-definitions.js';

/** DynamoDB's item limit is 400 KB; entries above this are skipped (and logged), never a failure. */
export const MAX_ENTRY_BYTES = 350 * 1024;
/**
 * How many entries the hot-path bench puts in one semantic partition before timing lookups (bench/options.ts).
 * It no longer bounds a partition: the vector index (vector-index/) reads a fixed number of slots whatever
 * the partition holds.
 */
export const MAX_SEMANTIC_CANDIDATES = 256;

export type Clock = () => number;

/** An entry as read: the response body and, for entries of semantic mode, its int8 vector (quantise.ts). */
export interface StoredEntry {
  body: string;
  vector?: Uint8Array;
}

/**
 * The response cache's entries in the cache table (their vectors live in vector-index/). Every key starts
 * with the workspace id, so one workspace can never read, nor probe, another's entries. Reads check the
 * stored expiry themselves: the AWS table's TTL only cleans up, and the local store never deletes.
 */
export class ResponseCacheStore {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), CACHE_TABLE);
  /** Hot entries answer from memory, without a store read (shared/cache/hot-entries.ts). */
  private readonly memory: HotEntries;

  constructor(private readonly now: Clock = Date.now, memory?: HotEntries) {
    this.memory = memory ?? new HotEntries({ maxBytes: () => settings().GW_CACHE_MEMORY_MAX_BYTES, ttlMs: () => settings().GW_CACHE_MEMORY_TTL_MS, now });
  }

  /** The expiry an entry written now with `maxAgeSeconds` gets (its vector shares it). */
  expiryFor(maxAgeSeconds: number): number {
    return this.now() + maxAgeSeconds * 1000;
  }

  /** The entry's body: from memory while this process holds it, else read (and then held). */
  async get(workspaceId: string, key: string): Promise<string | undefined> {
    const held = this.memory.get(workspaceId, key);
    if (held !== undefined) return held;
    const mark = this.memory.readStarted(workspaceId, key);
    let found: { body: string; expiresAt: number } | undefined;
    try {
      const item = await this.read(workspaceId, key);
      if (item) found = { body: item.body, expiresAt: item.expires_at };
      return item?.body;
    } finally {
      // A failed read ends too, so the memory's record of reads in flight never grows.
      this.memory.readEnded(mark, found);
    }
  }

  /** The entry with its vector, always read: the semantic cache checks a candidate's exact similarity with it. */
  async getEntry(workspaceId: string, key: string): Promise<StoredEntry | undefined> {
    const item = await this.read(workspaceId, key);
    if (!item) return undefined;
    return { body: item.body, vector: item.vector instanceof Uint8Array ? item.vector : undefined };
  }

  /** Drops what memory holds for the entry (a forced refresh replaces it; other processes see that within their memory TTL). */
  forget(workspaceId: string, key: string): void {
    this.memory.forget(workspaceId, key);
  }

  private async read(workspaceId: string, key: string): Promise<{ body: string; expires_at: number; vector?: Uint8Array } | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: { pk: entryPk(workspaceId, key), sk: 'ENTRY' } }));
    const item = result.Item as { body?: string; expires_at?: number; vector?: Uint8Array } | undefined;
    if (!item?.body || (item.expires_at ?? 0) <= this.now()) return undefined;
    return { body: item.body, expires_at: item.expires_at ?? 0, vector: item.vector };
  }

  /**
   * Stores an entry, with the conversation's embedding as int8 (~1.5 KB for 1,536 dimensions) in semantic mode;
   * returns false (and stores nothing) when it is too large for one item.
   */
  async put(workspaceId: string, key: string, body: string, maxAgeSeconds: number, embedding?: Float32Array): Promise<boolean> {
    if (Buffer.byteLength(body) > MAX_ENTRY_BYTES) return false;
    const expiresAt = this.expiryFor(maxAgeSeconds);
    // Only semantic entries carry a vector: the quantiser is loaded by the first one (out of the cold start).
    const vector = embedding ? (await import('./vector-index/quantise.js')).quantise(embedding) : undefined;
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: entryPk(workspaceId, key), sk: 'ENTRY', body, ...(vector ? { vector } : {}), created_at: this.now(), expires_at: expiresAt, ttl: Math.ceil(expiresAt / 1000) },
      }),
    );
    this.memory.rememberWrite(workspaceId, key, body, expiresAt);
    return true;
  }
}

const entryPk = (workspaceId: string, key: string) => `WS#${workspaceId}#ENTRY#${key}`;
