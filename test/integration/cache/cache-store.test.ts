import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SEMANTIC_CANDIDATES, ResponseCacheStore } from '../../../shared/gateway/cache/cache-store.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

let gateway: TestGateway;
beforeAll(async () => {
  // The local runtime provides the DynamoDB-compatible store and the tables.
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

describe('ResponseCacheStore against the embedded store', () => {
  it('expires entries by their stored expiry (injected clock), whatever the table does', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const store = new ResponseCacheStore(() => now);
    await store.put('ws-ttl', 'key-1', '{"ok":true}', 60);
    expect(await store.get('ws-ttl', 'key-1')).toBe('{"ok":true}');
    now += 59_999;
    expect(await store.get('ws-ttl', 'key-1')).toBe('{"ok":true}');
    now += 1;
    expect(await store.get('ws-ttl', 'key-1')).toBeUndefined();
  });

  it('scopes entries to their workspace', async () => {
    const store = new ResponseCacheStore();
    await store.put('ws-a', 'shared-key', 'a', 60);
    expect(await store.get('ws-b', 'shared-key')).toBeUndefined();
  });

  it('skips an entry too large for one item instead of failing', async () => {
    const store = new ResponseCacheStore();
    expect(await store.put('ws-big', 'big', 'x'.repeat(400 * 1024), 60)).toBe(false);
    expect(await store.get('ws-big', 'big')).toBeUndefined();
  });

  it('keeps at most the bound of vectors per partition, evicting the oldest', async () => {
    let now = 1_000_000;
    const store = new ResponseCacheStore(() => now);
    for (let i = 0; i < MAX_SEMANTIC_CANDIDATES + 3; i++) {
      now += 1;
      await store.putVector('ws-bound', 'partition', `key-${i}`, Float32Array.from([i, 1]), 3600);
    }
    const candidates = await store.candidates('ws-bound', 'partition');
    expect(candidates).toHaveLength(MAX_SEMANTIC_CANDIDATES);
    expect(candidates.map((candidate) => candidate.key)).not.toContain('key-0');
    expect(candidates.map((candidate) => candidate.key)).toContain(`key-${MAX_SEMANTIC_CANDIDATES + 2}`);
    expect(Array.from(candidates.at(-1)!.vector)).toEqual([MAX_SEMANTIC_CANDIDATES + 2, 1]);
  });
});
