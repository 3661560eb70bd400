import { describe, expect, it } from 'vitest';
import { definedOneByOne, merged } from '../../shared/merged.js';

describe('merged', () => {
  it('copies every source in order, the later winning, as a spread does', () => {
    const base = { model: 'a', stream: false, temperature: 1 };
    const result = merged(base, { model: 'b', user: 'u' });
    expect(result).toEqual({ model: 'b', stream: false, temperature: 1, user: 'u' });
    expect(Object.keys(result)).toEqual(['model', 'stream', 'temperature', 'user']);
    expect(base).toEqual({ model: 'a', stream: false, temperature: 1 });
  });

  it('skips null and undefined sources and keeps undefined values', () => {
    expect(merged(undefined, { a: 1 })).toEqual({ a: 1 });
    expect(merged({ a: 1 }, null)).toEqual({ a: 1 });
    const result = merged({ a: 1 }, { a: undefined });
    expect('a' in result).toBe(true);
    expect(result.a).toBeUndefined();
  });

  it('keeps a __proto__ key of client JSON as a key: the prototype never changes (Object.assign would change it)', () => {
    const client = JSON.parse('{"__proto__": {"stream": true, "model": "inherited"}, "messages": []}') as Record<string, unknown>;
    const result = merged(client, { user: 'u' }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(result.stream).toBeUndefined();
    expect(result.model).toBeUndefined();
    expect(Object.keys(result)).toEqual(['__proto__', 'messages', 'user']);
    expect(JSON.parse(JSON.stringify(result))).toEqual(JSON.parse(JSON.stringify({ ...client, user: 'u' })));
    const assigned = Object.assign({}, client) as Record<string, unknown>;
    expect(assigned.stream).toBe(true);
  });

  it('merges three sources', () => {
    expect(merged({ a: 1, b: 1 }, { b: 2, c: 2 }, { c: 3 })).toEqual({ a: 1, b: 2, c: 3 });
  });

  it('gives what a spread gives, whichever way this Node takes (one by one on Node 20, a spread from V8 13)', () => {
    const client = JSON.parse('{"__proto__": {"x": 1}, "model": "m", "n": 2}') as Record<string, unknown>;
    const sources = [client, { n: 3, user: 'u' }, null, { z: undefined }];
    const nothing = null as Record<string, unknown> | null;
    const spread = { ...client, ...{ n: 3, user: 'u' }, ...nothing, ...{ z: undefined } };
    for (const result of [definedOneByOne(sources), merged(merged(client, { n: 3, user: 'u' }), { z: undefined })]) {
      expect(Object.keys(result)).toEqual(Object.keys(spread));
      expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
      expect(JSON.stringify(result)).toBe(JSON.stringify(spread));
    }
  });
});
