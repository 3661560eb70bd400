import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HotEntries } from '../../../shared/cache/hot-entries.js';
import { ResponseCacheStore } from '../../../shared/gateway/cache/cache-store.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { settings } from '../../../shared/settings.js';
import { CACHE_TABLE, tableName } from '../../../shared/store/table-definitions.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { createKey, createWorkspace, type CreatedKey } from '../control-plane/policies-support.js';
import { watchStoreCommands } from '../../support/store-commands.js';

/**
 * Issue #48: a simple-cache hit for a hot entry is answered from this process's memory, without a store call.
 * Store calls are counted by a middleware on the process's real DynamoDB client (the gateway runs in this
 * process), per command and table.
 */
let gateway: TestGateway;
let upstream: MockUpstream;
let otherKey: CreatedKey;
const calls: Array<{ command: string; table: string }> = [];

beforeAll(async () => {
  // Each answer numbered, so an entry and the one a forced refresh stored are told apart.
  let answers = 0;
  const mock = openAIMockHandler();
  upstream = await startMockUpstream(async (request) => {
    const response = await mock(request);
    return 'json' in response ? { ...response, json: { ...(response.json as object), id: `chatcmpl-${++answers}` } } : response;
  });
  gateway = await startTestGateway();
  const other = await createWorkspace(gateway.bootstrap.organisationId, 'hot-entries-other');
  otherKey = await createKey({ organisationId: gateway.bootstrap.organisationId, workspaceId: other, scopes: ['completions:write'] });
  watchStoreCommands('hotEntriesCallCounter', (command, input) => {
    calls.push({ command, table: String((input as { TableName?: string }).TableName ?? '') });
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const cacheTable = () => tableName(settings(), CACHE_TABLE);
const cacheReads = () => calls.filter((call) => call.table === cacheTable() && call.command === 'GetItemCommand').length;
const upstreamCalls = () => upstream.requests.filter((request) => request.path.endsWith('/chat/completions')).length;
let counter = 0;
const unique = () => `hot question ${++counter} ${Date.now()}`;
const config = () => JSON.stringify({ provider: 'openai', api_key: 'sk-test', custom_host: upstream.url, cache: { mode: 'simple' } });
const ask = (content: string, headers: Record<string, string> = {}) =>
  gateway.post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }, { 'x-gw-config': config(), ...headers });

describe('hot simple-cache entries are answered from memory', () => {
  it('a second hit makes no store call: the entry this process wrote or read is answered from memory', async () => {
    const content = unique();
    expect((await ask(content)).headers.get('x-gw-cache-status')).toBe('MISS');
    await drainAllBackgroundWork();
    const readsBefore = cacheReads();
    const upstreamBefore = upstreamCalls();
    for (let i = 0; i < 3; i++) {
      const hit = await ask(content);
      expect(hit.headers.get('x-gw-cache-status')).toBe('HIT');
      expect(hit.status).toBe(200);
    }
    expect(cacheReads() - readsBefore, 'cache-table reads for three hits of a hot entry').toBe(0);
    expect(upstreamCalls()).toBe(upstreamBefore);
  });

  it('a forced refresh drops the entry from memory and the next hit answers the refreshed one', async () => {
    const content = unique();
    const first = (await (await ask(content)).json()) as { id: string };
    await drainAllBackgroundWork();
    const refreshed = await ask(content, { 'x-gw-cache-force-refresh': 'true' });
    expect(refreshed.headers.get('x-gw-cache-status')).toBe('REFRESH');
    const fresh = (await refreshed.json()) as { id: string };
    await drainAllBackgroundWork();
    const hit = await ask(content);
    expect(hit.headers.get('x-gw-cache-status')).toBe('HIT');
    const served = (await hit.json()) as { id: string };
    expect(fresh.id).not.toBe(first.id);
    expect(served.id).toBe(fresh.id);
  });

  it('workspace isolation: the same request in another workspace is a miss, never the memory of the first', async () => {
    const content = unique();
    await ask(content);
    await drainAllBackgroundWork();
    expect((await ask(content)).headers.get('x-gw-cache-status')).toBe('HIT');
    const other = await ask(content, { 'x-gw-api-key': otherKey.raw });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-gw-cache-status')).toBe('MISS');
  });
});

describe('ResponseCacheStore memory against the embedded store (one store per process)', () => {
  const memoryOf = (now: () => number, ttlMs = 30_000) => new HotEntries({ maxBytes: () => 1024 * 1024, ttlMs: () => ttlMs, now });

  it('another process reads an entry once, then answers it from memory', async () => {
    const writer = new ResponseCacheStore();
    const reader = new ResponseCacheStore();
    await writer.put('ws-hot-1', 'key', '{"answer":1}', 60);
    const before = cacheReads();
    expect(await reader.get('ws-hot-1', 'key')).toBe('{"answer":1}');
    expect(await reader.get('ws-hot-1', 'key')).toBe('{"answer":1}');
    expect(await reader.get('ws-hot-1', 'key')).toBe('{"answer":1}');
    expect(cacheReads() - before).toBe(1);
  });

  it('TTL respected: memory never answers past the entry\'s expiry, and re-reads after its own TTL', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const clock = () => now;
    const writer = new ResponseCacheStore(clock, memoryOf(clock));
    await writer.put('ws-hot-ttl', 'short', 'a', 10);
    const reader = new ResponseCacheStore(clock, memoryOf(clock, 5_000));
    await writer.put('ws-hot-ttl', 'long', 'b', 3_600);
    expect(await writer.get('ws-hot-ttl', 'short')).toBe('a');
    expect(await reader.get('ws-hot-ttl', 'long')).toBe('b');
    now += 9_999;
    expect(await writer.get('ws-hot-ttl', 'short')).toBe('a');
    now += 1;
    expect(await writer.get('ws-hot-ttl', 'short')).toBeUndefined();
    // The reader's memory TTL (5 s) ran out long ago: it reads the store again, so a change there is seen.
    const before = cacheReads();
    expect(await reader.get('ws-hot-ttl', 'long')).toBe('b');
    expect(cacheReads() - before).toBe(1);
  });

  it('workspace isolation: the same key text in two workspaces answers each its own entry, from memory too', async () => {
    const store = new ResponseCacheStore();
    await store.put('ws-hot-a', 'same-key-text', 'of a', 60);
    expect(await store.get('ws-hot-b', 'same-key-text')).toBeUndefined();
    await store.put('ws-hot-b', 'same-key-text', 'of b', 60);
    const before = cacheReads();
    expect(await store.get('ws-hot-a', 'same-key-text')).toBe('of a');
    expect(await store.get('ws-hot-b', 'same-key-text')).toBe('of b');
    expect(cacheReads() - before).toBe(0);
  });
});
