import { seededRandom } from './seeded-random.js';

/**
 * Locality-sensitive hashing by random hyperplanes (SimHash): each bit of a signature says on which side of
 * one hyperplane a vector lies. Two vectors at angle θ agree on a bit with probability 1 − θ/π, so on a band
 * of `bitsPerBand` bits with (1 − θ/π)^bits, and share at least one of `bands` bands with
 * 1 − (1 − (1 − θ/π)^bits)^bands. The hyperplanes come from a fixed seed, so every process (every Lambda, the
 * local runtime, the bench) puts the same vector in the same buckets.
 */
export interface LshShape {
  bands: number;
  bitsPerBand: number;
  seed: number;
}

const planesByShape = new Map<string, Float32Array>();

/** One signature per band, as lowercase hex (at most 32 bits a band). */
export function bandSignatures(vector: Float32Array, shape: LshShape): string[] {
  const planes = hyperplanes(vector.length, shape);
  const signatures: string[] = [];
  for (let band = 0; band < shape.bands; band++) {
    let bits = 0;
    for (let bit = 0; bit < shape.bitsPerBand; bit++) {
      const offset = (band * shape.bitsPerBand + bit) * vector.length;
      let projection = 0;
      for (let i = 0; i < vector.length; i++) projection += planes[offset + i] * vector[i];
      if (projection >= 0) bits |= 1 << bit;
    }
    signatures.push((bits >>> 0).toString(16).padStart(Math.ceil(shape.bitsPerBand / 4), '0'));
  }
  return signatures;
}

/** The chance a vector at cosine `similarity` from another shares at least one band with it. */
export function collisionProbability(similarity: number, shape: Pick<LshShape, 'bands' | 'bitsPerBand'>): number {
  const agree = 1 - Math.acos(Math.max(-1, Math.min(1, similarity))) / Math.PI;
  return 1 - (1 - agree ** shape.bitsPerBand) ** shape.bands;
}

/** Gaussian hyperplanes for this dimension, drawn once per process from the seed. */
function hyperplanes(dimensions: number, shape: LshShape): Float32Array {
  if (shape.bitsPerBand < 1 || shape.bitsPerBand > 32) throw new RangeError('bitsPerBand must be 1..32');
  const id = `${dimensions}/${shape.bands}/${shape.bitsPerBand}/${shape.seed}`;
  let planes = planesByShape.get(id);
  if (!planes) {
    const random = seededRandom(shape.seed);
    planes = new Float32Array(shape.bands * shape.bitsPerBand * dimensions);
    for (let i = 0; i < planes.length; i++) planes[i] = gaussian(random);
    planesByShape.set(id, planes);
  }
  return planes;
}

/** Box–Muller: a standard normal draw, so hyperplane directions are uniform on the sphere. */
function gaussian(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}
