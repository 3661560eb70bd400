import { dequantise, dot } from './quantise.js';
import type { VectorMatch } from './types.js';

/**
 * The two steps that follow an index lookup. The index ranks candidates by an estimate (sign-code.ts); only the
 * winner can become an answer, and only after an exact check against the int8 vector stored with its response
 * entry (cache-store.ts), which the cache reads anyway to answer. The check keeps the precision of the int8
 * vectors (within 2·10⁻³ of the float cosine) whatever the estimate's spread.
 */

/** Whether the winner is worth reading: its exact cosine can plausibly be at or above the threshold. */
export function mayReach(match: VectorMatch | undefined, threshold: number): match is VectorMatch {
  return match !== undefined && match.ceiling >= threshold;
}

/** The cosine of the query with a stored int8 vector; NaN when their dimensions differ. */
export function exactSimilarity(query: Float32Array, stored: Uint8Array): number {
  const candidate = dequantise(stored);
  if (candidate.length !== query.length) return Number.NaN;
  const norm = Math.sqrt(dot(query, query)) || 1;
  return dot(query, candidate) / norm;
}
