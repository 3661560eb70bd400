import { describe, expect, it } from 'vitest';
import { decodeRecord, encodeRecord } from '../../../../shared/gateway/cache/vector-index/bucket-record.js';
import { exactSimilarity, mayReach } from '../../../../shared/gateway/cache/vector-index/exact-check.js';
import { probeSequence, signatures } from '../../../../shared/gateway/cache/vector-index/multi-probe.js';
import { dequantise, dot, quantise } from '../../../../shared/gateway/cache/vector-index/quantise.js';
import { paddedLength, rotate } from '../../../../shared/gateway/cache/vector-index/rotation.js';
import { codeBits, encodeSignCode, estimateCosine, queryPart } from '../../../../shared/gateway/cache/vector-index/sign-code.js';
import { chooseSlot } from '../../../../shared/gateway/cache/vector-index/slot-memory.js';
import { cosine, neighbour, randomUnit, seededRandom } from '../../../integration/cache/support/synthetic-vectors.js';

const random = seededRandom(7);
const SEED = 1234;

describe('int8 quantisation', () => {
  it('stores 1,536 dimensions in 1,540 bytes and keeps cosine within 2e-3 of the exact one', () => {
    let worst = 0;
    for (let i = 0; i < 50; i++) {
      const stored = randomUnit(1536, random);
      const query = neighbour(stored, 0.9 + (i % 10) / 100, random);
      const code = quantise(stored);
      expect(code.byteLength).toBe(1540);
      worst = Math.max(worst, Math.abs(dot(query, dequantise(code)) - cosine(query, stored)));
    }
    expect(worst).toBeLessThan(2e-3);
  });

  it('keeps small vectors (the 64-dimension test embeddings) close too, and handles the zero vector', () => {
    const stored = randomUnit(64, random);
    expect(Math.abs(dot(stored, dequantise(quantise(stored))) - 1)).toBeLessThan(1e-3);
    expect(Array.from(dequantise(quantise(new Float32Array(8))))).toEqual(new Array(8).fill(0));
    expect(dequantise(new Uint8Array(2))).toHaveLength(0);
  });
});

describe('the fixed rotation', () => {
  it('keeps lengths and angles, pads to a power of two and gives the same output on every call', () => {
    const a = randomUnit(1536, random);
    const b = neighbour(a, 0.9, random);
    const ra = rotate(a, 2048, SEED);
    const rb = rotate(b, 2048, SEED);
    expect(paddedLength(1536)).toBe(2048);
    expect(ra).toHaveLength(2048);
    expect(Math.abs(dotOf(ra, ra) - 1)).toBeLessThan(1e-6);
    expect(Math.abs(dotOf(ra, rb) - 0.9)).toBeLessThan(1e-6);
    expect(rotate(Float32Array.from(a), 2048, SEED)).toEqual(ra);
    expect(rotate(a, 2048, SEED + 1)).not.toEqual(ra);
  });

  it('concatenates rotations when more coordinates are asked than one padded length holds', () => {
    const small = randomUnit(64, random);
    const rotated = rotate(small, 160, SEED);
    expect(rotated).toHaveLength(192);
    for (let r = 0; r < 3; r++) expect(Math.abs(dotOf(rotated.subarray(r * 64, (r + 1) * 64), rotated.subarray(r * 64, (r + 1) * 64)) - 1)).toBeLessThan(1e-6);
  });
});

describe('sign codes', () => {
  it('take 130 bytes whatever the dimension past 1,024, and 10 for the 64-dimension test embeddings', () => {
    for (const dimensions of [1536, 3072]) expect(encodeSignCode(rotate(randomUnit(dimensions, random), 1024, SEED), codeBits(paddedLength(dimensions))).byteLength).toBe(130);
    expect(encodeSignCode(rotate(randomUnit(64, random), 64, SEED), codeBits(64)).byteLength).toBe(10);
  });

  it('estimate the cosine without bias, and the ceiling (estimate + 4 deviations) never falls below the exact cosine', () => {
    const errors: number[] = [];
    for (let i = 0; i < 150; i++) {
      const stored = randomUnit(1536, random);
      const exact = 0.7 + (i % 30) / 100;
      const query = neighbour(stored, exact, random);
      const bits = codeBits(2048);
      const estimate = estimateCosine(queryPart(rotate(query, bits, SEED), bits), encodeSignCode(rotate(stored, bits, SEED), bits));
      errors.push(estimate - exact);
      expect(mayReach({ key: 'k', similarity: estimate, ceiling: estimate + (4 * Math.sqrt(1 - estimate ** 2)) / Math.sqrt(bits) }, exact)).toBe(true);
    }
    const mean = errors.reduce((sum, error) => sum + error, 0) / errors.length;
    expect(Math.abs(mean)).toBeLessThan(4e-3);
    expect(Math.max(...errors.map(Math.abs))).toBeLessThan(0.08);
  });

  it('refuses a code of another length (an embedding of another dimension)', () => {
    const query = queryPart(rotate(randomUnit(1536, random), 1024, SEED), 1024);
    expect(estimateCosine(query, encodeSignCode(rotate(randomUnit(64, random), 64, SEED), 64))).toBeNaN();
  });
});

