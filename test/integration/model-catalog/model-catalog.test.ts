import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogModel } from '../../../shared/control-plane/model-catalog/schemas.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, expectError, newKey, newWorkspace } from '../control-plane/identities-support.js';

interface CatalogList {
  object: 'list';
  data: CatalogModel[];
  total: number;
}

/** Local pricing and capability files: the chain's configured source, consulted before the shipped data. */
function writeModelConfigs(): { root: string; pricing: string; capabilities: string } {
  const root = mkdtempSync(join(tmpdir(), 'gw-catalog-'));
  const pricing = join(root, 'pricing');
  const capabilities = join(root, 'capabilities');
  mkdirSync(pricing);
  mkdirSync(capabilities);
  const write = (dir: string, provider: string, document: unknown) => writeFileSync(join(dir, `${provider}.json`), JSON.stringify(document));
  write(pricing, 'openai', { models: { 'gw-test-model': { input_per_mtok: 1.5, output_per_mtok: 6, cached_input_per_mtok: 0.5 } } });
  write(capabilities, 'openai', { models: { 'gw-test-model': { context_window: 64_000, max_output_tokens: 8_000, vision: true, name: 'GW Test Model' } } });
  write(pricing, 'openrouter', { models: { 'acme/model-1.5': { input_per_mtok: 2, output_per_mtok: 4 } } });
  write(capabilities, 'openrouter', { models: { 'acme/model-1.5': { capabilities: ['tools'] } } });
  write(pricing, 'ollama', { models: { 'llama3.2:3b': { input_per_mtok: 0, output_per_mtok: 0 } } });
  return { root, pricing, capabilities };
}

let gateway: TestGateway;
let plainKey: string;
let routedKey: string;
let files: ReturnType<typeof writeModelConfigs> | undefined;

beforeAll(async () => {
  files = writeModelConfigs();
  gateway = await startTestGateway({ MODEL_CONFIGS_PRICING_LOCAL_PATH: files.pricing, MODEL_CONFIGS_CAPABILITIES_LOCAL_PATH: files.capabilities });
  plainKey = (await newKey(gateway, { scopes: ['prompts:read'] })).key;
  // A workspace that reaches anthropic (a virtual key) and openrouter (a saved config).
  const routed = await newWorkspace(gateway);
  routedKey = (await newKey(gateway, { workspace_id: routed.id, scopes: ['virtual_keys:write', 'configs:write'] })).key;
  const virtualKey = await api(gateway, 'POST', '/v1/virtual-keys', { key: routedKey, body: { provider: 'anthropic', credential: 'sk-ant-test' } });
  expect(virtualKey.status).toBe(201);
  const config = await api(gateway, 'POST', '/v1/configs', { key: routedKey, body: { name: 'router', config: { strategy: { mode: 'fallback' }, targets: [{ provider: 'openrouter', api_key: 'sk-or-test' }] } } });
  expect(config.status).toBe(201);
});
afterAll(async () => {
  await gateway?.close();
  if (files) rmSync(files.root, { recursive: true, force: true });
});

