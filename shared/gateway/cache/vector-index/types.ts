/**
 * The port the semantic cache searches through. An index holds, per cache scope, the unit-length embedding
 * of each cached conversation under the key of its response entry. Implementations may be approximate
 * (they may miss a near neighbour) but must never cross scopes and must re-rank what they return exactly,
 * so a similarity they report is the cosine of the query with that entry's stored vector.
 */
export interface VectorScope {
  workspaceId: string;
  /** The semantic partition of cache-key.ts: namespace, route, target and every parameter but the messages. */
  partition: string;
}

export interface VectorMatch {
  /** The response entry's exact-cache key. */
  key: string;
  /** Cosine of the query with the stored vector (after the index's quantisation). */
  similarity: number;
}

export interface VectorIndex {
  /** Candidates near `vector` in the scope, most similar first; expired ones are never returned. */
  query(scope: VectorScope, vector: Float32Array): Promise<VectorMatch[]>;
  /** Adds (or refreshes) the vector of entry `key`, kept until `expiresAt` (epoch ms). */
  insert(scope: VectorScope, key: string, vector: Float32Array, expiresAt: number): Promise<void>;
  /** Drops entry `key` where the index knows it sits; an index may leave it to expire instead. */
  evict(scope: VectorScope, key: string): Promise<void>;
}
