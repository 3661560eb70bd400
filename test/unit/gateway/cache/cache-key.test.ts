import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, exactCacheKey, semanticPartition, type CacheKeyInput } from '../../../../shared/gateway/cache/cache-key.js';

const base: CacheKeyInput = {
  workspaceId: 'ws-1',
  endpoint: 'chat',
  target: { provider: 'openai' },
  body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], temperature: 0 },
  metadata: { team: 'a' },
};

/** Rebuilds an object with its keys in a random order at every depth. */
function shuffled(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((item) => shuffled(item, random));
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(() => random() - 0.5);
    return Object.fromEntries(entries.map(([key, entry]) => [key, shuffled(entry, random)]));
  }
  return value;
}

describe('cache keys', () => {
  it('do not depend on key order (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer(), (extra, seed) => {
        let state = seed;
        const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
        const body = { ...base.body, extra };
        expect(exactCacheKey({ ...base, body: shuffled(body, random) as Record<string, unknown> })).toBe(exactCacheKey({ ...base, body }));
      }),
    );
  });

  it('change with any parameter (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.jsonValue(), (name, value) => {
        fc.pre(!['stream', 'stream_options'].includes(name) && base.body[name] === undefined && value !== null);
        expect(exactCacheKey({ ...base, body: { ...base.body, [name]: value } })).not.toBe(exactCacheKey(base));
      }),
    );
  });

  it('are shared by streamed and non-streamed calls', () => {
    expect(exactCacheKey({ ...base, body: { ...base.body, stream: true, stream_options: { include_usage: true } } })).toBe(exactCacheKey(base));
  });

  it('cover workspace, route, target identity and metadata; a namespace drops only the metadata', () => {
    const key = exactCacheKey(base);
    expect(exactCacheKey({ ...base, workspaceId: 'ws-2' })).not.toBe(key);
    expect(exactCacheKey({ ...base, endpoint: 'completions' })).not.toBe(key);
    expect(exactCacheKey({ ...base, target: { provider: 'openai', customHost: 'http://other' } })).not.toBe(key);
    expect(exactCacheKey({ ...base, target: { provider: 'openai', virtualKey: 'vk-1' } })).not.toBe(key);
    expect(exactCacheKey({ ...base, metadata: { team: 'b' } })).not.toBe(key);
    const namespaced = exactCacheKey({ ...base, namespace: 'faq' });
    expect(exactCacheKey({ ...base, namespace: 'faq', metadata: { team: 'b' } })).toBe(namespaced);
    // A namespace never shares answers across targets (issue #20): provider, host, credential all count.
    expect(exactCacheKey({ ...base, namespace: 'faq', target: { ...base.target, provider: 'groq' } })).not.toBe(namespaced);
    expect(exactCacheKey({ ...base, namespace: 'faq', target: { ...base.target, credentialHash: 'other' } })).not.toBe(namespaced);
    expect(exactCacheKey({ ...base, namespace: 'faq', workspaceId: 'ws-2' })).not.toBe(namespaced);
  });

  it('semantic partitions ignore the messages but not the other parameters', () => {
    const partition = semanticPartition(base);
    expect(semanticPartition({ ...base, body: { ...base.body, messages: [{ role: 'user', content: 'Hello' }] } })).toBe(partition);
    expect(semanticPartition({ ...base, body: { ...base.body, temperature: 1 } })).not.toBe(partition);
  });

  it('canonical JSON sorts keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
  });
});
