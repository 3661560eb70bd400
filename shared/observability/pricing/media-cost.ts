import type { MediaUnits } from './media-units.js';

/** A media model's per-unit prices (the rows are in media-prices.ts, loaded with the price data, not at cold start). */
export interface MediaRates {
  /**
   * USD per image, by what the request asked for: `"<quality> <size>"`, `"<size>"` or `"<quality>"`, tried in that
   * order, then `"default"` (the price of a request that names neither, or names one the row does not list).
   */
  per_image?: Readonly<Record<string, number>>;
  /** USD per million characters of speech input. */
  per_million_characters?: number;
  /** USD per minute of audio, pro-rated to the second. */
  per_audio_minute?: number;
}

/**
 * The USD cost of media units at a model's rates; null when a unit the usage has is one the rates do not price
 * (an unknown cost, never 0).
 */
export function mediaCost(rates: MediaRates, units: MediaUnits): number | null {
  let total = 0;
  if (units.images !== undefined && units.images > 0) {
    const price = imagePrice(rates, units);
    if (price === undefined) return null;
    total += units.images * price;
  }
  if (units.characters !== undefined && units.characters > 0) {
    if (rates.per_million_characters === undefined) return null;
    total += (units.characters * rates.per_million_characters) / 1_000_000;
  }
  if (units.audioSeconds !== undefined && units.audioSeconds > 0) {
    if (rates.per_audio_minute === undefined) return null;
    total += (units.audioSeconds * rates.per_audio_minute) / 60;
  }
  return total;
}

function imagePrice(rates: MediaRates, units: MediaUnits): number | undefined {
  const table = rates.per_image;
  if (!table) return undefined;
  const quality = units.imageQuality?.toLowerCase();
  const size = units.imageSize?.toLowerCase();
  const keys = [quality && size ? `${quality} ${size}` : undefined, size, quality, 'default'];
  for (const key of keys) if (key !== undefined && Object.hasOwn(table, key)) return table[key];
  return undefined;
}
