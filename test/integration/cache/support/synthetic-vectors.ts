/**
 * Synthetic embeddings for the vector-index tests and the semantic-scale bench: seeded (the same data on every
 * run), unit length, and with a chosen cosine between a vector and its near neighbour.
 */
import { seededRandom } from '../../../../shared/gateway/cache/vector-index/seeded-random.js';

export { seededRandom };

export function unit(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  return vector.map((value) => value / norm);
}

export function randomUnit(dimensions: number, random: () => number): Float32Array {
  const vector = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) vector[i] = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return unit(vector);
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/** A unit vector at exactly cosine `similarity` from unit vector `base`, in a random direction. */
export function neighbour(base: Float32Array, similarity: number, random: () => number): Float32Array {
  const direction = randomUnit(base.length, random);
  const along = cosine(direction, base);
  const orthogonal = unit(direction.map((value, i) => value - along * base[i]));
  const across = Math.sqrt(Math.max(0, 1 - similarity * similarity));
  return unit(base.map((value, i) => similarity * value + across * orthogonal[i]));
}

/**
 * Clustered data, as a cache sees it: `clusters` topics, each entry a neighbour of its topic's centre at cosine
 * `spread` (so entries of one topic are near each other, ~spread², but below a 0.95 threshold).
 */
export function clusteredEntries(count: number, dimensions: number, options: { clusters: number; spread: number; seed: number }): Float32Array[] {
  const random = seededRandom(options.seed);
  const centres = Array.from({ length: options.clusters }, () => randomUnit(dimensions, random));
  return Array.from({ length: count }, (_, i) => neighbour(centres[i % options.clusters], options.spread, random));
}
