import { seededRandom } from './seeded-random.js';

/**
 * A fixed random rotation of an embedding, computed in O(D log D): the vector is zero-padded to the next power
 * of two and passed three times through "flip signs, then a Walsh–Hadamard transform" (HD·HD·HD), which spreads
 * every input dimension over every output one. The outputs are (close to) projections on orthonormal random
 * directions, so their signs are SimHash bits (two vectors at angle θ disagree on a bit with probability θ/π)
 * and a vector's energy is spread evenly over them, which the sign code of sign-code.ts needs. A dense Gaussian
 * projection would cost D multiply-adds per output; this costs ~3·log₂D per output and never allocates a matrix.
 * The signs come from a fixed seed, so every process (every Lambda, the local runtime, the bench) agrees.
 */
const signsBySize = new Map<string, Int8Array[]>();

export function paddedLength(dimensions: number): number {
  let size = 1;
  while (size < dimensions) size *= 2;
  return size;
}

/**
 * At least `count` rotated coordinates of `vector` (unit length in, each rotation unit length out): as many
 * independent rotations as needed are concatenated when one padded length is not enough.
 */
export function rotate(vector: Float32Array, count: number, seed: number): Float64Array {
  const size = paddedLength(Math.max(1, vector.length));
  const rotations = Math.max(1, Math.ceil(count / size));
  const out = new Float64Array(rotations * size);
  for (let r = 0; r < rotations; r++) {
    const work = out.subarray(r * size, (r + 1) * size);
    for (let i = 0; i < vector.length; i++) work[i] = vector[i];
    for (const signs of signsFor(size, seed + r)) {
      for (let i = 0; i < size; i++) work[i] *= signs[i];
      hadamard(work);
    }
  }
  return out;
}

function signsFor(size: number, seed: number): Int8Array[] {
  const id = `${size}/${seed}`;
  let signs = signsBySize.get(id);
  if (!signs) {
    const random = seededRandom(seed);
    signs = Array.from({ length: 3 }, () => Int8Array.from({ length: size }, () => (random() < 0.5 ? -1 : 1)));
    signsBySize.set(id, signs);
  }
  return signs;
}

/** In-place fast Walsh–Hadamard transform, scaled by 1/√n so it is orthonormal (lengths are kept). */
function hadamard(values: Float64Array): void {
  const n = values.length;
  for (let half = 1; half < n; half *= 2) {
    for (let start = 0; start < n; start += 2 * half) {
      for (let i = start; i < start + half; i++) {
        const a = values[i];
        const b = values[i + half];
        values[i] = a + b;
        values[i + half] = a - b;
      }
    }
  }
  const scale = 1 / Math.sqrt(n);
  for (let i = 0; i < n; i++) values[i] *= scale;
}
