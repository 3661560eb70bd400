import { describe, expect, it } from 'vitest';
import { costFromRates } from '../../../shared/observability/pricing/cost.js';
import { defaultCapabilities, defaultPrice } from '../../../shared/observability/pricing/default-prices.js';
import type { TokenCounts } from '../../../shared/observability/pricing/usage-tokens.js';

const MILLION = 1_000_000;
const tokens = (counts: Partial<TokenCounts>): TokenCounts => {
  const base = { input: 0, output: 0, cachedInput: 0, cacheWrite: 0, reasoning: 0, ...counts };
  return { ...base, total: base.input + base.output };
};

describe('cost from per-million-token rates', () => {
  const rates = { input_per_mtok: 2, output_per_mtok: 8, cached_input_per_mtok: 0.5, cache_write_per_mtok: 2.5, reasoning_per_mtok: 12 };

  it('prices each kind of token at its own rate', () => {
    // 600k plain input ×2 + 300k cached ×0.5 + 100k written ×2.5 + 200k plain output ×8 + 100k reasoning ×12, per million.
    const cost = costFromRates(rates, tokens({ input: MILLION, cachedInput: 300_000, cacheWrite: 100_000, output: 300_000, reasoning: 100_000 }));
    expect(cost).toBeCloseTo(1.2 + 0.15 + 0.25 + 1.6 + 1.2, 10);
  });

  it('falls back to the input and output rates where a rate is not given', () => {
    expect(costFromRates({ input_per_mtok: 2, output_per_mtok: 8 }, tokens({ input: MILLION, cachedInput: MILLION, output: MILLION, reasoning: MILLION }))).toBe(10);
  });

  it('is 0 for no tokens', () => {
    expect(costFromRates(rates, tokens({}))).toBe(0);
  });
});

describe('the shipped prices (@pydantic/genai-prices) for current models', () => {
  const oneMillionEach = tokens({ input: MILLION, output: MILLION });

  it.each([
    ['openai', 'gpt-4o', 2.5 + 10],
    ['openai', 'gpt-4o-mini', 0.15 + 0.6],
    ['anthropic', 'claude-3-5-haiku-latest', 0.8 + 4],
    ['google', 'gemini-2.5-flash', 0.3 + 2.5],
    ['vertex-ai', 'gemini-2.0-flash-001', 0.1 + 0.4],
    ['bedrock', 'anthropic.claude-3-haiku-20240307-v1:0', 0.25 + 1.25],
    ['azure-openai', 'gpt-4o-mini', 0.15 + 0.6],
  ])('%s %s: $%s for a million input and a million output tokens', (provider, model, expected) => {
    const price = defaultPrice(provider, model);
    expect(price?.source).toBe('default');
    expect(price!.cost(oneMillionEach)).toBeCloseTo(expected, 8);
  });

  it('applies a model’s long-context tier (claude-sonnet-4-5: $3/$15 per million, $6/$22.50 past 200k prompt tokens)', () => {
    const price = defaultPrice('anthropic', 'claude-sonnet-4-5')!;
    expect(price.cost(tokens({ input: 100_000, output: 100_000 }))).toBeCloseTo(0.3 + 1.5, 8);
    expect(price.cost(oneMillionEach)).toBeCloseTo(6 + 22.5, 8);
  });

  it('prices cache reads at the model’s cache rate (gpt-4o: $1.25 per million)', () => {
    expect(defaultPrice('openai', 'gpt-4o')!.cost(tokens({ input: MILLION, cachedInput: MILLION }))).toBeCloseTo(1.25, 8);
  });

  it.each([
    ['ollama', 'llama3'],
    ['openai', 'a-model-that-does-not-exist'],
    ['vllm', 'gpt-4o'],
  ])('has no price for %s %s', (provider, model) => {
    expect(defaultPrice(provider, model)).toBeUndefined();
  });

  it('knows a model’s context window', () => {
    expect(defaultCapabilities('openai', 'gpt-4o')).toMatchObject({ context_window: 128_000 });
  });
});
