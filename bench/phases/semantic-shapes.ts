import { parseArgs } from 'node:util';
import { exactSimilarity } from '../../shared/gateway/cache/vector-index/exact-check.js';
import { probeSequence, signatures } from '../../shared/gateway/cache/vector-index/multi-probe.js';
import { quantise } from '../../shared/gateway/cache/vector-index/quantise.js';
import { paddedLength, rotate } from '../../shared/gateway/cache/vector-index/rotation.js';
import { codeBits, encodeSignCode, estimateCosine, queryPart } from '../../shared/gateway/cache/vector-index/sign-code.js';
import { clusteredEntries, neighbour, seededRandom } from '../../test/integration/cache/support/synthetic-vectors.js';

/**
 * Compares index shapes before building one (issue #34): the semantic-scale phase's data and lookups, with the
 * index's own rotation, codes and probes, but buckets in memory (minutes instead of a store fill per shape).
 * Slots are filled in turn; the exact best is taken to be the entry the query was made from (its topic's other
 * entries are at cosine ~0.8). Decides as the cache does: best estimate, ceiling margin, exact int8 check.
 *
 *   npx tsx bench/phases/semantic-shapes.ts --entries 100000 --shapes 6x16x40x5,8x16x48x4  (tables×bits×probes×slots)
 */
const THRESHOLD = 0.95;
const DIMENSIONS = 1536;
const SEED = 7;

function main(): void {
  const { values } = parseArgs({ options: { entries: { type: 'string', default: '10000' }, shapes: { type: 'string', default: '6x16x40x5' }, lookups: { type: 'string', default: '300' } } });
  const entries = Number(values.entries);
  const shapes = values.shapes.split(',').map((text) => {
    const [tables, bitsPerTable, probes, slots] = text.split('x').map(Number);
    return { tables, bitsPerTable, probes, slots };
  });
  const bits = codeBits(paddedLength(DIMENSIONS));
  const coordinates = bits + Math.max(...shapes.map((shape) => shape.tables * shape.bitsPerTable));
  const vectors = clusteredEntries(entries, DIMENSIONS, { clusters: Math.max(1, Math.round(entries / 50)), spread: 0.9, seed: entries });
  const rotated = vectors.map((vector) => rotate(vector, coordinates, SEED).slice(0, coordinates));
  const codes = rotated.map((coordinatesOf) => encodeSignCode(coordinatesOf, bits));
  const random = seededRandom(entries + 1);
  const lookups = Array.from({ length: Number(values.lookups) }, () => {
    const target = Math.floor(random() * entries);
    return { target, query: neighbour(vectors[target], THRESHOLD + random() * (0.995 - THRESHOLD), random) };
  });
  for (const shape of shapes) {
    const buckets = new Map<string, number[]>();
    rotated.forEach((coordinatesOf, entry) =>
      signatures(coordinatesOf, bits, shape).forEach((signature, table) => {
        const bucket = buckets.get(`${table}#${signature}`) ?? [];
        if (bucket.length >= shape.slots) bucket.shift();
        bucket.push(entry);
        buckets.set(`${table}#${signature}`, bucket);
      }),
    );
    let found = 0;
    let candidates = 0;
    for (const { target, query } of lookups) {
      const queryCoordinates = rotate(query, coordinates, SEED);
      const part = queryPart(queryCoordinates, bits);
      const read = new Set(probeSequence(queryCoordinates, bits, shape).flatMap((probe) => buckets.get(`${probe.table}#${probe.signature}`) ?? []));
      candidates += read.size;
      let best = { entry: -1, estimate: -Infinity };
      for (const entry of read) {
        const estimate = estimateCosine(part, codes[entry]);
        if (estimate > best.estimate) best = { entry, estimate };
      }
      const ceiling = best.estimate + (4 * Math.sqrt(Math.max(0, 1 - best.estimate ** 2))) / Math.sqrt(bits);
      if (best.entry === target && ceiling >= THRESHOLD && exactSimilarity(query, quantise(vectors[target])) >= THRESHOLD) found++;
    }
    console.log(JSON.stringify({ entries, ...shape, recall: found / lookups.length, candidatesMean: candidates / lookups.length }));
  }
}

main();
