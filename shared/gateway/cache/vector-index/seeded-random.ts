/**
 * mulberry32: a small, fast generator that gives the same sequence on every platform. The LSH hyperplanes must
 * be identical in every process that reads or writes the index, so they are drawn from a fixed seed; tests and
 * the bench use it for reproducible data.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
