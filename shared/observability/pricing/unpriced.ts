import { costFromRates } from './cost.js';
import type { ModelRates } from './config-documents.js';
import { mediaCost, type MediaRates } from './media-cost.js';
import type { MediaUnits } from './media-units.js';
import type { TokenCounts } from './usage-tokens.js';

/**
 * What a cost limit (workspace budget, a cost usage limit, a workspace provider's budget) counts for a model no
 * pricing source prices: USD per million tokens at the top of current list prices (flagship reasoning and
 * Opus-class models: $15 in, $75 out), so a model nobody priced is never cheaper to a limit than it may really
 * be. Admission reserves a request's estimate at these rates and settlement charges its real tokens at them; the
 * request log still says `cost: null` (the true price is unknown). Give the model a price (a local pricing file,
 * docs/policies-enforcement.md) to be charged its own, or refuse unpriced models per workspace (docs/enforcement.md).
 */
export const UNPRICED_MODEL_RATES: Readonly<ModelRates> = Object.freeze({ input_per_mtok: 15, output_per_mtok: 75 });

/** The cost a limit counts for tokens of an unpriced model, in USD. */
export function unpricedCost(tokens: Pick<TokenCounts, 'input' | 'output'>): number {
  return costFromRates(UNPRICED_MODEL_RATES, { input: tokens.input, output: tokens.output, cachedInput: 0, cacheWrite: 0, reasoning: 0, total: tokens.input + tokens.output });
}

/**
 * The same rule for media units of a model nobody prices (an image, speech or transcription model without a row):
 * the top of current list prices (a high-quality large gpt-image-1 image ~$0.25; premium voices ~$300 per million
 * characters; transcription ~$0.05 a minute), so an unpriced media model is never free to a cost limit.
 */
export const UNPRICED_MEDIA_RATES: Readonly<MediaRates> = Object.freeze({ per_image: Object.freeze({ default: 0.25 }), per_million_characters: 300, per_audio_minute: 0.05 });

/** The cost a limit counts for media units of an unpriced model, in USD (0 without units). */
export function unpricedMediaCost(units: MediaUnits | undefined): number {
  if (!units) return 0;
  return mediaCost(UNPRICED_MEDIA_RATES, { images: units.images, characters: units.characters, audioSeconds: units.audioSeconds }) ?? 0;
}

const warnedModels = new Set<string>();
const WARNED_MODELS_BOUND = 1_000;

/**
 * Whether this is the first time this process charges this model at the default rates: the warning is written
 * once per model, not per request (a per-request line was 6.6 % of a busy gateway's CPU profile and buried the
 * news). The memory is bounded; past the bound it starts over, so a model may be named again.
 */
export function firstUnpricedCharge(provider: string | undefined, model: string | undefined): boolean {
  const key = `${provider ?? ''}\u0000${model ?? ''}`;
  if (warnedModels.has(key)) return false;
  if (warnedModels.size >= WARNED_MODELS_BOUND) warnedModels.clear();
  warnedModels.add(key);
  return true;
}
