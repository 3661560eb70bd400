/**
 * The port the semantic cache searches through. An index holds, per cache scope, the unit-length embedding
 * of each cached conversation under the key of its response entry. Implementations are approximate twice: they
 * may miss a near neighbour, and the similarity they rank by is an estimate. They must never cross scopes, and
 * say how far their estimate can be off (`ceiling`), so the cache checks the winner exactly (exact-check.ts).
 */
export interface VectorScope {
  workspaceId: string;
  /** The semantic partition of cache-key.ts: namespace, route, target and every parameter but the messages. */
  partition: string;
}

export interface VectorMatch {
  /** The response entry's exact-cache key. */
  key: string;
  /** The estimated cosine of the query with the stored vector, by which matches are ranked. */
  similarity: number;
  /** The highest the exact cosine plausibly is (the estimate plus four of its standard deviations). */
  ceiling: number;
}

export interface VectorIndex {
  /** Candidates near `vector` in the scope, most similar first; expired ones are never returned. */
  query(scope: VectorScope, vector: Float32Array): Promise<VectorMatch[]>;
  /** Adds (or refreshes) the vector of entry `key`, kept until `expiresAt` (epoch ms). */
  insert(scope: VectorScope, key: string, vector: Float32Array, expiresAt: number): Promise<void>;
  /** Drops entry `key` where the index knows it sits; an index may leave it to expire instead. */
  evict(scope: VectorScope, key: string): Promise<void>;
}
