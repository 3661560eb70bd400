import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../../settings.js';
import { dynamoDocumentClient } from '../../../store/dynamo-client.js';
import { CACHE_TABLE, tableName } from '../../../store/table-definitions.js';
import { decodeRecord, encodeRecord } from './bucket-record.js';
import { probeSequence, signatures, type MultiProbeShape } from './multi-probe.js';
import { paddedLength, rotate } from './rotation.js';
import { codeBits, encodeSignCode, estimateCosine, queryPart } from './sign-code.js';
import { chooseSlot, SlotMemory, type ObservedBucket } from './slot-memory.js';
import type { VectorIndex, VectorMatch, VectorScope } from './types.js';

export interface VectorIndexShape extends MultiProbeShape {
  /** Entries one bucket item holds (its slot attributes `s0`…). */
  slotsPerBucket: number;
  /** Seed of the rotation: every process must use the same one. */
  seed: number;
}

/**
 * 6 tables of 16 bits, 40 probes, 5 slots: one lookup reads 40 bucket items, at most 200 candidates of 171
 * bytes (≤ ~56 KB on the wire whatever the embedding's dimension); an insert writes 6 items. Chosen by measured
 * recall at 100,000 entries in one partition against other shapes of about the same read size (docs/cache.md).
 */
export const DEFAULT_VECTOR_INDEX_SHAPE: VectorIndexShape = { tables: 6, bitsPerTable: 16, probes: 40, slotsPerBucket: 5, seed: 0x67_77_34 };

/** BatchGetItem takes at most 100 keys: the probes must fit one call. */
const MAX_KEYS_PER_LOOKUP = 100;
/** The sort key of every bucket item: a bucket is one item, its slots are attributes. */
export const BUCKET_SK = 'B';
/** How many standard deviations of the estimate `ceiling` adds. */
const CEILING_DEVIATIONS = 4;

export interface DynamoVectorIndexOptions {
  client?: DynamoDBDocumentClient;
  table?: string;
  shape?: VectorIndexShape;
  now?: () => number;
}

/** An entry's slot record for one bucket, for bulk loading (the bench) as for inserts. */
export interface EntryPlacement {
  pk: string;
  record: Uint8Array;
  expiresAt: number;
}

/**
 * The semantic-cache index in the cache table. An entry's sign code is written into one slot of one bucket
 * item per table; a bucket item's partition key is workspace + cache partition + table + signature, so a
 * lookup is one BatchGetItem of known keys (no Query, no paging), and an insert sets one slot attribute
 * (UpdateItem, no read) instead of reading the bucket to evict: buckets never outgrow their slots. The
 * candidates are ranked by their estimated cosine; the cache checks the winner exactly (exact-check.ts).
 */
export class DynamoVectorIndex implements VectorIndex {
  private readonly client: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly shape: VectorIndexShape;
  private readonly now: () => number;
  private readonly memory = new SlotMemory();
  private readonly projection: { ProjectionExpression: string; ExpressionAttributeNames: Record<string, string> };

  constructor(options: DynamoVectorIndexOptions = {}) {
    this.client = options.client ?? dynamoDocumentClient();
    this.table = options.table ?? tableName(settings(), CACHE_TABLE);
    this.shape = options.shape ?? DEFAULT_VECTOR_INDEX_SHAPE;
    this.now = options.now ?? Date.now;
    if (this.shape.probes > MAX_KEYS_PER_LOOKUP || this.shape.probes < this.shape.tables) throw new RangeError(`probes must be between tables and ${MAX_KEYS_PER_LOOKUP}`);
    const slots = slotNumbers(this.shape).map((slot) => [`#s${slot}`, slotAttribute(slot)]);
    this.projection = { ProjectionExpression: ['#pk', ...slots.map(([name]) => name)].join(', '), ExpressionAttributeNames: Object.fromEntries([['#pk', 'pk'], ...slots]) };
  }

