import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DeleteCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../../settings.js';
import { dynamoDocumentClient } from '../../../store/dynamo-client.js';
import { CACHE_TABLE, tableName } from '../../../store/table-definitions.js';
import { bandSignatures, type LshShape } from './lsh.js';
import { dequantise, dot, quantise } from './quantise.js';
import { chooseSlot, SlotMemory, type ObservedBucket } from './slot-memory.js';
import type { VectorIndex, VectorMatch, VectorScope } from './types.js';

export interface VectorIndexShape extends LshShape {
  /** Entries one bucket holds; a lookup reads bands × slotsPerBucket items at most. */
  slotsPerBucket: number;
}

/**
 * 8 bands × 3 slots: one lookup reads at most 24 items of ~1.6 KiB for 1,536-dimension embeddings (≤ 64 KiB
 * on the wire, 12 read units). 14 bits a band: 16,384 buckets a band in each partition (~49,000 slots a band).
 * Chosen by measured recall on clustered data against other shapes of the same read size (docs/cache.md).
 */
export const DEFAULT_VECTOR_INDEX_SHAPE: VectorIndexShape = { bands: 8, bitsPerBand: 14, slotsPerBucket: 3, seed: 0x67_77_23 };

/** BatchGetItem takes at most 100 keys: the shape must fit one call. */
const MAX_KEYS_PER_LOOKUP = 100;

export interface DynamoVectorIndexOptions {
  client?: DynamoDBDocumentClient;
  table?: string;
  shape?: VectorIndexShape;
  now?: () => number;
}

/** A slot item as it is stored: `k` the entry key, `v` the quantised vector, `e` its expiry (epoch ms). */
export interface VectorSlotItem {
  pk: string;
  sk: string;
  k: string;
  v: Uint8Array;
  e: number;
  ttl: number;
}

/**
 * The semantic-cache index in the cache table. Each entry is written to one bucket per LSH band; a bucket is
 * one partition key (workspace + cache partition + band + signature) with a fixed number of slot items, so
 * buckets spread over thousands of keys, a lookup is one BatchGetItem of known keys (no Query, no paging),
 * and an insert overwrites a slot instead of reading the bucket to evict: buckets never outgrow their slots.
 * Candidates are re-ranked by exact cosine against their dequantised vectors.
 */
export class DynamoVectorIndex implements VectorIndex {
  private readonly client: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly shape: VectorIndexShape;
  private readonly now: () => number;
  private readonly memory = new SlotMemory();

  constructor(options: DynamoVectorIndexOptions = {}) {
    this.client = options.client ?? dynamoDocumentClient();
    this.table = options.table ?? tableName(settings(), CACHE_TABLE);
    this.shape = options.shape ?? DEFAULT_VECTOR_INDEX_SHAPE;
    this.now = options.now ?? Date.now;
    if (this.shape.bands * this.shape.slotsPerBucket > MAX_KEYS_PER_LOOKUP) throw new RangeError(`bands × slotsPerBucket must be at most ${MAX_KEYS_PER_LOOKUP}`);
  }

  async query(scope: VectorScope, vector: Float32Array): Promise<VectorMatch[]> {
    const buckets = bucketKeys(scope, vector, this.shape);
    const keys = buckets.flatMap((pk, band) => slotNumbers(this.shape).map((slot) => ({ pk, sk: slotSk(band, slot) })));
    const result = await this.client.send(
      new BatchGetCommand({
        RequestItems: { [this.table]: { Keys: keys, ProjectionExpression: '#sk, #k, #v, #e', ExpressionAttributeNames: { '#sk': 'sk', '#k': 'k', '#v': 'v', '#e': 'e' } } },
      }),
    );
    // Keys DynamoDB left unprocessed (throttling) are treated as empty: a lookup is one round trip, a miss is cheap.
    const items = (result.Responses?.[this.table] ?? []) as Array<Pick<VectorSlotItem, 'sk' | 'k' | 'v' | 'e'>>;
    const now = this.now();
    const observed: ObservedBucket[] = buckets.map(() => new Array(this.shape.slotsPerBucket).fill(undefined));
    const vectors = new Map<string, Float32Array>();
    for (const item of items) {
      const [band, slot] = item.sk.split('#').map(Number);
      if (observed[band] === undefined || !(slot < this.shape.slotsPerBucket)) continue;
      observed[band][slot] = { key: item.k, expiresAt: item.e };
      if (item.e <= now) continue;
      this.memory.rememberLocation(scopeKey(scope), item.k, { pk: buckets[band], sk: item.sk });
      if (!vectors.has(item.k)) vectors.set(item.k, dequantise(item.v));
    }
    buckets.forEach((pk, band) => this.memory.rememberBucket(pk, observed[band]));
    const norm = Math.sqrt(dot(vector, vector)) || 1;
    return [...vectors]
      .filter(([, candidate]) => candidate.length === vector.length)
      .map(([key, candidate]) => ({ key, similarity: dot(vector, candidate) / norm }))
      .sort((a, b) => b.similarity - a.similarity);
  }

