import type { MediaRates } from './media-cost.js';

export { mediaCost, type MediaRates } from './media-cost.js';

/**
 * Prices of media models, by the unit each provider bills (per image, per character, per minute of audio), for
 * the models gw serves through /v1/images/*, /v1/audio/speech and /v1/audio/transcriptions. Each row names the page
 * it was read from and the day it was written, as catalogue-prices.ts does; where the provider's own pricing page
 * could not be read, the row says which page it came from instead, and a model no page gave a price for is left
 * unpriced (docs/model-catalog.md lists them). A workspace pricing file overrides any row.
 */

export interface MediaPriceRow {
  provider: string;
  model: string;
  rates: MediaRates;
  source: string;
  /** YYYY-MM-DD: the day the row was written from that source. */
  written: string;
}

const WRITTEN = '2026-11-29';
const OPENAI_MODEL_PAGE = (model: string) => `https://developers.openai.com/api/docs/models/${model}`;
// Stability's own page (platform.stability.ai/pricing) was not readable here; its credit table as quoted (1 credit =
// $0.01) by this page, June 2026:
const STABILITY_PRICES = 'https://developer.puter.com/tutorials/stability-ai-api-pricing/ (secondary: platform.stability.ai/pricing not found)';
// elevenlabs.io/pricing/api not readable here; the per-1K-character API rates as quoted by this page, June 2026 (another
// page quotes $0.06/$0.12 as Business-tier prices: re-check on the official page):
const ELEVENLABS_PRICES = 'https://developer.puter.com/tutorials/elevenlabs-api-pricing/ (secondary: elevenlabs.io/pricing/api not found)';
// deepgram.com/pricing not readable here; pay-as-you-go pre-recorded rate as quoted by these pages (one quotes $0.00435
// for Nova-3 monolingual):
const DEEPGRAM_PRICES = 'https://theneuralbase.com/deepgram/learn/beginner/per-minute-pricing-0-0043-for-nova-2/ (secondary: deepgram.com/pricing not found)';
// assemblyai.com/pricing not readable here (its billing docs confirm per-second pro-rating of an hourly rate); the
// Universal-3 Pro pre-recorded rate as quoted by this page, May 2026. No page gave Universal-2's rate: unpriced.
const ASSEMBLYAI_PRICES = 'https://hivebook.wiki/wiki/assemblyai-api-may-2026-speech-to-text-rest-websocket-universal-3-pro-2026-02-03-0-21-hr-pre-0-45-hr-stream-6-langs-promptable-universal-streaming-v3-300ms-native-turn-detection-voice-agent-api-0-075-min-python-sdk-0-64-2 (secondary: assemblyai.com/pricing not found)';

// The DALL·E model pages now say "shut down" and show no price; the per-image table OpenAI published (openai.com/pricing)
// as copied, with its date, by this file:
const DALL_E_PRICES = 'https://github.com/kevinhermawan/Canvas/blob/main/model-info.json (openai.com/pricing as of 2023-12-25; secondary)';

const perImage = (usd: number) => ({ per_image: { default: usd } });