  async query(scope: VectorScope, vector: Float32Array): Promise<VectorMatch[]> {
    const { rotated, bits } = rotatedCoordinates(vector, this.shape);
    const pks = probedBuckets(scope, rotated, bits, this.shape);
    const result = await this.client.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: pks.map((pk) => ({ pk, sk: BUCKET_SK })), ...this.projection } } }));
    // Keys DynamoDB left unprocessed (throttling) are treated as empty: a lookup is one round trip, a miss is cheap.
    const unprocessed = new Set(((result.UnprocessedKeys?.[this.table]?.Keys ?? []) as Array<{ pk: string }>).map((key) => key.pk));
    const items = new Map(((result.Responses?.[this.table] ?? []) as Array<Record<string, unknown>>).map((item) => [item.pk as string, item]));
    const query = queryPart(rotated, bits);
    const now = this.now();
    const matches = new Map<string, VectorMatch>();
    for (const pk of pks) {
      if (unprocessed.has(pk)) continue;
      const item = items.get(pk);
      const observed: ObservedBucket = new Array(this.shape.slotsPerBucket).fill(undefined);
      for (const slot of slotNumbers(this.shape)) {
        const bytes = item?.[slotAttribute(slot)];
        const record = bytes instanceof Uint8Array ? decodeRecord(bytes) : undefined;
        if (!record) continue;
        observed[slot] = { key: record.key, expiresAt: record.expiresAt, record: bytes as Uint8Array };
        if (record.expiresAt <= now) continue;
        this.memory.rememberLocation(scopeKey(scope), record.key, { pk, slot, record: bytes as Uint8Array });
        if (matches.has(record.key)) continue;
        const similarity = estimateCosine(query, record.code);
        if (!Number.isNaN(similarity)) matches.set(record.key, { key: record.key, similarity, ceiling: ceiling(similarity, bits) });
      }
      this.memory.rememberBucket(pk, observed);
    }
    return [...matches.values()].sort((a, b) => b.similarity - a.similarity);
  }

  async insert(scope: VectorScope, key: string, vector: Float32Array, expiresAt: number): Promise<void> {
    await Promise.all(entryPlacements(scope, key, vector, expiresAt, this.shape).map((placement) => this.putInBucket(placement, key)));
  }

  async evict(scope: VectorScope, key: string): Promise<void> {
    for (const { pk, slot, record } of this.memory.takeLocations(scopeKey(scope), key)) {
      this.memory.forgetBucket(pk);
      await ignoringLostRace(
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk, sk: BUCKET_SK },
            UpdateExpression: 'REMOVE #slot',
            ConditionExpression: '#slot = :record',
            ExpressionAttributeNames: { '#slot': slotAttribute(slot) },
            ExpressionAttributeValues: { ':record': record },
          }),
        ),
      );
    }
  }

  /**
   * One table's write. With a recent view of the bucket the slot is chosen from it and written only if it still
   * holds what was seen (another process may have changed it: then this table is skipped, the others still
   * index the entry); without one, the entry's own hash picks the slot (random replacement).
   */
  private async putInBucket({ pk, record, expiresAt }: EntryPlacement, key: string): Promise<void> {
    const seen = this.memory.bucket(pk);
    const now = this.now();
    const slot = seen ? chooseSlot(seen, key, now) : hashSlot(key, this.shape.slotsPerBucket);
    const previous = seen?.[slot];
    const condition = !seen ? undefined : previous ? '#slot = :previous' : 'attribute_not_exists(#slot)';
    // The item's TTL must outlive its slots: the latest expiry this process knows of (its own without a view).
    const latest = Math.max(expiresAt, ...(seen ?? []).filter((other, index) => other && index !== slot && other.expiresAt > now).map((other) => other!.expiresAt));
    // Claimed before the write, so a concurrent insert of this process into the same bucket picks another slot.
    if (seen) seen[slot] = { key, expiresAt, record };
    const written = await ignoringLostRace(
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk, sk: BUCKET_SK },
          UpdateExpression: 'SET #slot = :record, #ttl = :ttl',
          ...(condition ? { ConditionExpression: condition } : {}),
          ExpressionAttributeNames: { '#slot': slotAttribute(slot), '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':record': record, ':ttl': Math.ceil(latest / 1000), ...(previous ? { ':previous': previous.record } : {}) },
        }),
      ),
    );
    if (!written) this.memory.forgetBucket(pk);
  }
}

/** The bucket (one per table) and slot record of an entry. */
export function entryPlacements(scope: VectorScope, key: string, vector: Float32Array, expiresAt: number, shape: VectorIndexShape = DEFAULT_VECTOR_INDEX_SHAPE): EntryPlacement[] {
  const { rotated, bits } = rotatedCoordinates(vector, shape);
  const record = encodeRecord(key, expiresAt, encodeSignCode(rotated, bits));
  return signatures(rotated, bits, shape).map((signature, table) => ({ pk: bucketPk(scope, table, signature), record, expiresAt }));
}

/** The bucket items a lookup of `vector` reads (their partition keys), most likely first. */
export function lookupBuckets(scope: VectorScope, vector: Float32Array, shape: VectorIndexShape = DEFAULT_VECTOR_INDEX_SHAPE): string[] {
  const { rotated, bits } = rotatedCoordinates(vector, shape);
  return probedBuckets(scope, rotated, bits, shape);
}

function probedBuckets(scope: VectorScope, rotated: Float64Array, bits: number, shape: VectorIndexShape): string[] {
  return [...new Set(probeSequence(rotated, bits, shape).map((probe) => bucketPk(scope, probe.table, probe.signature)))];
}

/** A whole bucket item, for bulk loading with BatchWriteItem. */
export function bucketItem(pk: string, slots: ReadonlyArray<EntryPlacement | undefined>): Record<string, unknown> {
  const item: Record<string, unknown> = { pk, sk: BUCKET_SK, ttl: Math.ceil(Math.max(0, ...slots.map((slot) => slot?.expiresAt ?? 0)) / 1000) };
  slots.forEach((slot, index) => {
    if (slot) item[slotAttribute(index)] = slot.record;
  });
  return item;
}

/** The query's or entry's rotated coordinates: the code's bits first, then every table's signature bits. */
function rotatedCoordinates(vector: Float32Array, shape: VectorIndexShape): { rotated: Float64Array; bits: number } {
  const bits = codeBits(paddedLength(vector.length));
  return { rotated: rotate(vector, bits + shape.tables * shape.bitsPerTable, shape.seed), bits };
}

/** Estimate + 4 standard deviations; the estimate's spread is about √(1 − cos²)/√bits (sign-code.ts). */
function ceiling(similarity: number, bits: number): number {
  return similarity + (CEILING_DEVIATIONS * Math.sqrt(Math.max(0, 1 - similarity * similarity))) / Math.sqrt(bits);
}

/** One partition key per bucket: the workspace first, so scopes can never meet. */
function bucketPk(scope: VectorScope, table: number, signature: string): string {
  return `WS#${scope.workspaceId}#VEC2#${scope.partition}#${table}#${signature}`;
}

export const slotAttribute = (slot: number) => `s${slot}`;
const slotNumbers = (shape: VectorIndexShape) => Array.from({ length: shape.slotsPerBucket }, (_, slot) => slot);
const scopeKey = (scope: VectorScope) => `${scope.workspaceId}\u0000${scope.partition}`;

/** FNV-1a of the key, so an entry written twice without a view of its bucket lands on the same slot. */
export function hashSlot(key: string, slots: number): number {
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