describe('GET /v1/model-catalog', () => {
  it('lists models with pricing and capabilities from the local files, then the shipped data', async () => {
    const reply = await api<CatalogList>(gateway, 'GET', '/v1/model-catalog?provider=openai', { key: plainKey });
    expect(reply.status).toBe(200);
    expect(reply.body.total).toBe(reply.body.data.length);
    const local = reply.body.data.find((entry) => entry.model === 'gw-test-model');
    expect(local).toEqual({
      object: 'catalog_model',
      id: 'openai/gw-test-model',
      provider: 'openai',
      model: 'gw-test-model',
      name: 'GW Test Model',
      pricing: { currency: 'USD', unit: 'per_million_tokens', input: 1.5, output: 6, cached_input: 0.5, cache_write: 1.5, source: 'local' },
      capabilities: { context_window: 64_000, max_output_tokens: 8_000, vision: true, name: 'GW Test Model' },
    });
    const shipped = reply.body.data.find((entry) => entry.model === 'gpt-4o');
    expect(shipped?.pricing).toMatchObject({ source: 'default', input: expect.any(Number), output: expect.any(Number) });
    expect(shipped?.pricing?.output).toBeGreaterThan(shipped!.pricing!.input);
    expect(reply.body.data.every((entry) => entry.provider === 'openai')).toBe(true);
  });

  it('filters by capability, from a field or from a capabilities list', async () => {
    const vision = await api<CatalogList>(gateway, 'GET', '/v1/model-catalog?capability=vision', { key: plainKey });
    expect(vision.body.data.map((entry) => entry.id)).toEqual(['openai/gw-test-model']);
    const tools = await api<CatalogList>(gateway, 'GET', '/v1/model-catalog?capability=tools', { key: plainKey });
    expect(tools.body.data.map((entry) => entry.id)).toEqual(['openrouter/acme/model-1.5']);
    const none = await api<CatalogList>(gateway, 'GET', '/v1/model-catalog?provider=anthropic&capability=vision', { key: plainKey });
    expect(none.body).toEqual({ object: 'list', data: [], total: 0 });
  });

  it('covers several providers when unfiltered, self-hosted ones from the local files only', async () => {
    const reply = await api<CatalogList>(gateway, 'GET', '/v1/model-catalog', { key: plainKey });
    const providers = new Set(reply.body.data.map((entry) => entry.provider));
    for (const provider of ['openai', 'anthropic', 'openrouter', 'ollama']) expect(providers).toContain(provider);
    expect(reply.body.data.filter((entry) => entry.provider === 'ollama').map((entry) => entry.model)).toEqual(['llama3.2:3b']);
  });

  it('gets one model by provider and slug: dots, colons and slashes (as segments or %2F), aliases, any case', async () => {
    const dotted = await api<CatalogModel>(gateway, 'GET', '/v1/model-catalog/openrouter/acme/model-1.5', { key: plainKey });
    expect(dotted.status).toBe(200);
    expect(dotted.body).toMatchObject({ id: 'openrouter/acme/model-1.5', model: 'acme/model-1.5', pricing: { input: 2, output: 4, source: 'local' } });
    const encoded = await api<CatalogModel>(gateway, 'GET', '/v1/model-catalog/openrouter/acme%2Fmodel-1.5', { key: plainKey });
    expect(encoded.body).toEqual(dotted.body);
    const colon = await api<CatalogModel>(gateway, 'GET', '/v1/model-catalog/ollama/llama3.2:3b', { key: plainKey });
    expect(colon.body).toMatchObject({ model: 'llama3.2:3b', pricing: { input: 0, output: 0 } });
    const upper = await api<CatalogModel>(gateway, 'GET', '/v1/model-catalog/openai/GW-TEST-MODEL', { key: plainKey });
    expect(upper.body.model).toBe('gw-test-model');
    const shipped = await api<CatalogModel>(gateway, 'GET', '/v1/model-catalog/anthropic/claude-3-5-haiku-latest', { key: plainKey });
    expect(shipped.status).toBe(200);
    expect(shipped.body).toMatchObject({ provider: 'anthropic', pricing: { source: 'default' }, capabilities: { context_window: expect.any(Number) } });
    const alias = await api<CatalogModel>(gateway, 'GET', '/v1/model-catalog/mistral/mistral-large', { key: plainKey });
    expect(alias.body.provider).toBe('mistral-ai');
  });

  it('answers 404 for an unknown model or provider and 400 for an unknown provider filter', async () => {
    expectError(await api(gateway, 'GET', '/v1/model-catalog/openai/no-such-model', { key: plainKey }), 404, 'not_found');
    expectError(await api(gateway, 'GET', '/v1/model-catalog/no-such-provider/gpt-4o', { key: plainKey }), 404, 'not_found');
    expectError(await api(gateway, 'GET', '/v1/model-catalog?provider=nope', { key: plainKey }), 400, 'invalid_provider', { param: 'provider' });
  });

  it('needs a gw key', async () => {
    expect((await api(gateway, 'GET', '/v1/model-catalog', { key: null })).status).toBe(401);
    expect((await api(gateway, 'GET', '/v1/model-catalog', { key: 'gwk_wrong' })).status).toBe(401);
  });
});

