import { describe, expect, it } from 'vitest';
import { HotEntries } from '../../../shared/cache/hot-entries.js';

const KIB = 1024;
const clockAt = (start: number) => {
  const clock = { now: start, read: () => clock.now };
  return clock;
};

describe('hot response-cache entries in memory (shared/cache/hot-entries.ts)', () => {
  it('bounded memory: many entries never take more than the bound, and the least recently used go first', () => {
    const memory = new HotEntries({ maxBytes: () => 256 * KIB, ttlMs: () => 60_000 });
    // Four workspaces so the per-workspace share is not what bounds them.
    for (let i = 0; i < 4_000; i++) memory.rememberWrite(`ws-${i % 4}`, `key-${i}`, 'x'.repeat(500), Date.now() + 60_000);
    expect(memory.bytes).toBeLessThanOrEqual(256 * KIB);
    expect(memory.bytes).toBeGreaterThan(128 * KIB);
    expect(memory.get('ws-0', 'key-0')).toBeUndefined();
    expect(memory.get('ws-3', 'key-3999')).toBe('x'.repeat(500));
  });

  it('bounded memory per workspace: one workspace filling its share does not push out another\'s hot entry', () => {
    const memory = new HotEntries({ maxBytes: () => 256 * KIB, ttlMs: () => 60_000 });
    memory.rememberWrite('quiet', 'faq', 'answer', Date.now() + 60_000);
    for (let i = 0; i < 10_000; i++) memory.rememberWrite('noisy', `key-${i}`, 'y'.repeat(1_000), Date.now() + 60_000);
    expect(memory.bytesOf('noisy')).toBeLessThanOrEqual(64 * KIB);
    expect(memory.get('quiet', 'faq')).toBe('answer');
  });

  it('bounded memory: an entry too large for its share of the bound is not held at all', () => {
    const memory = new HotEntries({ maxBytes: () => 256 * KIB, ttlMs: () => 60_000 });
    memory.rememberWrite('ws', 'big', 'z'.repeat(8 * KIB), Date.now() + 60_000);
    expect(memory.get('ws', 'big')).toBeUndefined();
    expect(memory.bytes).toBe(0);
  });

  it('TTL: never answers past the entry\'s own expiry, however long the memory TTL', () => {
    const clock = clockAt(1_000_000);
    const memory = new HotEntries({ maxBytes: () => 1024 * KIB, ttlMs: () => 300_000, now: clock.read });
    memory.rememberWrite('ws', 'k', 'v', clock.now + 5_000);
    clock.now += 4_999;
    expect(memory.get('ws', 'k')).toBe('v');
    clock.now += 1;
    expect(memory.get('ws', 'k')).toBeUndefined();
    expect(memory.bytes).toBe(0);
  });

  it('TTL: an entry that lives longer is held only for the memory TTL, so another process\'s change is seen within it', () => {
    const clock = clockAt(1_000_000);
    const memory = new HotEntries({ maxBytes: () => 1024 * KIB, ttlMs: () => 30_000, now: clock.read });
    memory.readEnded(memory.readStarted('ws', 'k'), { body: 'v', expiresAt: clock.now + 3_600_000 });
    clock.now += 29_999;
    expect(memory.get('ws', 'k')).toBe('v');
    clock.now += 1;
    expect(memory.get('ws', 'k')).toBeUndefined();
  });

  it('workspace isolation: the same key text in two workspaces is two entries', () => {
    const memory = new HotEntries({ maxBytes: () => 1024 * KIB, ttlMs: () => 60_000 });
    memory.rememberWrite('ws-a', 'same-key', 'answer of a', Date.now() + 60_000);
    expect(memory.get('ws-b', 'same-key')).toBeUndefined();
    memory.rememberWrite('ws-b', 'same-key', 'answer of b', Date.now() + 60_000);
    expect(memory.get('ws-a', 'same-key')).toBe('answer of a');
    expect(memory.get('ws-b', 'same-key')).toBe('answer of b');
  });

  it('a read that began before a forced refresh (forget) or a write is not kept: an older value cannot come back', () => {
    const memory = new HotEntries({ maxBytes: () => 1024 * KIB, ttlMs: () => 60_000 });
    const old = { body: 'old', expiresAt: Date.now() + 60_000 };
    const beforeForget = memory.readStarted('ws', 'k');
    memory.forget('ws', 'k');
    memory.readEnded(beforeForget, old);
    expect(memory.get('ws', 'k')).toBeUndefined();
    const beforeWrite = memory.readStarted('ws', 'k');
    memory.rememberWrite('ws', 'k', 'new', Date.now() + 60_000);
    memory.readEnded(beforeWrite, old);
    expect(memory.get('ws', 'k')).toBe('new');
    memory.forget('ws', 'k');
    expect(memory.get('ws', 'k')).toBeUndefined();
  });

  it('a write of another entry during a read does not keep the read out of memory (a busy cache\'s hot entry is still held)', () => {
    const memory = new HotEntries({ maxBytes: () => 1024 * KIB, ttlMs: () => 60_000 });
    const read = memory.readStarted('ws', 'hot');
    memory.rememberWrite('ws', 'other', 'a miss written meanwhile', Date.now() + 60_000);
    memory.forget('ws-2', 'hot');
    memory.readEnded(read, { body: 'hot answer', expiresAt: Date.now() + 60_000 });
    expect(memory.get('ws', 'hot')).toBe('hot answer');
  });

  it('a memory TTL or bound of 0 keeps nothing', () => {
    const noTtl = new HotEntries({ maxBytes: () => 1024 * KIB, ttlMs: () => 0 });
    noTtl.rememberWrite('ws', 'k', 'v', Date.now() + 60_000);
    expect(noTtl.get('ws', 'k')).toBeUndefined();
    const noBytes = new HotEntries({ maxBytes: () => 0, ttlMs: () => 60_000 });
    noBytes.rememberWrite('ws', 'k', 'v', Date.now() + 60_000);
    expect(noBytes.get('ws', 'k')).toBeUndefined();
  });
});
