import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import dynalite from 'dynalite';
import { BatchWriteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTables } from '../../infra/local/embedded-store.js';
import { CACHE_TABLE } from '../../shared/store/table-definitions.js';
import { bucketItem, DEFAULT_VECTOR_INDEX_SHAPE, DynamoVectorIndex, entryPlacements, hashSlot, type EntryPlacement, type VectorIndexShape } from '../../shared/gateway/cache/vector-index/dynamo-vector-index.js';
import { exactSimilarity, mayReach } from '../../shared/gateway/cache/vector-index/exact-check.js';
import { quantise } from '../../shared/gateway/cache/vector-index/quantise.js';
import { meteredDocumentClient } from '../../test/integration/cache/support/metered-dynamo-client.js';
import { clusteredEntries, cosine, neighbour, seededRandom } from '../../test/integration/cache/support/synthetic-vectors.js';
import { percentile, round } from '../measure/stats.js';

/**
 * Semantic-cache scale (issue #23): N cached entries in one workspace and one cache partition (the worst case:
 * every entry competes for the same buckets), then lookups of near-duplicates of random entries, each timed
 * and metered on the wire. A lookup decides as the response cache does: the index's winner, if its estimate can
 * reach the threshold, is checked exactly against its int8 vector (which the cache reads with the entry, a
 * GetItem it makes anyway to answer; counted apart as `entryReads`). Recall is against an exact search over all
 * N float vectors.
 *
 *   npx tsx bench/phases/semantic-scale.ts [--sizes 1000,10000,100000] [--lookups 300]
 *     [--tables 6 --bits 16 --probes 40 --slots 5] [--placement in-turn|hash] [--baseline]
 */
export interface SemanticScaleRow {
  entries: number;
  /** The largest response one lookup received, bytes on the wire (DynamoDB JSON; binary as base64). */
  lookupBytes: number;
  lookupBytesP50: number;
  /** Store round trips per lookup (the largest seen). */
  roundTrips: number;
  p50Ms: number;
  p95Ms: number;
  /** Share of lookups whose top match at ≥ threshold is the exact search's best entry. */
  recall: number;
  /** The same, over lookups whose exact best is at cosine ≥ 0.98. */
  recallAbove098: number;
  /** The same, over lookups of the newer half of the entries (a full partition evicts its oldest first). */
  recallNewerHalf: number;
  /** Lookups that answered (≥ threshold) with another entry than the exact best: a wrong hit. */
  wrongHits: number;
  /** Lookups whose winner was read for the exact check (the entry GetItem that answers a hit). */
  entryReads: number;
  /** Of those, reads that did not answer (the exact check said no): the index's extra cost on a miss. */
  entryReadsNotAnswering: number;
  /** Bucket items the partition holds after the fill, and the slots in them (an entry takes one slot a table). */
  storedBucketItems: number;
  storedSlots: number;
  fillSeconds: number;
}

export interface SemanticScaleOptions {
  sizes: number[];
  lookups?: number;
  dimensions?: number;
  threshold?: number;
  shape?: VectorIndexShape;
  placement?: SlotPlacement;
  /** Progress lines (stderr in the standalone run). */
  log?: (line: string) => void;
}

/** How the fill picks slots: `in-turn` like inserts after a lookup, `hash` like a writer without a view. */
export type SlotPlacement = 'in-turn' | 'hash';

const WORKSPACE = 'ws-bench-semantic';
const HOUR_MS = 3_600_000;

export async function measureSemanticScale(options: SemanticScaleOptions): Promise<SemanticScaleRow[]> {
  const store = await startInProcessStore();
  const metered = meteredDocumentClient(store.endpoint);
  const log = options.log ?? (() => undefined);
  try {
    const rows: SemanticScaleRow[] = [];
    for (const entries of options.sizes) {
      rows.push(await measureOneSize(entries, options, metered, log));
      log(`semantic-scale: ${JSON.stringify(rows.at(-1))}`);
    }
    return rows;
  } finally {
    metered.destroy();
    await store.close();
  }
}