describe('GET /v1/models (OpenAI list format)', () => {
  it('lists every known model for a workspace without virtual keys or configs, with the real openai SDK', async () => {
    const client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, defaultHeaders: { 'x-gw-api-key': plainKey } });
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.length).toBeGreaterThan(50);
    expect(models[0]).toEqual({ id: expect.any(String), object: 'model', created: expect.any(Number), owned_by: expect.any(String) });
    // `created` is a real time (the shipped catalog data's date), the same for every model, never 0 nor in the future.
    const created = models[0].created;
    expect(created).toBeGreaterThan(Date.parse('2025-01-01') / 1000);
    expect(created).toBeLessThanOrEqual(Date.now() / 1000);
    expect(new Set(models.map((model) => model.created))).toEqual(new Set([created]));
    expect(models).toContainEqual({ id: 'gw-test-model', object: 'model', created, owned_by: 'openai' });
    expect(new Set(models.map((model) => model.owned_by))).toContain('anthropic');
    const retrieved = await client.models.retrieve('gw-test-model');
    expect(retrieved).toMatchObject({ id: 'gw-test-model', object: 'model', owned_by: 'openai' });
  });

  it('lists only the providers the workspace reaches through its virtual keys and configs', async () => {
    const client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, defaultHeaders: { 'x-gw-api-key': routedKey } });
    const owners = new Set<string>();
    for await (const model of client.models.list()) owners.add(model.owned_by);
    expect([...owners].sort()).toEqual(['anthropic', 'openrouter']);
    await expect(client.models.retrieve('gw-test-model')).rejects.toMatchObject({ status: 404 });
    const routed = await client.models.retrieve('openrouter/acme/model-1.5');
    expect(routed).toMatchObject({ id: 'acme/model-1.5', owned_by: 'openrouter' });
  });

  it('filters by ?provider= and refuses an unknown one', async () => {
    const reply = await api<{ object: string; data: Array<{ owned_by: string; id: string }> }>(gateway, 'GET', '/v1/models?provider=ollama', { key: plainKey });
    expect(reply.body).toEqual({ object: 'list', data: [{ id: 'llama3.2:3b', object: 'model', created: expect.any(Number), owned_by: 'ollama' }] });
    expect((reply.body.data[0] as unknown as { created: number }).created).toBeGreaterThan(0);
    const unreachable = await api<{ data: unknown[] }>(gateway, 'GET', '/v1/models?provider=openai', { key: routedKey });
    expect(unreachable.body.data).toEqual([]);
    expectError(await api(gateway, 'GET', '/v1/models?provider=nope', { key: plainKey }), 400, 'invalid_provider');
    expectError(await api(gateway, 'GET', '/v1/models/no-such-model', { key: plainKey }), 404, 'model_not_found');
  });

  it('unpriced provider: lists the #47 providers’ models once they have price rows (gw’s rows or the shipped data), under their slug', async () => {
    const listed = async (provider: string) => {
      const reply = await api<{ data: Array<{ id: string; owned_by: string }> }>(gateway, 'GET', `/v1/models?provider=${provider}`, { key: plainKey });
      expect(reply.status).toBe(200);
      for (const model of reply.body.data) expect(model.owned_by).toBe(provider);
      return reply.body.data.map((model) => model.id);
    };
    expect(await listed('github-models')).toEqual(expect.arrayContaining(['openai/gpt-4o', 'openai/gpt-4o-mini']));
    expect(await listed('sambanova')).toContain('Meta-Llama-3.3-70B-Instruct');
    expect(await listed('hyperbolic')).toContain('meta-llama/Llama-3.3-70B-Instruct');
    expect(await listed('dashscope')).toEqual(expect.arrayContaining(['qwen-max', 'qwen-plus', 'qwen-turbo']));
    expect(await listed('dashscope-cn')).toContain('qwen-plus');
    expect(await listed('ai21')).toEqual(expect.arrayContaining(['jamba-large', 'jamba-mini']));
    expect(await listed('databricks')).toContain('databricks-meta-llama-3-3-70b-instruct');
    expect(await listed('azure-ai-inference')).toContain('Meta-Llama-3.1-8B-Instruct');
    expect(await listed('nebius')).toContain('meta-llama/Llama-3.3-70B-Instruct');
    for (const provider of ['moonshot', 'zhipu', 'minimax', 'novita-ai', 'cloudflare-workers-ai']) expect((await listed(provider)).length, provider).toBeGreaterThan(0);
    // A router with no single rate lists nothing of its own (a workspace pricing file adds its models).
    expect(await listed('huggingface')).toEqual([]);
    const retrieved = await api<{ id: string; owned_by: string }>(gateway, 'GET', '/v1/models/sambanova/Meta-Llama-3.3-70B-Instruct', { key: plainKey });
    expect(retrieved.body).toMatchObject({ id: 'Meta-Llama-3.3-70B-Instruct', owned_by: 'sambanova' });
  });

  it('needs a valid gw key and nothing more', async () => {
    expect((await api(gateway, 'GET', '/v1/models', { key: null })).status).toBe(401);
    const client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, defaultHeaders: { 'x-gw-api-key': 'gwk_not_a_key' } });
    await expect(client.models.list()).rejects.toMatchObject({ status: 401 });
  });
});
