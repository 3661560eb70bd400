import { describe, expect, it } from 'vitest';
import { RefreshingCache } from '../../../shared/cache/refreshing-cache.js';

/** A loader whose answers the test controls: each call is numbered; calls can be held open, or made to fail. */
function controlledLoader() {
  const state = { calls: 0, fail: false, hold: false };
  const gates: Array<() => void> = [];
  const load = async (): Promise<string> => {
    state.calls++;
    const number = state.calls;
    if (state.hold) await new Promise<void>((resolve) => gates.push(resolve));
    if (state.fail) throw new Error(`store down (load ${number})`);
    return `value-${number}`;
  };
  const release = async () => {
    gates.splice(0).forEach((open) => open());
    // Let the released loads and the cache's bookkeeping settle.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { state, load, release };
}

function cacheWithClock(options: { ttl?: number; maxStale?: number; lifetimeOf?: (value: string) => { ttlMs?: number; maxStaleMs?: number } } = {}) {
  const clock = { now: 1_000 };
  const cache = new RefreshingCache<string, string>({
    name: 'test',
    max: 3,
    ttlMs: () => options.ttl ?? 1_000,
    maxStaleMs: () => options.maxStale ?? 2_000,
    lifetimeOf: options.lifetimeOf,
    now: () => clock.now,
  });
  return { cache, clock };
}

describe('RefreshingCache', () => {
  it('prefetch starts the read of a key it does not hold, which a later get joins, and does nothing for a held key', async () => {
    const { cache, clock } = cacheWithClock();
    const loader = controlledLoader();
    loader.state.hold = true;
    cache.prefetch('k', loader.load);
    expect(loader.state.calls).toBe(1);
    const answer = cache.get('k', loader.load);
    expect(loader.state.calls).toBe(1);
    await loader.release();
    expect(await answer).toBe('value-1');
    cache.prefetch('k', loader.load);
    clock.now += 1_500;
    // Stale but within its bound: still held, so nothing starts (the get that uses it refreshes it).
    cache.prefetch('k', loader.load);
    expect(loader.state.calls).toBe(1);
  });

  it('prefetch of a failing read leaves the failure to the get that joins it, and the next get reads again', async () => {
    const { cache } = cacheWithClock();
    const loader = controlledLoader();
    loader.state.fail = true;
    cache.prefetch('k', loader.load);
    await expect(cache.get('k', loader.load)).rejects.toThrow('store down (load 1)');
    loader.state.fail = false;
    expect(await cache.get('k', loader.load)).toBe('value-2');
  });

  it('serves a fresh value from memory without loading', async () => {
    const { cache, clock } = cacheWithClock();
    const loader = controlledLoader();
    expect(await cache.get('k', loader.load)).toBe('value-1');
    clock.now += 999;
    expect(await cache.get('k', loader.load)).toBe('value-1');
    expect(loader.state.calls).toBe(1);
  });

  it('serves a stale value at once and refreshes it in the background with one load that all callers share', async () => {
    const { cache, clock } = cacheWithClock();
    const loader = controlledLoader();
    await cache.get('k', loader.load);
    clock.now += 1_000;
    loader.state.hold = true;
    const answers = await Promise.all(Array.from({ length: 10 }, () => cache.get('k', loader.load)));
    expect(answers).toEqual(Array(10).fill('value-1'));
    expect(loader.state.calls).toBe(2);
    await loader.release();
    expect(await cache.get('k', loader.load)).toBe('value-2');
    expect(loader.state.calls).toBe(2);
  });

  it('keeps the stale value when a refresh fails, until the maximum staleness; then a request waits for a fresh read', async () => {
    const { cache, clock } = cacheWithClock({ ttl: 1_000, maxStale: 2_000 });
    const loader = controlledLoader();
    await cache.get('k', loader.load);
    loader.state.fail = true;
    clock.now += 1_500;
    expect(await cache.get('k', loader.load)).toBe('value-1');
    await loader.release();
    // The failed refresh left the value in place; the next stale request tries again.
    clock.now += 1_499;
    expect(await cache.get('k', loader.load)).toBe('value-1');
    await loader.release();
    expect(loader.state.calls).toBe(3);
    // Past TTL + max staleness the request waits for the store, and sees its failure.
    clock.now += 1;
    await expect(cache.get('k', loader.load)).rejects.toThrow('store down (load 4)');
    loader.state.fail = false;
    expect(await cache.get('k', loader.load)).toBe('value-5');
  });

  it('never lets a failed background refresh escape as an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { cache, clock } = cacheWithClock();
      const loader = controlledLoader();
      await cache.get('k', loader.load);
      loader.state.fail = true;
      clock.now += 1_000;
      await cache.get('k', loader.load);
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });

  it('does not keep a failed cold load: the caller sees the error and the next one loads again', async () => {
    const { cache } = cacheWithClock();
    const loader = controlledLoader();
    loader.state.fail = true;
    await expect(cache.get('k', loader.load)).rejects.toThrow('store down (load 1)');
    loader.state.fail = false;
    expect(await cache.get('k', loader.load)).toBe('value-2');
  });

  it('shares one cold load between concurrent callers', async () => {
    const { cache } = cacheWithClock();
    const loader = controlledLoader();
    loader.state.hold = true;
    const pending = Promise.all(Array.from({ length: 5 }, () => cache.get('k', loader.load)));
    await loader.release();
    expect(await pending).toEqual(Array(5).fill('value-1'));
    expect(loader.state.calls).toBe(1);
  });

  it('forget drops an entry at once, and a load that began before the forget is not kept', async () => {
    const { cache } = cacheWithClock();
    const loader = controlledLoader();
    await cache.get('k', loader.load);
    cache.delete('k');
    loader.state.hold = true;
    const racing = cache.get('k', loader.load);
    cache.forget();
    await loader.release();
    expect(await racing).toBe('value-2');
    loader.state.hold = false;
    expect(await cache.get('k', loader.load)).toBe('value-3');
  });

  it('forget with a predicate drops only the matching keys', async () => {
    const { cache } = cacheWithClock();
    const loader = controlledLoader();
    await cache.get('ws-1/a', loader.load);
    await cache.get('ws-2/a', loader.load);
    cache.forget((key) => key.startsWith('ws-1/'));
    expect(await cache.get('ws-2/a', loader.load)).toBe('value-2');
    expect(await cache.get('ws-1/a', loader.load)).toBe('value-3');
  });

  it('honours per-value lifetimes: a short, never-stale negative entry; a refresh that finds the value gone drops it', async () => {
    const { cache, clock } = cacheWithClock({ lifetimeOf: (value) => (value === 'missing' ? { ttlMs: 0 } : value === 'negative' ? { ttlMs: 100, maxStaleMs: 0 } : {}) });
    let answer = 'negative';
    const load = async () => answer;
    expect(await cache.get('k', load)).toBe('negative');
    answer = 'present';
    clock.now += 100;
    // Not served stale: the request waits for the new answer.
    expect(await cache.get('k', load)).toBe('present');
    answer = 'missing';
    clock.now += 1_000;
    expect(await cache.get('k', load)).toBe('present');
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(cache.size).toBe(0);
  });

  it('with a TTL of 0 keeps nothing and loads on every call', async () => {
    const { cache } = cacheWithClock({ ttl: 0 });
    const loader = controlledLoader();
    await cache.get('k', loader.load);
    await cache.get('k', loader.load);
    expect(loader.state.calls).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('refresh bypasses memory, and update changes a cached value in place', async () => {
    const { cache } = cacheWithClock();
    const loader = controlledLoader();
    await cache.get('k', loader.load);
    expect(await cache.refresh('k', loader.load)).toBe('value-2');
    cache.update('k', (value) => `${value}+local`);
    expect(await cache.get('k', loader.load)).toBe('value-2+local');
    expect(loader.state.calls).toBe(2);
  });

  it('stays bounded, dropping the least recently used entry', async () => {
    const { cache } = cacheWithClock();
    const loader = controlledLoader();
    for (const key of ['a', 'b', 'c']) await cache.get(key, loader.load);
    await cache.get('a', loader.load);
    await cache.get('d', loader.load);
    expect(cache.size).toBe(3);
    expect(await cache.get('a', loader.load)).toBe('value-1');
    expect(await cache.get('b', loader.load)).toBe('value-5');
  });
});