async function measureOneSize(entries: number, options: SemanticScaleOptions, metered: ReturnType<typeof meteredDocumentClient>, log: (line: string) => void): Promise<SemanticScaleRow> {
  const dimensions = options.dimensions ?? 1536;
  const threshold = options.threshold ?? 0.95;
  const shape = options.shape ?? DEFAULT_VECTOR_INDEX_SHAPE;
  const scope = { workspaceId: WORKSPACE, partition: sha256(`bench-partition-${entries}-${JSON.stringify(shape)}`) };
  const index = new DynamoVectorIndex({ client: metered.client, table: CACHE_TABLE_NAME, shape });

  // Topics of ~50 entries each, entries at cosine ~0.81 from each other: similar, but below the threshold.
  const vectors = clusteredEntries(entries, dimensions, { clusters: Math.max(1, Math.round(entries / 50)), spread: 0.9, seed: entries });
  const keys = vectors.map((_, i) => sha256(`entry-${entries}-${i}`));
  const filled = Date.now();
  const stored = await bulkFill(metered.client, scope, keys, vectors, shape, options.placement ?? 'in-turn');
  const fillSeconds = (Date.now() - filled) / 1000;
  log(`semantic-scale: ${entries} entries written as ${stored.slots} slots in ${stored.items} bucket items in ${fillSeconds.toFixed(1)} s`);
  const entryOf = new Map(keys.map((key, i) => [key, i]));

  const random = seededRandom(entries + 1);
  const lookups = options.lookups ?? 300;
  const latencies: number[] = [];
  const bytes: number[] = [];
  let roundTrips = 0;
  let found = 0;
  let foundAbove098 = 0;
  let above098 = 0;
  let newer = 0;
  let foundNewer = 0;
  let wrongHits = 0;
  let entryReads = 0;
  let entryReadsNotAnswering = 0;
  for (let i = 0; i < lookups; i++) {
    const target = Math.floor(random() * entries);
    const query = neighbour(vectors[target], threshold + random() * (0.995 - threshold), random);
    const exact = exactBest(query, vectors);
    metered.meter.reset();
    const started = process.hrtime.bigint();
    const [best] = await index.query(scope, query);
    latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    bytes.push(metered.meter.responseBytes);
    roundTrips = Math.max(roundTrips, metered.meter.roundTrips);
    // What the response cache does next: read the winner's entry and check its stored int8 vector exactly.
    let hit = false;
    if (mayReach(best, threshold)) {
      entryReads++;
      hit = exactSimilarity(query, quantise(vectors[entryOf.get(best.key)!])) >= threshold;
      if (!hit) entryReadsNotAnswering++;
    }
    const right = hit && best!.key === keys[exact.index];
    if (right) found++;
    if (hit && !right) wrongHits++;
    if (target >= entries / 2) {
      newer++;
      if (right) foundNewer++;
    }
    if (exact.similarity >= 0.98) {
      above098++;
      if (right) foundAbove098++;
    }
  }
  return {
    entries,
    lookupBytes: Math.max(...bytes),
    lookupBytesP50: percentile(bytes, 50),
    roundTrips,
    p50Ms: round(percentile(latencies, 50), 2),
    p95Ms: round(percentile(latencies, 95), 2),
    recall: round(found / lookups, 3),
    recallAbove098: round(above098 ? foundAbove098 / above098 : Number.NaN, 3),
    recallNewerHalf: round(newer ? foundNewer / newer : Number.NaN, 3),
    wrongHits,
    entryReads,
    entryReadsNotAnswering,
    storedBucketItems: stored.items,
    storedSlots: stored.slots,
    fillSeconds: round(fillSeconds, 1),
  };
}

/**
 * Writes N entries as whole bucket items, 25 a BatchWriteItem, a few batches in flight: slots filled in turn (as
 * inserts that follow a lookup place them: empty first, then the oldest), or by each entry's hash (as a writer
 * with no view of the bucket does, e.g. after a forced refresh). Later entries overwrite earlier ones in a full
 * bucket, as they would in service.
 */
