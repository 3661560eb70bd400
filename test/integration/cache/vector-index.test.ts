import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_VECTOR_INDEX_SHAPE, DynamoVectorIndex, type DynamoVectorIndexOptions } from '../../../shared/gateway/cache/vector-index/dynamo-vector-index.js';
import type { VectorScope } from '../../../shared/gateway/cache/vector-index/types.js';
import { settings } from '../../../shared/settings.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { meteredDocumentClient, type StoreMeter } from './support/metered-dynamo-client.js';
import { neighbour, randomUnit, seededRandom } from './support/synthetic-vectors.js';

const DIMENSIONS = 1536;
const HOUR = 3_600_000;
const { bands, slotsPerBucket } = DEFAULT_VECTOR_INDEX_SHAPE;

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

/** Every slot item of one scope, read with a Scan (tests only: the index itself never scans). */
async function storedSlots(scope: VectorScope): Promise<Array<{ pk: string; sk: string; k: string }>> {
  const items: Array<{ pk: string; sk: string; k: string }> = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await metered.client.send(
      new ScanCommand({ TableName: settings().GW_TABLE_CACHE, FilterExpression: 'begins_with(pk, :prefix)', ExpressionAttributeValues: { ':prefix': `WS#${scope.workspaceId}#VEC#${scope.partition}#` }, ExclusiveStartKey: startKey }),
    );
    items.push(...((page.Items ?? []) as Array<{ pk: string; sk: string; k: string }>));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

describe('DynamoVectorIndex against the embedded store', () => {
  it('finds a near-duplicate, with the similarity of its quantised vector, in exactly one BatchGetItem', async () => {
    const scope = freshScope();
    const vectors = index();
    const stored = randomUnit(DIMENSIONS, random);
    await vectors.insert(scope, 'entry-near', stored, Date.now() + HOUR);
    await vectors.insert(scope, 'entry-other', randomUnit(DIMENSIONS, random), Date.now() + HOUR);

    meter.reset();
    const [best] = await vectors.query(scope, neighbour(stored, 0.99, random));
    expect(meter.operations).toEqual(['BatchGetItem']);
    expect(best.key).toBe('entry-near');
    expect(Math.abs(best.similarity - 0.99)).toBeLessThan(0.005);
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

  it('inserts without reading: one PutItem per band', async () => {
    const scope = freshScope();
    await index().insert(scope, 'entry-write', randomUnit(DIMENSIONS, random), Date.now() + HOUR);
    expect(meter.operations).toEqual(new Array(bands).fill('PutItem'));
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
    expect((await storedSlots(scope)).length).toBe(bands * slotsPerBucket);
  });

  it('reads at most 64 KiB in one call from buckets filled past their slots (1,536 dimensions)', async () => {
    const scope = freshScope();
    const shared = randomUnit(DIMENSIONS, random);
    // Fresh indexes have no view of the buckets: every insert picks its slot by hash, as a cold Lambda does.
    for (let i = 0; i < 40; i++) await index().insert(scope, `entry-${i}-${'k'.repeat(56)}`, shared, Date.now() + HOUR);
    expect((await storedSlots(scope)).length).toBeLessThanOrEqual(bands * slotsPerBucket);

    meter.reset();
    const matches = await index().query(scope, shared);
    expect(matches.length).toBeGreaterThan(0);
    expect(matches.length).toBeLessThanOrEqual(slotsPerBucket);
    expect(meter.roundTrips).toBe(1);
    expect(meter.responseBytes).toBeGreaterThan(bands * 2_048);
    expect(meter.responseBytes).toBeLessThanOrEqual(64 * 1024);
  });

  it('a lost race for a slot skips that band instead of overwriting the winner', async () => {
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
    for (const slot of await storedSlots(scope)) {
      await metered.client.send(new PutCommand({ TableName: settings().GW_TABLE_CACHE, Item: { ...slot, k: 'entry-new' } }));
    }
    await vectors.evict(scope, 'entry-old');
    expect((await vectors.query(scope, shared)).map((match) => match.key)).toEqual(['entry-new']);
  });
});
