import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ModelConfigChain, MODEL_CONFIG_CACHE_TTL_MS } from '../../../shared/observability/pricing/model-configs.js';
import { LocalFileConfigSource, ProxyConfigSource } from '../../../shared/observability/pricing/sources.js';
import type { TokenCounts } from '../../../shared/observability/pricing/usage-tokens.js';
import { startMockUpstream, type MockUpstream, type ScriptedResponse } from '../../support/mock-upstream.js';

const MILLION = 1_000_000;
const oneMillionEach: TokenCounts = { input: MILLION, output: MILLION, cachedInput: 0, cacheWrite: 0, reasoning: 0, total: 2 * MILLION };

// The config proxy as a real HTTP server: GET /pricing/<provider> and /general/<provider>.
let proxy: MockUpstream;
let proxyDocuments: Record<string, ScriptedResponse>;
const localDir = mkdtempSync(join(tmpdir(), 'gw-pricing-chain-'));

beforeAll(async () => {
  proxy = await startMockUpstream((request) => proxyDocuments[request.path] ?? { status: 404, json: { error: 'no such provider' } });
  writeFileSync(
    join(localDir, 'openai.json'),
    JSON.stringify({ models: { 'proxy-model': { input_per_mtok: 100, output_per_mtok: 100 }, 'local-model': { input_per_mtok: 3, output_per_mtok: 4 } } }),
  );
  writeFileSync(join(localDir, 'capabilities.json'), JSON.stringify({ openai: { models: { 'local-model': { context_window: 4096, max_output_tokens: 1024 } } } }));
});
afterAll(async () => {
  await proxy?.close();
  rmSync(localDir, { recursive: true, force: true });
});
beforeEach(() => {
  proxyDocuments = {
    '/pricing/openai': { json: { models: { 'proxy-model': { input_per_mtok: 1, output_per_mtok: 2 }, 'gpt-4o': { input_per_mtok: 7, output_per_mtok: 7 } } } },
    '/general/openai': { json: { models: { 'proxy-model': { context_window: 32_000 } } } },
  };
});

function chain(now: () => number = Date.now) {
  return new ModelConfigChain({
    sources: [new ProxyConfigSource(proxy.url), new LocalFileConfigSource({ pricing: localDir, capabilities: join(localDir, 'capabilities.json') })],
    now,
  });
}

async function costOf(configs: ModelConfigChain, provider: string, model: string) {
  const price = await configs.pricing(provider, model);
  return price ? { source: price.source, cost: price.cost(oneMillionEach) } : null;
}

describe('the pricing chain: memory → proxy → log store → local files → shipped prices', () => {
  it('takes each model from the first source that prices it', async () => {
    const configs = chain();
    expect(await costOf(configs, 'openai', 'proxy-model')).toEqual({ source: 'proxy', cost: 3 });
    // The proxy overrides the shipped price of a model it lists.
    expect(await costOf(configs, 'openai', 'gpt-4o')).toEqual({ source: 'proxy', cost: 14 });
    expect(await costOf(configs, 'openai', 'local-model')).toEqual({ source: 'local', cost: 7 });
    expect(await costOf(configs, 'openai', 'gpt-4o-mini')).toMatchObject({ source: 'default' });
    expect((await costOf(configs, 'openai', 'gpt-4o-mini'))!.cost).toBeCloseTo(0.75, 8);
    expect(await costOf(configs, 'openai', 'no-such-model')).toBeNull();
    expect(await costOf(configs, 'ollama', 'llama3')).toBeNull();
  });

  it('asks the proxy at the spec’s paths, once per provider and kind while cached', async () => {
    const before = proxy.requests.length;
    const configs = chain();
    await configs.pricing('openai', 'proxy-model');
    await configs.pricing('openai', 'local-model');
    await configs.capabilities('openai', 'proxy-model');
    await configs.pricing('anthropic', 'claude-sonnet-4-5');
    expect(proxy.requests.slice(before).map((request) => `${request.method} ${request.path}`)).toEqual(['GET /pricing/openai', 'GET /general/openai', 'GET /pricing/anthropic']);
  });

  it('keeps answers in memory for 1 hour (injected clock), then reads the sources again', async () => {
    let now = Date.parse('2026-05-01T12:00:00Z');
    const configs = chain(() => now);
    expect(await costOf(configs, 'openai', 'proxy-model')).toEqual({ source: 'proxy', cost: 3 });
    proxyDocuments['/pricing/openai'] = { json: { models: { 'proxy-model': { input_per_mtok: 10, output_per_mtok: 20 } } } };
    now += MODEL_CONFIG_CACHE_TTL_MS - 1;
    expect(await costOf(configs, 'openai', 'proxy-model')).toEqual({ source: 'proxy', cost: 3 });
    now += 1;
    expect(await costOf(configs, 'openai', 'proxy-model')).toEqual({ source: 'proxy', cost: 30 });
  });

  it('moves on to the next source when the proxy fails, and asks it again a minute later', async () => {
    let now = Date.parse('2026-05-01T12:00:00Z');
    proxyDocuments['/pricing/openai'] = { status: 503, json: { error: 'down' } };
    const configs = chain(() => now);
    expect(await costOf(configs, 'openai', 'proxy-model')).toEqual({ source: 'local', cost: 200 });
    proxyDocuments['/pricing/openai'] = { json: { models: { 'other-model': { input_per_mtok: 5, output_per_mtok: 5 } } } };
    now += 60_000;
    expect(await costOf(configs, 'openai', 'other-model')).toEqual({ source: 'proxy', cost: 10 });
  });

  it('ignores an invalid document instead of half-using it', async () => {
    proxyDocuments['/pricing/openai'] = { json: { models: { 'proxy-model': { input_per_mtok: 'cheap' } } } };
    expect(await costOf(chain(), 'openai', 'proxy-model')).toEqual({ source: 'local', cost: 200 });
  });

  it('reads capabilities through the same chain (a single local file keyed by provider, then shipped data)', async () => {
    const configs = chain();
    expect(await configs.capabilities('openai', 'proxy-model')).toEqual({ context_window: 32_000 });
    expect(await configs.capabilities('openai', 'local-model')).toEqual({ context_window: 4096, max_output_tokens: 1024 });
    expect(await configs.capabilities('openai', 'gpt-4o')).toMatchObject({ context_window: 128_000 });
    expect(await configs.capabilities('ollama', 'llama3')).toBeNull();
  });

  it('matches a model name exactly first, then ignoring case', async () => {
    expect(await costOf(chain(), 'openai', 'LOCAL-MODEL')).toEqual({ source: 'local', cost: 7 });
  });
});
