import { createHash } from 'node:crypto';
import { BatchWriteCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeRecord, encodeRecord } from '../../../shared/gateway/cache/vector-index/bucket-record.js';
import {
  bucketItem,
  DEFAULT_VECTOR_INDEX_SHAPE,
  DynamoVectorIndex,
  entryPlacements,
  lookupBuckets,
  slotAttribute,
  type DynamoVectorIndexOptions,
} from '../../../shared/gateway/cache/vector-index/dynamo-vector-index.js';
import type { VectorScope } from '../../../shared/gateway/cache/vector-index/types.js';
import { settings } from '../../../shared/settings.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { meteredDocumentClient, type StoreMeter } from './support/metered-dynamo-client.js';
import { neighbour, randomUnit, seededRandom } from './support/synthetic-vectors.js';

const DIMENSIONS = 1536;
const HOUR = 3_600_000;
const { tables, slotsPerBucket, probes } = DEFAULT_VECTOR_INDEX_SHAPE;

let gateway: TestGateway;
let metered: ReturnType<typeof meteredDocumentClient>;
let meter: StoreMeter;
const random = seededRandom(23);
let scopeCounter = 0;
/** A fresh cache partition per test, so tests never see each other's entries. */
const freshScope = (workspaceId = 'ws-vectors'): VectorScope => ({ workspaceId, partition: `partition-${++scopeCounter}` });
const index = (options: DynamoVectorIndexOptions = {}) => new DynamoVectorIndex({ client: metered.client, table: settings().GW_TABLE_CACHE, ...options });

beforeAll(async () => {
  // The local runtime provides the DynamoDB-compatible store and the tables; the index talks to it through the real SDK.
  gateway = await startTestGateway();
  metered = meteredDocumentClient(settings().GW_DYNAMODB_ENDPOINT!);
  meter = metered.meter;
});
afterAll(async () => {
  metered?.destroy();
  await gateway?.close();
});
beforeEach(() => meter.reset());

type BucketItem = Record<string, unknown> & { pk: string; sk: string };

