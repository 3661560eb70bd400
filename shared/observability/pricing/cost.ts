import type { ModelRates } from './config-documents.js';
import type { MediaRates } from './media-cost.js';
import type { TokenCounts } from './usage-tokens.js';

/** A model's price, wherever it came from: the cost of one response's tokens, in USD. */
export interface ModelPrice {
  /** Which source priced it: `proxy`, `log-store`, `local` or `default`. */
  source: string;
  cost(tokens: TokenCounts): number;
  /** The model's per-image, per-character or per-minute prices, for usage without tokens (media-prices.ts). */
  media?: MediaRates;
}

const MILLION = 1_000_000;

/**
 * The cost of a response under per-million-token rates. Each token is priced once: cached and cache-write
 * tokens at their own rates (else the input rate), the rest of the prompt at the input rate; reasoning tokens
 * at theirs (else the output rate), the rest of the completion at the output rate.
 */
export function costFromRates(rates: ModelRates, tokens: TokenCounts): number {
  const plainInput = tokens.input - tokens.cachedInput - tokens.cacheWrite;
  const plainOutput = tokens.output - tokens.reasoning;
  const total =
    plainInput * rates.input_per_mtok +
    tokens.cachedInput * (rates.cached_input_per_mtok ?? rates.input_per_mtok) +
    tokens.cacheWrite * (rates.cache_write_per_mtok ?? rates.input_per_mtok) +
    plainOutput * rates.output_per_mtok +
    tokens.reasoning * (rates.reasoning_per_mtok ?? rates.output_per_mtok);
  return roundUsd(total / MILLION);
}

/** Costs are kept to 1e-10 USD, so sums of many small costs do not collect floating-point noise. */
export function roundUsd(value: number): number {
  return Math.round(value * 1e10) / 1e10;
}

export function priceFromRates(source: string, rates: ModelRates, fallbackMedia?: MediaRates): ModelPrice {
  const { per_image, per_million_characters, per_audio_minute } = rates;
  const own = per_image !== undefined || per_million_characters !== undefined || per_audio_minute !== undefined;
  const media = own ? { per_image, per_million_characters, per_audio_minute } : fallbackMedia;
  return media ? { source, cost: (tokens) => costFromRates(rates, tokens), media } : { source, cost: (tokens) => costFromRates(rates, tokens) };
}
