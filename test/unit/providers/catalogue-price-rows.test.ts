import { describe, expect, it } from 'vitest';
import { CATALOGUE_LISTED_MODELS, CATALOGUE_PRICE_ROWS } from '../../../shared/observability/pricing/catalogue-prices.js';
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
});