export const MEDIA_PRICE_ROWS: readonly MediaPriceRow[] = [
  // DALL·E 3 is shut down on OpenAI's API (its model page says so) but still served by Azure OpenAI deployments.
  {
    provider: 'openai',
    model: 'dall-e-3',
    rates: { per_image: { default: 0.04, 'standard 1024x1024': 0.04, 'standard 1024x1792': 0.08, 'standard 1792x1024': 0.08, 'hd 1024x1024': 0.08, 'hd 1024x1792': 0.12, 'hd 1792x1024': 0.12, '1024x1024': 0.04, '1024x1792': 0.08, '1792x1024': 0.08, hd: 0.08 } },
    source: DALL_E_PRICES,
    written: WRITTEN,
  },
  { provider: 'openai', model: 'dall-e-2', rates: { per_image: { default: 0.02, '1024x1024': 0.02, '512x512': 0.018, '256x256': 0.016 } }, source: DALL_E_PRICES, written: WRITTEN },
  // gpt-image-1 answers with token usage, priced from the shipped data (no per-image row: no page was read for one).
  { provider: 'openai', model: 'tts-1', rates: { per_million_characters: 15 }, source: OPENAI_MODEL_PAGE('tts-1'), written: WRITTEN },
  { provider: 'openai', model: 'tts-1-hd', rates: { per_million_characters: 30 }, source: OPENAI_MODEL_PAGE('tts-1'), written: WRITTEN },
  { provider: 'openai', model: 'whisper-1', rates: { per_audio_minute: 0.006 }, source: OPENAI_MODEL_PAGE('whisper-1'), written: WRITTEN },
  // gpt-4o-transcribe and gpt-4o-mini-transcribe bill tokens (audio in, text out), which their json answers report and
  // the shipped data prices; their model pages give no per-minute price, so a text/srt/vtt answer stays unpriced.
  { provider: 'stability-ai', model: 'stable-image-ultra', rates: perImage(0.08), source: STABILITY_PRICES, written: WRITTEN },
  { provider: 'stability-ai', model: 'sd3.5-large', rates: perImage(0.065), source: STABILITY_PRICES, written: WRITTEN },
  { provider: 'stability-ai', model: 'sd3.5-large-turbo', rates: perImage(0.04), source: STABILITY_PRICES, written: WRITTEN },
  { provider: 'stability-ai', model: 'sd3.5-medium', rates: perImage(0.035), source: STABILITY_PRICES, written: WRITTEN },
  { provider: 'stability-ai', model: 'stable-image-core', rates: perImage(0.03), source: STABILITY_PRICES, written: WRITTEN },
  { provider: 'elevenlabs', model: 'eleven_multilingual_v2', rates: { per_million_characters: 100 }, source: ELEVENLABS_PRICES, written: WRITTEN },
  { provider: 'elevenlabs', model: 'eleven_v3', rates: { per_million_characters: 100 }, source: ELEVENLABS_PRICES, written: WRITTEN },
  { provider: 'elevenlabs', model: 'eleven_flash_v2_5', rates: { per_million_characters: 50 }, source: ELEVENLABS_PRICES, written: WRITTEN },
  { provider: 'elevenlabs', model: 'eleven_turbo_v2_5', rates: { per_million_characters: 50 }, source: ELEVENLABS_PRICES, written: WRITTEN },
  { provider: 'deepgram', model: 'nova-3', rates: { per_audio_minute: 0.0043 }, source: DEEPGRAM_PRICES, written: WRITTEN },
  { provider: 'deepgram', model: 'nova-2', rates: { per_audio_minute: 0.0043 }, source: DEEPGRAM_PRICES, written: WRITTEN },
  { provider: 'assemblyai', model: 'universal-3-pro', rates: { per_audio_minute: 0.0035 }, source: ASSEMBLYAI_PRICES, written: WRITTEN },
];

/** Azure OpenAI deployments of OpenAI's media models bill as OpenAI's do (Azure's page lists the same unit prices). */
const SAME_PRICES_AS: Readonly<Record<string, string>> = { 'azure-openai': 'openai' };

/** The media rates of one model of one provider (exact id, then ignoring case). */
export function mediaRatesFor(provider: string, model: string): MediaRates | undefined {
  const owner = SAME_PRICES_AS[provider] ?? provider;
  const rows = MEDIA_PRICE_ROWS.filter((row) => row.provider === owner);
  return (rows.find((row) => row.model === model) ?? rows.find((row) => row.model.toLowerCase() === model.toLowerCase()))?.rates;
}

/** The media models of a provider with a price (listed by the model catalog). */
export function mediaModelIds(provider: string): string[] {
  return MEDIA_PRICE_ROWS.filter((row) => row.provider === provider).map((row) => row.model);
}
