import { describe, expect, it } from 'vitest';
import { CATALOGUE_LISTED_MODELS, CATALOGUE_PRICE_ROWS } from '../../../shared/observability/pricing/catalogue-prices.js';
import { CATALOGUE_UNPRICED_PROVIDERS } from '../../../shared/observability/pricing/catalogue-prices-hosted.js';
import { STABILITY_MODELS } from '../../../shared/providers/stability-ai/images.js';
import { defaultModelIds, defaultPrice, PRICED_PROVIDER_SLUGS } from '../../../shared/observability/pricing/default-prices.js';
import { findProvider } from '../../../shared/providers/registry.js';

// Issue #47: providers the shipped genai-prices data does not know (watsonx.ai, Jina AI, Replicate) are priced by gw's
// own rows, each with the provider page it was read from and the day; /v1/models lists their models.
const tokens = (input: number, output: number) => ({ input, output, cachedInput: 0, cacheWrite: 0, reasoning: 0, total: input + output });

describe('catalogue price rows', () => {
  it('unpriced provider: every row belongs to a registered provider, names an https source and a date', () => {
    for (const row of CATALOGUE_PRICE_ROWS) {
      expect(findProvider(row.provider)?.slug).toBe(row.provider);
      expect(row.source).toMatch(/^https:\/\//);
      expect(row.written).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      // A row whose price no page confirmed is an estimate that says why, so a reviewer knows to check it first.
      if (row.estimate !== undefined) expect(row.estimate.length).toBeGreaterThan(20);
      // A third party's page says which it is and the date it gives, so a reviewer re-checks it against the provider.
      if (row.secondary !== undefined) expect(row.secondary).toMatch(/date|20\d\d/);
      expect(Number.isFinite(Date.parse(row.written))).toBe(true);
      expect(PRICED_PROVIDER_SLUGS).toContain(row.provider);
      expect(defaultModelIds(row.provider)).toContain(row.model);
    }
  });

  it('prices a call at the row’s per-million rates (watsonx: $0.0002 per 1,000 tokens)', () => {
    expect(defaultPrice('watsonx', 'ibm/granite-3-8b-instruct')!.cost(tokens(1_000_000, 500_000))).toBeCloseTo(0.3, 10);
    expect(defaultPrice('replicate', 'meta/meta-llama-3-70b-instruct')!.cost(tokens(1_000_000, 1_000_000))).toBeCloseTo(3.4, 10);
    expect(defaultPrice('jina-ai', 'JINA-EMBEDDINGS-V3')?.source).toBe('default');
    expect(defaultPrice('watsonx', 'ibm/not-a-model')).toBeUndefined();
  });

  it('estimate or sourced: the rows no page gave a rate for (watsonx, Jina AI, two Replicate models) are marked estimates; Replicate\'s Llama 3.1 405B is priced from its billing docs', () => {
    const estimates = CATALOGUE_PRICE_ROWS.filter((row) => row.estimate !== undefined).map((row) => `${row.provider}/${row.model}`);
    expect(estimates.sort()).toEqual([
      'dashscope-cn/qwen-flash', 'dashscope-cn/qwen-plus',
      'databricks/databricks-bge-large-en', 'databricks/databricks-meta-llama-3-1-8b-instruct', 'databricks/databricks-meta-llama-3-3-70b-instruct',
      'jina-ai/jina-embeddings-v3', 'jina-ai/jina-embeddings-v4', 'jina-ai/jina-reranker-v2-base-multilingual',
      'replicate/meta/meta-llama-3-70b-instruct', 'replicate/meta/meta-llama-3-8b-instruct',
      'watsonx/ibm/granite-3-8b-instruct', 'watsonx/ibm/slate-125m-english-rtrvr-v2', 'watsonx/meta-llama/llama-3-3-70b-instruct',
    ]);
    // The billing docs' worked example: 8 input tokens $0.0000760 and 43 output tokens $0.0004085.
    const price = defaultPrice('replicate', 'meta/meta-llama-3.1-405b-instruct')!;
    expect(price.cost(tokens(8, 0))).toBeCloseTo(0.000076, 12);
    expect(price.cost(tokens(0, 43))).toBeCloseTo(0.0004085, 12);
    expect(defaultModelIds('replicate')).toContain('meta/meta-llama-3.1-405b-instruct');
  });

  it('keeps the shipped data first where it has the model', () => {
    expect(defaultPrice('cohere', 'command-r')?.cost(tokens(1_000_000, 0))).toBeGreaterThan(0);
  });

  it('media providers are listed without a token price (their per-unit prices are media rows); Stability’s list is its adapter’s model table', () => {
    expect([...CATALOGUE_LISTED_MODELS['stability-ai']]).toEqual(STABILITY_MODELS);
    for (const [provider, models] of Object.entries(CATALOGUE_LISTED_MODELS)) {
      expect(findProvider(provider)?.slug).toBe(provider);
      expect(defaultModelIds(provider)).toEqual([...models]);
      for (const model of models) expect(defaultPrice(provider, model)?.cost(tokens(1_000, 1_000)) ?? 0).toBe(0);
    }
    // A listed model no page gave a price for stays unpriced.
    expect(defaultPrice('stability-ai', 'sd3.5-flash')).toBeUndefined();
  });

  // Issue #47: the new hosted providers the shipped data lacks. Each is priced by rows here or named, with why, as
  // priced only by a workspace pricing file; none is silently charged gw's default unpriced rate.
  const HOSTED_SLUGS = ['huggingface', 'github-models', 'nvidia-nim', 'sambanova', 'nebius', 'hyperbolic', 'lambda', 'dashscope', 'dashscope-cn', 'ai21', 'databricks', 'snowflake-cortex', 'azure-ai-inference'];

  it('unpriced provider: every #47 hosted slug has price rows or a documented reason it has none', () => {
    for (const slug of HOSTED_SLUGS) {
      expect(findProvider(slug)?.slug).toBe(slug);
      const rows = CATALOGUE_PRICE_ROWS.filter((row) => row.provider === slug);
      const reason = CATALOGUE_UNPRICED_PROVIDERS[slug];
      if (reason === undefined) {
        expect(rows.length, slug).toBeGreaterThanOrEqual(1);
        for (const row of rows) expect(defaultPrice(slug, row.model)!.cost(tokens(1_000_000, 1_000_000)), `${slug}/${row.model}`).toBeGreaterThan(0);
      } else {
        expect(rows, slug).toEqual([]);
        expect(reason.length).toBeGreaterThan(40);
        expect(defaultModelIds(slug)).toEqual([]);
      }
    }
    expect(Object.keys(CATALOGUE_UNPRICED_PROVIDERS).sort()).toEqual(['huggingface', 'lambda', 'nvidia-nim', 'snowflake-cortex']);
  });

  it('prices at the page’s rates: GitHub Models with its cached-input rate, DashScope at its international floors, SambaNova and Hyperbolic per model', () => {
    // GPT-4o on GitHub Models: $2.50 input, $1.25 cached input, $10 output per million token units.
    expect(defaultPrice('github-models', 'openai/gpt-4o')!.cost({ ...tokens(1_000_000, 1_000_000), cachedInput: 500_000 })).toBeCloseTo(1.25 + 0.625 + 10, 10);
    expect(defaultPrice('dashscope', 'qwen-plus')!.cost(tokens(1_000_000, 1_000_000))).toBeCloseTo(1.6, 10);
    expect(defaultPrice('sambanova', 'Meta-Llama-3.3-70B-Instruct')!.cost(tokens(1_000_000, 1_000_000))).toBeCloseTo(1.8, 10);
    expect(defaultPrice('hyperbolic', 'meta-llama/llama-3.3-70b-instruct')!.cost(tokens(1_000_000, 0))).toBeCloseTo(0.4, 10);
    // The same id at another provider is that provider's price, never this one's.
    expect(defaultPrice('dashscope-cn', 'qwen-max')).toBeUndefined();
  });

  it('secondary source: rows read on a third party’s page say so; the providers’ own pages (GitHub, Alibaba Cloud) need no note', () => {
    const secondary = new Set(CATALOGUE_PRICE_ROWS.filter((row) => row.secondary !== undefined).map((row) => row.provider));
    expect([...secondary].sort()).toEqual(['ai21', 'azure-ai-inference', 'databricks', 'hyperbolic', 'nebius', 'sambanova']);
    for (const row of CATALOGUE_PRICE_ROWS.filter((candidate) => ['github-models', 'dashscope'].includes(candidate.provider))) {
      expect(row.secondary).toBeUndefined();
      expect(row.estimate).toBeUndefined();
    }
  });

  it('unit conversion: a rate converted from another currency or billing unit (CNY, Databricks DBUs) is an estimate that says how', () => {
    for (const row of CATALOGUE_PRICE_ROWS.filter((candidate) => candidate.provider === 'dashscope-cn')) expect(row.estimate).toMatch(/CNY per USD/);
    for (const row of CATALOGUE_PRICE_ROWS.filter((candidate) => candidate.provider === 'databricks')) expect(row.estimate).toMatch(/DBU/);
    // qwen-plus in mainland China: 0.0008 CNY per 1,000 input tokens = 0.8 CNY per million, at 7.1 CNY per USD.
    expect(defaultPrice('dashscope-cn', 'qwen-plus')!.cost(tokens(1_000_000, 0))).toBeCloseTo(0.8 / 7.1, 6);
  });
});
