import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResponseCacheStore } from '../../../shared/gateway/cache/cache-store.js';
import { exactSimilarity } from '../../../shared/gateway/cache/vector-index/exact-check.js';
import { randomUnit, seededRandom } from './support/synthetic-vectors.js';
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

  it('keeps a semantic entry\'s embedding as int8 for the exact check, and none for an entry stored without one', async () => {
    const store = new ResponseCacheStore();
    const embedding = randomUnit(1536, seededRandom(34));
    await store.put('ws-vector', 'with-vector', 'a', 60, embedding);
    await store.put('ws-vector', 'without-vector', 'b', 60);
    const entry = await store.getEntry('ws-vector', 'with-vector');
    expect(entry?.body).toBe('a');
    expect(entry?.vector?.byteLength).toBe(1540);
    expect(exactSimilarity(embedding, entry!.vector!)).toBeGreaterThan(0.999);
    expect(await store.getEntry('ws-vector', 'without-vector')).toEqual({ body: 'b', vector: undefined });
  });

  it('skips an entry too large for one item instead of failing', async () => {
    const store = new ResponseCacheStore();
    expect(await store.put('ws-big', 'big', 'x'.repeat(400 * 1024), 60)).toBe(false);
    expect(await store.get('ws-big', 'big')).toBeUndefined();
  });
});