/** Every bucket item of one scope, read with a Scan (tests only: the index itself never scans). */
async function storedBuckets(scope: VectorScope): Promise<BucketItem[]> {
  const items: BucketItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await metered.client.send(
      new ScanCommand({ TableName: settings().GW_TABLE_CACHE, FilterExpression: 'begins_with(pk, :prefix)', ExpressionAttributeValues: { ':prefix': `WS#${scope.workspaceId}#VEC2#${scope.partition}#` }, ExclusiveStartKey: startKey }),
    );
    items.push(...((page.Items ?? []) as BucketItem[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** The entry keys held by the slots of a scope's bucket items. */
async function storedSlots(scope: VectorScope): Promise<string[]> {
  return (await storedBuckets(scope)).flatMap((item) => Object.entries(item).filter(([name]) => /^s\d+$/.test(name)).map(([, bytes]) => decodeRecord(bytes as Uint8Array)!.key));
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('DynamoVectorIndex against the embedded store', () => {
  it('finds a near-duplicate, with an estimate of its similarity and a ceiling above the exact one, in exactly one BatchGetItem', async () => {
    const scope = freshScope();
    const vectors = index();
    const stored = randomUnit(DIMENSIONS, random);
    await vectors.insert(scope, 'entry-near', stored, Date.now() + HOUR);
    await vectors.insert(scope, 'entry-other', randomUnit(DIMENSIONS, random), Date.now() + HOUR);

    meter.reset();
    const [best] = await vectors.query(scope, neighbour(stored, 0.99, random));
    expect(meter.operations).toEqual(['BatchGetItem']);
    expect(best.key).toBe('entry-near');
    expect(Math.abs(best.similarity - 0.99)).toBeLessThan(0.02);
    expect(best.ceiling).toBeGreaterThanOrEqual(0.99);
  });

  it('misses a far vector: nothing it returns comes near the threshold', async () => {
    const scope = freshScope();
    const vectors = index();
    for (let i = 0; i < 20; i++) await vectors.insert(scope, `entry-${i}`, randomUnit(DIMENSIONS, random), Date.now() + HOUR);
    const matches = await vectors.query(scope, randomUnit(DIMENSIONS, random));
    expect(matches.every((match) => match.similarity < 0.5)).toBe(true);
  });

  it('never answers across workspaces or cache partitions', async () => {
    const scope = freshScope('ws-first');
    const vectors = index();
    const stored = randomUnit(DIMENSIONS, random);
    await vectors.insert(scope, 'entry-private', stored, Date.now() + HOUR);
    expect((await vectors.query(scope, stored))[0]?.key).toBe('entry-private');
    expect(await vectors.query({ ...scope, workspaceId: 'ws-second' }, stored)).toEqual([]);
    expect(await vectors.query({ ...scope, partition: `${scope.partition}-other-model` }, stored)).toEqual([]);
  });

  it('ignores an expired vector (injected clock), whatever the table holds', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const scope = freshScope();
    const vectors = index({ now: () => now });
    const stored = randomUnit(DIMENSIONS, random);
    await vectors.insert(scope, 'entry-ttl', stored, now + 60_000);
    now += 59_999;
    expect((await vectors.query(scope, stored)).map((match) => match.key)).toEqual(['entry-ttl']);
    now += 1;
    expect(await vectors.query(scope, stored)).toEqual([]);
  });

  it('inserts without reading: one UpdateItem per table', async () => {
    const scope = freshScope();
    await index().insert(scope, 'entry-write', randomUnit(DIMENSIONS, random), Date.now() + HOUR);
    expect(meter.operations).toEqual(new Array(tables).fill('UpdateItem'));
    expect(await storedSlots(scope)).toEqual(new Array(tables).fill('entry-write'));
  });

  it('finds a neighbour that shares none of the query\'s own buckets, in a probed neighbouring bucket', async () => {
    const scope = freshScope();
    // A neighbour at cosine 0.95 whose bucket differs from the query's in every table, but is among the probes.
    let pair: { stored: Float32Array; query: Float32Array } | undefined;
    while (!pair) {
      const stored = randomUnit(DIMENSIONS, random);
      const query = neighbour(stored, 0.95, random);
      const own = entryPlacements(scope, 'probe', stored, 0).map((placement) => placement.pk);
      const read = lookupBuckets(scope, query);
      if (!read.slice(0, tables).some((pk) => own.includes(pk)) && read.some((pk) => own.includes(pk))) pair = { stored, query };
    }
    await index().insert(scope, 'entry-across', pair.stored, Date.now() + HOUR);
    expect((await index().query(scope, pair.query))[0]?.key).toBe('entry-across');
  });

  it('keeps a bucket at its slots, evicting the soonest to expire, when inserts follow lookups', async () => {
    const scope = freshScope();
    const vectors = index();
    const shared = randomUnit(DIMENSIONS, random);
    const inserted = slotsPerBucket + 4;
    for (let i = 0; i < inserted; i++) {
      // The gateway's order: a lookup (a semantic miss), then the insert of the fresh answer.
      await vectors.query(scope, shared);
      await vectors.insert(scope, `entry-${i}`, shared, Date.now() + HOUR + i);
    }
    const keys = (await vectors.query(scope, shared)).map((match) => match.key).sort();
    const newest = Array.from({ length: slotsPerBucket }, (_, i) => `entry-${inserted - slotsPerBucket + i}`).sort();
    expect(keys).toEqual(newest);
    expect(await storedBuckets(scope)).toHaveLength(tables);
    expect((await storedSlots(scope)).length).toBe(tables * slotsPerBucket);
  });

  it('reads at most 64 KiB in one call when every probed bucket is full (SHA-256 keys, a long workspace id)', async () => {
    const scope = freshScope(`ws-${'0123456789abcdef'.repeat(2)}-0123`);
    scope.partition = sha256(scope.partition);
    const query = randomUnit(DIMENSIONS, random);
    const expiresAt = Date.now() + HOUR;
    // Every bucket the lookup reads holds as many entries as it can: the largest answer a lookup can get.
    const items = lookupBuckets(scope, query).map((pk, bucket) =>
      bucketItem(pk, Array.from({ length: slotsPerBucket }, (_, slot) => entryPlacements(scope, sha256(`${bucket}/${slot}`), randomUnit(DIMENSIONS, random), expiresAt)[0])),
    );
    for (let i = 0; i < items.length; i += 25) {
      await metered.client.send(new BatchWriteCommand({ RequestItems: { [settings().GW_TABLE_CACHE]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
    }

    meter.reset();
    const matches = await index().query(scope, query);
    expect(matches).toHaveLength(probes * slotsPerBucket);
    expect(meter.operations).toEqual(['BatchGetItem']);
    expect(meter.responseBytes).toBeGreaterThan(probes * slotsPerBucket * 228);
    expect(meter.responseBytes).toBeLessThanOrEqual(64 * 1024);
  });

  it('keeps a bucket at its slots when writers without a view of it insert (slots by hash)', async () => {
    const scope = freshScope();
    const shared = randomUnit(DIMENSIONS, random);
    // Fresh indexes have no view of the buckets: every insert picks its slot by hash, as a cold Lambda does.
    for (let i = 0; i < 20; i++) await index().insert(scope, `entry-${i}`, shared, Date.now() + HOUR);
    expect(await storedBuckets(scope)).toHaveLength(tables);
    expect((await storedSlots(scope)).length).toBeLessThanOrEqual(tables * slotsPerBucket);
    expect((await index().query(scope, shared)).length).toBeGreaterThan(0);
  });

  it('a lost race for a slot skips that table instead of overwriting the winner', async () => {
    const scope = freshScope();
    const shared = randomUnit(DIMENSIONS, random);
    const first = index();
    const second = index();
    // Both see the same empty buckets, then both insert: the second's conditional writes find the slots taken.
    await first.query(scope, shared);
    await second.query(scope, shared);
    await first.insert(scope, 'entry-winner', shared, Date.now() + HOUR);
    await second.insert(scope, 'entry-late', shared, Date.now() + HOUR);
    const keys = (await index().query(scope, shared)).map((match) => match.key);
    expect(keys).toContain('entry-winner');
    // The loser forgot its stale view: its next insert lands in a free slot.
    await second.query(scope, shared);
    await second.insert(scope, 'entry-late', shared, Date.now() + HOUR);
    expect((await index().query(scope, shared)).map((match) => match.key).sort()).toEqual(['entry-late', 'entry-winner']);
  });

  it('gives concurrent inserts of one process into the same bucket different slots', async () => {
    const scope = freshScope();
    const shared = randomUnit(DIMENSIONS, random);
    const vectors = index();
    await vectors.query(scope, shared);
    await Promise.all([vectors.insert(scope, 'entry-a', shared, Date.now() + HOUR), vectors.insert(scope, 'entry-b', shared, Date.now() + HOUR)]);
    expect((await vectors.query(scope, shared)).map((match) => match.key).sort()).toEqual(['entry-a', 'entry-b']);
  });

  it('evicts an entry it has seen, and leaves a slot another writer replaced meanwhile', async () => {
    const scope = freshScope();
    const shared = randomUnit(DIMENSIONS, random);
    const vectors = index();
    await vectors.insert(scope, 'entry-gone', shared, Date.now() + HOUR);
    await vectors.query(scope, shared);
    await vectors.evict(scope, 'entry-gone');
    expect(await vectors.query(scope, shared)).toEqual([]);
    expect(await storedSlots(scope)).toEqual([]);

    await vectors.insert(scope, 'entry-old', shared, Date.now() + HOUR);
    await vectors.query(scope, shared);
    // Another process replaces entry-old's slots with its own entry before this one evicts.
    for (const item of await storedBuckets(scope)) {
      const replaced = { ...item };
      for (let slot = 0; slot < slotsPerBucket; slot++) {
        const record = item[slotAttribute(slot)] ? decodeRecord(item[slotAttribute(slot)] as Uint8Array) : undefined;
        if (record?.key === 'entry-old') replaced[slotAttribute(slot)] = encodeRecord('entry-new', record.expiresAt, record.code);
      }
      await metered.client.send(new PutCommand({ TableName: settings().GW_TABLE_CACHE, Item: replaced }));
    }
    await vectors.evict(scope, 'entry-old');
    expect((await vectors.query(scope, shared)).map((match) => match.key)).toEqual(['entry-new']);
  });
});