describe('multi-probe buckets', () => {
  const shape = { tables: 6, bitsPerTable: 16, probes: 40 };

  it('reads the own bucket of every table first, then distinct neighbours in order of cost', () => {
    const rotated = rotate(randomUnit(1536, random), 1024 + 96, SEED);
    const probes = probeSequence(rotated, 1024, shape);
    expect(probes).toHaveLength(40);
    expect(probes.slice(0, 6).map((probe) => probe.signature)).toEqual(signatures(rotated, 1024, shape));
    expect(probes.slice(0, 6).every((probe, table) => probe.score === 0 && probe.table === table)).toBe(true);
    expect(new Set(probes.map((probe) => `${probe.table}#${probe.signature}`)).size).toBe(40);
    for (let i = 1; i < probes.length; i++) expect(probes[i].score).toBeGreaterThanOrEqual(probes[i - 1].score);
    expect(probes.every((probe) => /^[0-9a-f]{4}$/.test(probe.signature))).toBe(true);
  });

  it('finds a neighbour at cosine 0.95 in a probed bucket far more often than in the own buckets alone', () => {
    let own = 0;
    let probed = 0;
    const trials = 100;
    for (let i = 0; i < trials; i++) {
      const entry = randomUnit(1536, random);
      const query = neighbour(entry, 0.95, random);
      const entryBuckets = signatures(rotate(entry, 1024 + 96, SEED), 1024, shape).map((signature, table) => `${table}#${signature}`);
      const probes = probeSequence(rotate(query, 1024 + 96, SEED), 1024, shape).map((probe) => `${probe.table}#${probe.signature}`);
      if (probes.slice(0, 6).some((probe) => entryBuckets.includes(probe))) own++;
      if (probes.some((probe) => entryBuckets.includes(probe))) probed++;
    }
    // Own buckets alone: 1 − (1 − 0.899¹⁶)⁶ ≈ 0.70. With 34 more probes the neighbour is nearly always read.
    expect(own / trials).toBeLessThan(0.85);
    expect(probed / trials).toBeGreaterThan(0.93);
  });

  it('refuses a table wider than 32 bits', () => {
    expect(() => probeSequence(new Float64Array(64), 0, { tables: 1, bitsPerTable: 33, probes: 1 })).toThrow(RangeError);
  });
});

describe('bucket slot records', () => {
  it('store a SHA-256 key in 32 bytes (171 bytes a slot for 1,536 dimensions) and read back what was written', () => {
    const key = 'ab'.repeat(32);
    const code = encodeSignCode(rotate(randomUnit(1536, random), 1024, SEED), 1024);
    const record = encodeRecord(key, 1_790_000_000_123, code);
    expect(record.byteLength).toBe(171);
    expect(decodeRecord(record)).toEqual({ key, expiresAt: 1_790_000_000_123, code });
  });

  it('keep other keys as UTF-8, refuse one past 254 bytes, and read nothing from bytes that are not a record', () => {
    const code = new Uint8Array([1, 2, 3]);
    expect(decodeRecord(encodeRecord('entry-é', 5, code))).toEqual({ key: 'entry-é', expiresAt: 5, code });
    expect(() => encodeRecord('k'.repeat(255), 5, code)).toThrow(RangeError);
    expect(decodeRecord(new Uint8Array(0))).toBeUndefined();
    expect(decodeRecord(new Uint8Array([40, 1, 2]))).toBeUndefined();
  });
});

describe('the exact check of the winner', () => {
  it('is the cosine with the stored int8 vector, NaN for another dimension', () => {
    const stored = randomUnit(1536, random);
    const query = neighbour(stored, 0.96, random);
    expect(Math.abs(exactSimilarity(query, quantise(stored)) - 0.96)).toBeLessThan(2e-3);
    expect(exactSimilarity(query, quantise(randomUnit(64, random)))).toBeNaN();
  });

  it('reads a winner only when its ceiling reaches the threshold', () => {
    expect(mayReach(undefined, 0.95)).toBe(false);
    expect(mayReach({ key: 'a', similarity: 0.93, ceiling: 0.96 }, 0.95)).toBe(true);
    expect(mayReach({ key: 'a', similarity: 0.9, ceiling: 0.94 }, 0.95)).toBe(false);
  });
});

describe('choosing the slot an insert writes', () => {
  const now = 1_000;
  const slot = (key: string, expiresAt: number) => ({ key, expiresAt, record: new Uint8Array(0) });
  it("rewrites the entry's own slot, else an empty or expired one, else the soonest to expire", () => {
    expect(chooseSlot([slot('a', 5_000), slot('b', 5_000)], 'b', now)).toBe(1);
    expect(chooseSlot([slot('a', 5_000), undefined, slot('c', 10)], 'd', now)).toBe(1);
    expect(chooseSlot([slot('a', 5_000), slot('c', 999)], 'd', now)).toBe(1);
    expect(chooseSlot([slot('a', 5_000), slot('b', 3_000), slot('c', 4_000)], 'd', now)).toBe(1);
  });
});

function dotOf(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}
