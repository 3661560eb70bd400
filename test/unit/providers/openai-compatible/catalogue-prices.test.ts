import { describe, expect, it } from 'vitest';
import { defaultModelIds, defaultPrice, PRICED_PROVIDER_SLUGS } from '../../../../shared/observability/pricing/default-prices.js';
import { findProvider } from '../../../../shared/providers/registry.js';

// Issue #47: the new providers whose prices the shipped data (@pydantic/genai-prices, each price with its source and
// start date) has are priced and listed by /v1/models under gw's slug. An unmapped slug would log its calls unpriced.

describe('prices of the new OpenAI-compatible providers', () => {
  it.each([
    ['moonshot', 'kimi-k2'],
    ['zhipu', 'GLM-4-Air'],
    ['minimax', 'MiniMax-M2'],
    ['novita-ai', 'Sao10K/L3-8B-Stheno-v3.2'],
    ['cloudflare-workers-ai', '@cf/aisingapore/gemma-sea-lion-v4-27b-it'],
  ])('unpriced provider: %s lists %s and prices a call of it', (slug, model) => {
    expect(findProvider(slug)?.slug).toBe(slug);
    expect(PRICED_PROVIDER_SLUGS).toContain(slug);
    expect(defaultModelIds(slug)).toContain(model);
    const price = defaultPrice(slug, model);
    expect(price?.source).toBe('default');
    expect(price!.cost({ input: 1_000_000, output: 1_000_000, cachedInput: 0, cacheWrite: 0, reasoning: 0, total: 2_000_000 })).toBeGreaterThan(0);
  });
});
