import { describe, expect, it, vi } from 'vitest';
import { ResponseCache } from '../../../shared/gateway/cache/response-cache.js';
import type { ResponseCacheStore } from '../../../shared/gateway/cache/cache-store.js';
import type { TargetIdentity } from '../../../shared/gateway/cache/cache-key.js';
import type { LeafSettings } from '../../../shared/gateway/config/target-tree.js';
import type { GatewayContext } from '../../../shared/gateway/context.js';
import type { VectorIndex } from '../../../shared/gateway/cache/vector-index/types.js';

// The target's identity (with a sha256 of its credential) is part of the cache key only: a leaf that does not cache
// never pays for it (issue #34), a caching leaf always keys by it.
const context = { principal: { workspaceId: 'ws-1' }, endpoint: 'chat', options: { metadata: {} }, log: { error: () => undefined } } as unknown as GatewayContext;
const identity: TargetIdentity = { provider: 'openai', location: {}, model: 'gpt-4o-mini', credentialHash: 'a'.repeat(64) };
const leaf = (cache?: LeafSettings['cache']): LeafSettings => ({ azure: {}, vertex: {}, aws: {}, overrideParams: {}, cache });

describe('the response cache decision', () => {
  it('makes no target identity for a leaf without a cache, and answers DISABLED', async () => {
    const get = vi.fn();
    const cache = new ResponseCache({ get } as unknown as ResponseCacheStore, {} as VectorIndex);
    const identityOf = vi.fn(() => identity);
    await expect(cache.decide(context, 'headers', leaf(), identityOf, { model: 'gpt-4o-mini', messages: [] })).resolves.toEqual({ status: 'DISABLED' });
    expect(identityOf).not.toHaveBeenCalled();
    expect(get).not.toHaveBeenCalled();
  });

  it('keys a caching leaf by its identity: another credential hash is another entry', async () => {
    const keys: string[] = [];
    const get = vi.fn(async (_workspace: string, key: string) => (keys.push(key), undefined));
    const cache = new ResponseCache({ get } as unknown as ResponseCacheStore, {} as VectorIndex);
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
    const first = await cache.decide(context, 'headers', leaf({ mode: 'simple' }), () => identity, body);
    await cache.decide(context, 'headers', leaf({ mode: 'simple' }), () => ({ ...identity, credentialHash: 'b'.repeat(64) }), body);
    await cache.decide(context, 'headers', leaf({ mode: 'simple' }), () => identity, body);
    expect(first.status).toBe('MISS');
    expect(keys).toHaveLength(3);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[0]).toBe(keys[2]);
  });
});
