import { describe, expect, it } from 'vitest';
import { bandSignatures, collisionProbability } from '../../../../shared/gateway/cache/vector-index/lsh.js';
import { dequantise, dot, quantise } from '../../../../shared/gateway/cache/vector-index/quantise.js';
import { chooseSlot } from '../../../../shared/gateway/cache/vector-index/slot-memory.js';
import { cosine, neighbour, randomUnit, seededRandom } from '../../../integration/cache/support/synthetic-vectors.js';

const random = seededRandom(7);

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

describe('random-hyperplane bands', () => {
  const shape = { bands: 4, bitsPerBand: 12, seed: 99 };

  it('gives the same vector the same signatures on every call, one hex string a band', () => {
    const vector = randomUnit(256, random);
    const signatures = bandSignatures(vector, shape);
    expect(signatures).toHaveLength(4);
    expect(signatures.every((signature) => /^[0-9a-f]{3}$/.test(signature))).toBe(true);
    expect(bandSignatures(Float32Array.from(vector), shape)).toEqual(signatures);
    expect(bandSignatures(vector, { ...shape, seed: 100 })).not.toEqual(signatures);
  });

  it('puts near neighbours in a shared bucket about as often as the formula says', () => {
    for (const similarity of [0.95, 0.98]) {
      let shared = 0;
      const trials = 400;
      for (let i = 0; i < trials; i++) {
        const base = randomUnit(256, random);
        const near = neighbour(base, similarity, random);
        const a = bandSignatures(base, shape);
        const b = bandSignatures(near, shape);
        if (a.some((signature, band) => signature === b[band])) shared++;
      }
      expect(Math.abs(shared / trials - collisionProbability(similarity, shape))).toBeLessThan(0.08);
    }
  });

  it('refuses a band wider than 32 bits', () => {
    expect(() => bandSignatures(randomUnit(8, random), { bands: 1, bitsPerBand: 33, seed: 1 })).toThrow(RangeError);
  });
});

describe('choosing the slot an insert writes', () => {
  const now = 1_000;
  it('rewrites the entry\'s own slot, else an empty or expired one, else the soonest to expire', () => {
    expect(chooseSlot([{ key: 'a', expiresAt: 5_000 }, { key: 'b', expiresAt: 5_000 }], 'b', now)).toBe(1);
    expect(chooseSlot([{ key: 'a', expiresAt: 5_000 }, undefined, { key: 'c', expiresAt: 10 }], 'd', now)).toBe(1);
    expect(chooseSlot([{ key: 'a', expiresAt: 5_000 }, { key: 'c', expiresAt: 999 }], 'd', now)).toBe(1);
    expect(chooseSlot([{ key: 'a', expiresAt: 5_000 }, { key: 'b', expiresAt: 3_000 }, { key: 'c', expiresAt: 4_000 }], 'd', now)).toBe(1);
  });
});
