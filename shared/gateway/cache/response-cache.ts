import type { OpenAIBody } from '../../providers/types.js';
import { runInBackground } from '../../observability/background.js';
import { DEFAULT_CACHE_MAX_AGE_SECONDS } from '../config/limits.js';
import type { LeafSettings } from '../config/target-tree.js';
import type { GatewayContext } from '../context.js';
import type { CacheStatus } from '../attempt-types.js';
import { exactCacheKey, semanticPartition, type TargetIdentity } from './cache-key.js';
import { ResponseCacheStore } from './cache-store.js';
import { vectorIndexLoadedOnFirstUse } from './vector-index/lazy-vector-index.js';
import type { VectorIndex } from './vector-index/types.js';

/** What the cache said for one leaf attempt: a stored answer, or how to store the fresh one. */
export interface CacheDecision {
  status: CacheStatus;
  hit?: Record<string, unknown>;
  /** The exact-match hit's stored JSON text (`hit` parsed from it), served as it is to a non-streamed request. */
  hitText?: string;
  /** Stores a complete successful response (in the background; never fails the request). */
  store?: (response: Record<string, unknown>) => void;
}

const DISABLED: CacheDecision = { status: 'DISABLED' };

/**
 * The response cache of one leaf. Simple mode is an exact match on the key of cache-key.ts; semantic mode
 * looks up the exact key first, then asks the vector index for the partition's entries nearest to the
 * conversation's embedding. A failing store never fails the request: gw proceeds uncached and logs why.
 */
export class ResponseCache {
  constructor(
    private readonly store = new ResponseCacheStore(),
    private readonly index: VectorIndex = vectorIndexLoadedOnFirstUse(),
  ) {}

  /** `form: 'native'` keys answers kept in the inbound dialect's own shape apart from canonical ones (cache-key.ts). */
  async decide(context: GatewayContext, leafPath: string, leaf: LeafSettings, identityOf: () => TargetIdentity, body: OpenAIBody, form?: 'native'): Promise<CacheDecision> {
    const cache = leaf.cache;
    if (!cache) return DISABLED;
    // Made only when the leaf caches: the credential's hash is a sha256 per request.
    const identity = identityOf();
    const workspaceId = context.principal.workspaceId;
    const keyInput = { workspaceId, endpoint: context.endpoint, target: identity, body, metadata: context.options.metadata, namespace: context.options.cacheNamespace, form };
    const key = exactCacheKey(keyInput);
    const maxAge = cache.max_age ?? DEFAULT_CACHE_MAX_AGE_SECONDS;
    const semantic = cache.mode === 'semantic' && context.endpoint === 'chat';
    // Config errors (no embeddings model) must surface, so the embeddings target is resolved outside the guard.
    // Semantic mode only: its embeddings code stays out of the gateway's cold start (test/infra/bundles.test.ts).
    const embeddingTarget = semantic ? (await import('./semantic.js')).embeddingsLeaf(leaf, identity.provider, cache, leafPath) : undefined;
    // Only semantic mode pays for the partition hash.
    const scope = () => ({ workspaceId, partition: semanticPartition(keyInput) });
    const writer = (vector?: Float32Array) => (response: Record<string, unknown>) =>
      runInBackground('cache write', async () => {
        // The entry keeps its embedding for the exact check of a semantic lookup, so it is embedded first; an
        // embeddings failure still stores the entry for exact hits, and is then reported.
        let embedding = vector;
        let embeddingError: unknown;
        if (!embedding && embeddingTarget) {
          try {
            embedding = await this.embedConversation(context, embeddingTarget, body);
          } catch (error) {
            embeddingError = error;
          }
        }
        const stored = await this.store.put(workspaceId, key, JSON.stringify(response), maxAge, embedding);
        if (!stored) {
          context.log.warn('response not cached: larger than one cache item', { cache_key: key });
          return;
        }
        if (embeddingError !== undefined) throw embeddingError;
        if (!embedding) return;
        await this.index.insert(scope(), key, embedding, this.store.expiryFor(maxAge));
      });

    if (context.options.cacheForceRefresh) {
      // This process stops answering the old entry at once; others within their memory TTL (docs/cache.md).
      this.store.forget(workspaceId, key);
      return { status: 'REFRESH', store: writer() };
    }
    try {
      const exact = await this.store.get(workspaceId, key);
      if (exact) return { status: 'HIT', hit: JSON.parse(exact) as Record<string, unknown>, hitText: exact };
      if (!embeddingTarget) return { status: 'MISS', store: writer() };

      const vector = await this.embedConversation(context, embeddingTarget, body);
      // Semantic mode only: its exact check stays out of the gateway's cold start (test/infra/bundles.test.ts).
      const [{ exactSimilarity, mayReach }, { DEFAULT_SIMILARITY_THRESHOLD }] = await Promise.all([import('./vector-index/exact-check.js'), import('./semantic.js')]);
      const semanticScope = scope();
      const [best] = await this.index.query(semanticScope, vector);
      const threshold = cache.similarity_threshold ?? DEFAULT_SIMILARITY_THRESHOLD;
      // The index ranks by an estimate: the winner answers only if its stored vector passes the exact check.
      if (mayReach(best, threshold)) {
        const similar = await this.store.getEntry(workspaceId, best.key);
        if (similar?.vector && exactSimilarity(vector, similar.vector) >= threshold) return { status: 'SEMANTIC HIT', hit: JSON.parse(similar.body) as Record<string, unknown> };
        // The entry is gone (expired, or never stored) while its vector lingers: drop the vector.
        if (!similar) runInBackground('semantic index evict', () => this.index.evict(semanticScope, best.key));
      }
      return { status: 'SEMANTIC MISS', store: writer(vector) };
    } catch (error) {
      context.log.error('response cache unavailable; answering uncached', { error: error as Error });
      return { status: semantic ? 'SEMANTIC MISS' : 'MISS' };
    }
  }

  private async embedConversation(context: GatewayContext, target: LeafSettings, body: OpenAIBody): Promise<Float32Array> {
    const { embed, conversationText } = await import('./semantic.js');
    return embed(target, conversationText(body), context.options, context.principal.workspaceId, context.request);
  }
}