async function bulkFill(
  client: ReturnType<typeof meteredDocumentClient>['client'],
  scope: { workspaceId: string; partition: string },
  keys: string[],
  vectors: Float32Array[],
  shape: VectorIndexShape,
  placement: SlotPlacement,
): Promise<{ items: number; slots: number }> {
  const expiresAt = Date.now() + HOUR_MS;
  const buckets = new Map<string, { slots: Array<EntryPlacement | undefined>; written: number }>();
  vectors.forEach((vector, i) => {
    for (const entry of entryPlacements(scope, keys[i], vector, expiresAt, shape)) {
      const bucket = buckets.get(entry.pk) ?? { slots: new Array<EntryPlacement | undefined>(shape.slotsPerBucket).fill(undefined), written: 0 };
      bucket.slots[placement === 'in-turn' ? bucket.written % shape.slotsPerBucket : hashSlot(keys[i], shape.slotsPerBucket)] = entry;
      bucket.written++;
      buckets.set(entry.pk, bucket);
    }
  });
  const items = [...buckets].map(([pk, bucket]) => bucketItem(pk, bucket.slots));
  const slots = [...buckets.values()].reduce((sum, bucket) => sum + bucket.slots.filter(Boolean).length, 0);
  const batches: Array<typeof items> = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      let pending: Array<{ PutRequest: { Item: Record<string, unknown> } }> = batches[next++].map((Item) => ({ PutRequest: { Item } }));
      while (pending.length > 0) {
        const result = await client.send(new BatchWriteCommand({ RequestItems: { [CACHE_TABLE_NAME]: pending } }));
        pending = (result.UnprocessedItems?.[CACHE_TABLE_NAME] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return { items: items.length, slots };
}

function exactBest(query: Float32Array, vectors: readonly Float32Array[]): { index: number; similarity: number } {
  let best = { index: -1, similarity: -Infinity };
  vectors.forEach((vector, index) => {
    const similarity = cosine(query, vector);
    if (similarity > best.similarity) best = { index, similarity };
  });
  return best;
}

/**
 * The layout before issue #23, measured for comparison: `entries` float32 vectors under one partition key,
 * read back with Query pages (what every lookup did when its in-memory copy was cold).
 */
export async function measureOldPartitionLayout(entries = 256, dimensions = 1536): Promise<{ entries: number; lookupBytes: number; roundTrips: number }> {
  const store = await startInProcessStore();
  const metered = meteredDocumentClient(store.endpoint);
  try {
    const pk = `WS#${WORKSPACE}#SEMANTIC#old`;
    const vectors = clusteredEntries(entries, dimensions, { clusters: 8, spread: 0.9, seed: 5 });
    for (const [i, vector] of vectors.entries()) {
      const item = { pk, sk: `${String(i).padStart(15, '0')}#${sha256(String(i))}`, key: sha256(String(i)), vector: new Uint8Array(vector.buffer), expires_at: Date.now() + HOUR_MS };
      await metered.client.send(new PutCommand({ TableName: CACHE_TABLE_NAME, Item: item }));
    }
    metered.meter.reset();
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await metered.client.send(new QueryCommand({ TableName: CACHE_TABLE_NAME, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ExclusiveStartKey: startKey }));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return { entries, lookupBytes: metered.meter.responseBytes, roundTrips: metered.meter.roundTrips };
  } finally {
    metered.destroy();
    await store.close();
  }
}

const CACHE_TABLE_NAME = 'gw-bench-semantic-cache';

/** dynalite in this process, in memory, with the cache table (as infra/local/embedded-store.ts starts it). */
async function startInProcessStore(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  // Generating 100,000 vectors leaves the client's keep-alive socket idle longer than node's 5 s default.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await ensureTables(endpoint, 'us-east-1', [{ definition: CACHE_TABLE, name: CACHE_TABLE_NAME }]);
  return {
    endpoint,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1000,10000' },
      lookups: { type: 'string', default: '300' },
      dimensions: { type: 'string', default: '1536' },
      tables: { type: 'string', default: String(DEFAULT_VECTOR_INDEX_SHAPE.tables) },
      bits: { type: 'string', default: String(DEFAULT_VECTOR_INDEX_SHAPE.bitsPerTable) },
      probes: { type: 'string', default: String(DEFAULT_VECTOR_INDEX_SHAPE.probes) },
      slots: { type: 'string', default: String(DEFAULT_VECTOR_INDEX_SHAPE.slotsPerBucket) },
      placement: { type: 'string', default: 'in-turn' },
      baseline: { type: 'boolean', default: false },
    },
  });
  const shape: VectorIndexShape = { ...DEFAULT_VECTOR_INDEX_SHAPE, tables: Number(values.tables), bitsPerTable: Number(values.bits), probes: Number(values.probes), slotsPerBucket: Number(values.slots) };
  const sizes = values.sizes.split(',').map((size) => Number(size.trim()));
  if (sizes.some((size) => !Number.isInteger(size) || size < 1)) throw new Error('--sizes takes positive integers, e.g. 1000,10000');
  const log = (line: string) => process.stderr.write(`${line}\n`);
  log(`shape ${JSON.stringify(shape)}`);
  if (values.baseline) console.log('before (one partition key, float32):', await measureOldPartitionLayout());
  if (values.placement !== 'in-turn' && values.placement !== 'hash') throw new Error('--placement is in-turn or hash');
  const rows = await measureSemanticScale({ sizes, lookups: Number(values.lookups), dimensions: Number(values.dimensions), shape, placement: values.placement, log });
  console.table(rows);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