  async insert(scope: VectorScope, key: string, vector: Float32Array, expiresAt: number): Promise<void> {
    const code = quantise(vector);
    await Promise.all(bucketKeys(scope, vector, this.shape).map((pk, band) => this.putInBucket(pk, band, key, code, expiresAt)));
  }

  async evict(scope: VectorScope, key: string): Promise<void> {
    for (const { pk, sk } of this.memory.takeLocations(scopeKey(scope), key)) {
      this.memory.forgetBucket(pk);
      await ignoringLostRace(
        this.client.send(new DeleteCommand({ TableName: this.table, Key: { pk, sk }, ConditionExpression: '#k = :key', ExpressionAttributeNames: { '#k': 'k' }, ExpressionAttributeValues: { ':key': key } })),
      );
    }
  }

  /**
   * One band's write. With a recent view of the bucket the slot is chosen from it and written only if it still
   * holds what was seen (another process may have filled it: then this band is skipped, the others still
   * index the entry); without one, the entry's own hash picks the slot (random replacement).
   */
  private async putInBucket(pk: string, band: number, key: string, code: Uint8Array, expiresAt: number): Promise<void> {
    const seen = this.memory.bucket(pk);
    const slot = seen ? chooseSlot(seen, key, this.now()) : hashSlot(key, this.shape.slotsPerBucket);
    const item = slotItem(pk, band, slot, key, code, expiresAt);
    const previous = seen?.[slot];
    const condition = !seen
      ? {}
      : previous
        ? { ConditionExpression: '#k = :previous', ExpressionAttributeNames: { '#k': 'k' }, ExpressionAttributeValues: { ':previous': previous.key } }
        : { ConditionExpression: 'attribute_not_exists(pk)' };
    // Claimed before the write, so a concurrent insert of this process into the same bucket picks another slot.
    if (seen) seen[slot] = { key, expiresAt };
    const written = await ignoringLostRace(this.client.send(new PutCommand({ TableName: this.table, Item: item, ...condition })));
    if (!written) this.memory.forgetBucket(pk);
  }
}

/**
 * The items an entry is written as, for bulk loading with BatchWriteItem: slots chosen by `slotFor` (a loader
 * that tracks its buckets can fill them in order, as inserts after lookups do) or else by the entry's hash.
 */
export function vectorSlotItems(
  scope: VectorScope,
  key: string,
  vector: Float32Array,
  expiresAt: number,
  shape: VectorIndexShape = DEFAULT_VECTOR_INDEX_SHAPE,
  slotFor: (bucketPk: string) => number = () => hashSlot(key, shape.slotsPerBucket),
): VectorSlotItem[] {
  const code = quantise(vector);
  return bucketKeys(scope, vector, shape).map((pk, band) => slotItem(pk, band, slotFor(pk) % shape.slotsPerBucket, key, code, expiresAt));
}

function slotItem(pk: string, band: number, slot: number, key: string, code: Uint8Array, expiresAt: number): VectorSlotItem {
  return { pk, sk: slotSk(band, slot), k: key, v: code, e: expiresAt, ttl: Math.ceil(expiresAt / 1000) };
}

/** One partition key per band bucket: the workspace first, so scopes can never meet. */
function bucketKeys(scope: VectorScope, vector: Float32Array, shape: VectorIndexShape): string[] {
  return bandSignatures(vector, shape).map((signature, band) => `WS#${scope.workspaceId}#VEC#${scope.partition}#${band}#${signature}`);
}

const slotSk = (band: number, slot: number) => `${band}#${slot}`;
const slotNumbers = (shape: VectorIndexShape) => Array.from({ length: shape.slotsPerBucket }, (_, slot) => slot);
const scopeKey = (scope: VectorScope) => `${scope.workspaceId}\u0000${scope.partition}`;

/** FNV-1a of the key, so an entry written twice without a view of its bucket lands on the same slot. */
function hashSlot(key: string, slots: number): number {
  let hash = 2166136261;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 16777619);
  return (hash >>> 0) % slots;
}

/** true when the write happened; false when its condition found the slot changed by someone else. */
async function ignoringLostRace(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException || (error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
