import { logger } from '../logger.js';
import { entryFor, type ConfigDocuments, type ConfigKind, type ModelCapabilities } from './config-documents.js';
import { priceFromRates, type ModelPrice } from './cost.js';
import type { ModelConfigSource } from './sources.js';

export const MODEL_CONFIG_CACHE_TTL_MS = 60 * 60 * 1000;
/** A source that failed (proxy down, unreadable file) is asked again after this, not on every lookup. */
const FAILED_SOURCE_RETRY_MS = 60 * 1000;
const MAX_CACHED = 5_000;

interface Cached<T> {
  value: Promise<T>;
  expiresAt: number;
}

export interface ModelConfigChainOptions {
  /** In priority order: proxy, log store, local files (only those configured). */
  sources: readonly ModelConfigSource[];
  now?: () => number;
  ttlMs?: number;
}

/**
 * Model pricing and capabilities in the spec's priority order: the memory cache (1 h), then each source in
 * turn (proxy, log store, local files), then the data shipped with @pydantic/genai-prices. The first source
 * that has the model wins, per model: a proxy that prices some models of a provider leaves the others to the
 * sources below it. Answers (including "no price") and fetched documents are both cached for the TTL.
 */
/**
 * The shipped price data is large (~470 KiB of object literals): it is loaded on the first lookup that reaches
 * it rather than at import, so a Lambda's cold start does not pay for it.
 */
function shippedPrices(): Promise<typeof import('./default-prices.js')> {
  return import('./default-prices.js');
}

export class ModelConfigChain {
  private readonly answers = new Map<string, Cached<unknown>>();
  private readonly documents = new Map<string, Cached<unknown>>();
  private readonly now: () => number;
  private readonly ttlMs: number;

  constructor(private readonly options: ModelConfigChainOptions) {
    this.now = options.now ?? Date.now;
    this.ttlMs = options.ttlMs ?? MODEL_CONFIG_CACHE_TTL_MS;
  }

  /** The model's price, or null when no source prices it (its cost is then unknown, never 0). */
  pricing(provider: string, model: string): Promise<ModelPrice | null> {
    return this.cached(this.answers, `pricing\u0000${provider}\u0000${model}`, this.ttlMs, async () => {
      const rates = await this.fromSources('pricing', provider, model);
      if (rates) return priceFromRates(rates.source, rates.entry);
      return (await shippedPrices()).defaultPrice(provider, model) ?? null;
    });
  }

  /** What is known about the model (context window, output limit …), or null. */
  capabilities(provider: string, model: string): Promise<ModelCapabilities | null> {
    return this.cached(this.answers, `capabilities\u0000${provider}\u0000${model}`, this.ttlMs, async () => {
      const found = await this.fromSources('capabilities', provider, model);
      return found?.entry ?? (await shippedPrices()).defaultCapabilities(provider, model) ?? null;
    });
  }

  /**
   * Every model id any source has a pricing or capability entry for under this provider, then the shipped data's,
   * without repeats (ignoring case). For listings (the model catalog, GET /v1/models), not for the request path.
   */
  async modelIds(provider: string): Promise<string[]> {
    const seen = new Map<string, string>();
    const add = (id: string) => {
      if (!seen.has(id.toLowerCase())) seen.set(id.toLowerCase(), id);
    };
    for (const source of this.options.sources) {
      for (const kind of ['pricing', 'capabilities'] as const) {
        const document = (await this.document(source, kind, provider)) as ConfigDocuments[typeof kind] | undefined;
        for (const id of Object.keys(document?.models ?? {})) add(id);
      }
    }
    for (const id of (await shippedPrices()).defaultModelIds(provider)) add(id);
    return [...seen.values()];
  }

  private async fromSources<K extends ConfigKind>(kind: K, provider: string, model: string) {
    for (const source of this.options.sources) {
      const document = (await this.document(source, kind, provider)) as ConfigDocuments[K] | undefined;
      const entry = document ? entryFor(document.models as Record<string, ConfigDocuments[K]['models'][string]>, model) : undefined;
      if (entry) return { source: source.name, entry };
    }
    return undefined;
  }

  private document(source: ModelConfigSource, kind: ConfigKind, provider: string): Promise<unknown> {
    const key = `${source.name}\u0000${kind}\u0000${provider}`;
    return this.cached(this.documents, key, this.ttlMs, async () => {
      try {
        return await source.fetch(kind, provider);
      } catch (error) {
        logger.warn('model-config source failed; trying the next one', { source: source.name, kind, provider, reason: (error as Error).message });
        // Remembered as "nothing" for a short while only, so a source that comes back is used again soon.
        this.documents.set(key, { value: Promise.resolve(undefined), expiresAt: this.now() + Math.min(FAILED_SOURCE_RETRY_MS, this.ttlMs) });
        return undefined;
      }
    });
  }

  /** One lookup per key at a time: concurrent callers share the pending promise. */
  private cached<T>(cache: Map<string, Cached<unknown>>, key: string, ttlMs: number, load: () => Promise<T>): Promise<T> {
    const now = this.now();
    const hit = cache.get(key);
    if (hit && hit.expiresAt > now) return hit.value as Promise<T>;
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    const value = load();
    // Set before the load settles (loads always await first); a failed source then shortens it (see `document`).
    cache.set(key, { value, expiresAt: now + ttlMs });
    return value;
  }
}
