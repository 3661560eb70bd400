import { calcPrice, findProvider, type ModelInfo } from '@pydantic/genai-prices';
import { CATALOGUE_PRICED_PROVIDERS, catalogueModelIds, cataloguePriceRow } from './catalogue-prices.js';
import { priceFromRates, roundUsd, type ModelPrice } from './cost.js';
import { mediaModelIds, mediaRatesFor } from './media-prices.js';
import type { ModelCapabilities } from './config-documents.js';
import type { TokenCounts } from './usage-tokens.js';

/**
 * gw provider slugs → @pydantic/genai-prices provider ids. Self-hosted providers (ollama, vllm, lm-studio) have
 * no price: a model they serve costs what the operator says in a local pricing file, or is logged unpriced.
 */
const PRICED_PROVIDERS: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  'azure-openai': 'azure',
  bedrock: 'aws',
  google: 'google',
  'vertex-ai': 'google',
  groq: 'groq',
  'mistral-ai': 'mistral',
  'together-ai': 'together',
  deepseek: 'deepseek',
  'fireworks-ai': 'fireworks',
  openrouter: 'openrouter',
  'perplexity-ai': 'perplexity',
  'x-ai': 'x-ai',
  cerebras: 'cerebras',
  // Cohere and Voyage AI prices come from the shipped genai-prices data (its own per-price sources and dates).
  cohere: 'cohere',
  'voyage-ai': 'voyage',
  // Issue #47: the new OpenAI-compatible providers the shipped data prices (each price carries its own source and
  // start date in the package's data). The others are priced by a workspace pricing file until the data has them.
  'novita-ai': 'novita',
  moonshot: 'moonshotai',
  zhipu: 'zhipuai',
  minimax: 'minimax',
  'cloudflare-workers-ai': 'cloudflare',
};

const SOURCE = 'default';

/** The gw providers the shipped data prices (the model catalog lists their models). */
export const PRICED_PROVIDER_SLUGS: readonly string[] = [...new Set([...Object.keys(PRICED_PROVIDERS), ...CATALOGUE_PRICED_PROVIDERS])];

let shippedDataDate: number | undefined;

/**
 * The date of the shipped pricing data, in epoch seconds: its newest price change (a `start_date`) that is not in
 * the future (the data announces some ahead). The data has no release date per model, so `/v1/models` gives this
 * as every model's `created`: a real time the model was known by, stable across requests (it changes when the
 * package's data does, or an announced change takes effect).
 */
export function shippedDataTimestamp(): number {
  if (shippedDataDate !== undefined) return shippedDataDate;
  const today = new Date().toISOString().slice(0, 10);
  let newest = '';
  for (const providerId of new Set(Object.values(PRICED_PROVIDERS))) {
    for (const model of findProvider({ providerId })?.models ?? []) {
      if (!Array.isArray(model.prices)) continue;
      for (const price of model.prices) {
        const date = price.constraint?.type === 'start_date' ? price.constraint.start_date : '';
        if (date > newest && date <= today) newest = date;
      }
    }
  }
  const parsed = Date.parse(newest);
  return (shippedDataDate = Number.isFinite(parsed) ? Math.floor(parsed / 1000) : 0);
}

/** The model ids the shipped data knows for a gw provider (the model catalog's listing). */
export function defaultModelIds(provider: string): string[] {
  const providerId = PRICED_PROVIDERS[provider];
  const shipped = providerId === undefined ? [] : (findProvider({ providerId })?.models ?? []).map((model) => model.id);
  return [...new Set([...shipped, ...catalogueModelIds(provider), ...mediaModelIds(provider)])];
}

/** The price the package's bundled data gives the model, or undefined when it has none. */
export function defaultPrice(provider: string, model: string): ModelPrice | undefined {
  const providerId = PRICED_PROVIDERS[provider];
  // gw's own rows (catalogue-prices.ts) price what the shipped data does not know.
  const row = cataloguePriceRow(provider, model);
  // Media models (images, speech, transcription) also carry their per-unit prices, for answers without tokens.
  const media = mediaRatesFor(provider, model);
  if (providerId === undefined || calcPrice({ input_tokens: 0, output_tokens: 0 }, model, { providerId }) === null) {
    if (row) return priceFromRates(SOURCE, row.rates, media);
    // A model billed only per unit: its answers report no tokens, so there are none to price.
    return media ? { source: SOURCE, cost: () => 0, media } : undefined;
  }
  // The package applies the model's own rules (tiers above a prompt size, cache reads and writes).
  const cost = (tokens: TokenCounts) => roundUsd(calcPrice(packageUsage(tokens), model, { providerId })?.total_price ?? 0);
  return media ? { source: SOURCE, cost, media } : { source: SOURCE, cost };
}

/** What the bundled data knows about the model beyond its price. */
export function defaultCapabilities(provider: string, model: string): ModelCapabilities | undefined {
  const providerId = PRICED_PROVIDERS[provider];
  if (providerId === undefined) return undefined;
  const info: ModelInfo | undefined = calcPrice({ input_tokens: 0, output_tokens: 0 }, model, { providerId })?.model;
  if (!info) return undefined;
  const capabilities: ModelCapabilities = { name: info.name ?? info.id };
  if (info.context_window !== undefined) capabilities.context_window = info.context_window;
  if (info.deprecated !== undefined) capabilities.deprecated = info.deprecated;
  return capabilities;
}

/** The package counts cache reads and writes as parts of `input_tokens`, like gw's TokenCounts do. */
function packageUsage(tokens: TokenCounts): Record<string, number> {
  return {
    input_tokens: tokens.input,
    cache_read_tokens: tokens.cachedInput,
    cache_write_tokens: tokens.cacheWrite,
    output_tokens: tokens.output,
  };
}
