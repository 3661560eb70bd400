import { logger } from '../observability/logger.js';
import { settings } from '../settings.js';
import { merged } from '../merged.js';

/**
 * A bounded in-memory cache for hot-path reads that serves a value past its TTL while one background refresh
 * runs (stale-while-revalidate), so after warm-up no request waits on the store for a refresh.
 *
 * Lifetime of an entry, from the moment its value was read:
 *   fresh    [0, ttl)                  served from memory, nothing else happens;
 *   stale    [ttl, ttl + maxStale)     served from memory; the first request starts ONE refresh that every
 *                                      other request shares; a failed refresh is logged and keeps the value;
 *   expired  [ttl + maxStale, …)       a request waits for a fresh read (concurrent callers share it).
 * So a change in the store is in force within `ttl + maxStale` even when every refresh fails or the entry sat
 * idle, and within `ttl` plus one store round trip for an entry in steady use.
 *
 * A load that throws is never cached (the caller sees the error; a failed background refresh keeps the old
 * value). A loader that wants a refresh to be able to drop an entry ("it was deleted") returns a value whose
 * lifetime is 0 instead of throwing. `forget` drops entries at once, and a load
 * that started before a `forget` is not kept, so a change made by this process cannot be overwritten by an
 * older read still in flight.
 */
export interface RefreshingCacheOptions<V> {
  /** Names the cache in logs. */
  name: string;
  /** Most entries kept; the least recently used goes first. */
  max: number;
  /** How long a value is fresh; 0 turns the cache off (every get loads). Read on each store, so settings apply. */
  ttlMs: () => number;
  /** How long past its TTL a value may still be served while it is refreshed. */
  maxStaleMs: () => number;
  /**
   * Per-value lifetimes, e.g. a short, never-stale life for a negative lookup. Missing fields fall back to
   * `ttlMs` / `maxStaleMs`.
   */
  lifetimeOf?: (value: V) => { ttlMs?: number; maxStaleMs?: number };
  now?: () => number;
}

interface Entry<V> {
  value: V;
  freshUntil: number;
  staleUntil: number;
}

export type Loader<V> = () => Promise<V>;

export class RefreshingCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  /** Loads in flight (cold reads and background refreshes alike): one per key. */
  private readonly loads = new Map<K, Promise<V>>();
  private generation = 0;
  private readonly now: () => number;

  constructor(private readonly options: RefreshingCacheOptions<V>) {
    this.now = options.now ?? Date.now;
  }

  /** The value of `key`: from memory while fresh or stale (refreshing in the background when stale), else loaded. */
  async get(key: K, load: Loader<V>): Promise<V> {
    const entry = this.entries.get(key);
    const now = this.now();
    if (entry && now < entry.staleUntil) {
      this.touch(key, entry);
      if (now >= entry.freshUntil) this.refreshInBackground(key, load);
      return entry.value;
    }
    if (entry) this.entries.delete(key);
    if (this.options.ttlMs() <= 0) return load();
    return this.loadOnce(key, load);
  }

  /**
   * Starts loading `key` when memory holds no usable value for it (never read, or past its staleness bound), so
   * that a `get` made a moment later joins the read instead of starting it; does nothing when a value is held,
   * which a later `get` answers without waiting anyway. A failed load is for that `get` to report.
   */
  prefetch(key: K, load: Loader<V>): void {
    const entry = this.entries.get(key);
    // Without a TTL nothing is kept or shared: the later get reads for itself.
    if ((entry && this.now() < entry.staleUntil) || this.options.ttlMs() <= 0) return;
    this.loadOnce(key, load).catch(() => undefined);
  }

  /** Reads the store now, bypassing memory (shares a load already in flight), and keeps the result. */
  refresh(key: K, load: Loader<V>): Promise<V> {
    if (this.options.ttlMs() <= 0) return load();
    return this.loadOnce(key, load);
  }

  /** Replaces a cached value in place (its lifetime unchanged), e.g. with what this process just wrote. */
  update(key: K, change: (value: V) => V): void {
    const entry = this.entries.get(key);
    if (entry) this.entries.set(key, merged(entry, { value: change(entry.value) }));
  }

  /**
   * Drops the entries whose key matches (all without an argument). No load in flight is kept afterwards, of any
   * key: one generation for the whole cache is simpler than one per key, and costs at most an extra read.
   */
  forget(matches?: (key: K) => boolean): void {
    this.generation++;
    if (!matches) {
      this.entries.clear();
      this.loads.clear();
      return;
    }
    for (const key of [...this.entries.keys()]) if (matches(key)) this.entries.delete(key);
    for (const key of [...this.loads.keys()]) if (matches(key)) this.loads.delete(key);
  }

  /** Drops one key. */
  delete(key: K): void {
    this.forget((candidate) => candidate === key);
  }

  get size(): number {
    return this.entries.size;
  }

  private refreshInBackground(key: K, load: Loader<V>): void {
    if (this.loads.has(key)) return;
    // Nobody awaits this promise: its failure is logged here and must never become an unhandled rejection.
    this.loadOnce(key, load).catch((error: unknown) => {
      logger.warn('background refresh failed; serving the cached value until it is too stale', { cache: this.options.name, error: error as Error });
    });
  }

  private loadOnce(key: K, load: Loader<V>): Promise<V> {
    const pending = this.loads.get(key);
    if (pending) return pending;
    const generation = this.generation;
    let started: Promise<V>;
    try {
      started = load();
    } catch (error) {
      started = Promise.reject(error);
    }
    const settled = started.then(
      (value) => {
        if (this.loads.get(key) === settled) this.loads.delete(key);
        // A forget since the load began means the store may have changed after this read: do not keep it.
        if (generation === this.generation) this.keep(key, value);
        return value;
      },
      (error: unknown) => {
        if (this.loads.get(key) === settled) this.loads.delete(key);
        throw error;
      },
    );
    this.loads.set(key, settled);
    return settled;
  }

  private keep(key: K, value: V): void {
    const lifetime = this.options.lifetimeOf?.(value) ?? {};
    // Whatever was cached is replaced, even by a value not worth keeping (a lifetime of 0, e.g. "not found"): a
    // refresh that finds the thing gone must not leave the stale value in place.
    this.entries.delete(key);
    if (this.options.ttlMs() <= 0) return;
    const ttl = lifetime.ttlMs ?? this.options.ttlMs();
    if (ttl <= 0) return;
    const maxStale = Math.max(0, lifetime.maxStaleMs ?? this.options.maxStaleMs());
    const now = this.now();
    if (this.entries.size >= this.options.max) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { value, freshUntil: now + ttl, staleUntil: now + ttl + maxStale });
  }

  /** Map order is insertion order: re-inserting on use keeps the least recently used first, for eviction. */
  private touch(key: K, entry: Entry<V>): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
  }
}

/**
 * How long past its TTL a cache may serve a value while refreshing: GW_CACHE_MAX_STALE_MS when set, else twice
 * the cache's TTL.
 */
export function maxStaleFor(ttlMs: number): number {
  return settings().GW_CACHE_MAX_STALE_MS ?? 2 * ttlMs;
}
