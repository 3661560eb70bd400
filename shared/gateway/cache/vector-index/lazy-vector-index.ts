import { loadOnce } from '../../../cache/load-once.js';
import type { VectorIndex } from './types.js';

/**
 * The DynamoDB vector index, imported by the first semantic-cache lookup or insert: only configs with a semantic
 * cache use it, so its code (and the LRU of its slot memory) stays out of the gateway's cold start.
 */
export function vectorIndexLoadedOnFirstUse(): VectorIndex {
  const index = loadOnce(async () => new (await import('./dynamo-vector-index.js')).DynamoVectorIndex());
  return {
    query: async (scope, vector) => (await index()).query(scope, vector),
    insert: async (scope, key, vector, expiresAt) => (await index()).insert(scope, key, vector, expiresAt),
    evict: async (scope, key) => (await index()).evict(scope, key),
  };
}
