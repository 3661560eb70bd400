import type { ModelRates } from './config-documents.js';
import type { CataloguePriceRow } from './catalogue-price-row.js';
import { HOSTED_CATALOGUE_PRICE_ROWS } from './catalogue-prices-hosted.js';

export type { CataloguePriceRow } from './catalogue-price-row.js';

/*
 * gw's own price rows, for providers the shipped genai-prices data does not cover (issue #47). Each row names the
 * page it was taken from (the provider's own, or a third party's marked `secondary`) and the day the row was written,
 * so a reviewer can check it against the page and a stale one is easy to spot. Only token prices live here; models
 * billed per image, character or minute (OpenAI's media models, Stability AI, ElevenLabs, Deepgram, AssemblyAI) are
 * priced in media-prices.ts. A workspace pricing file overrides any row (model-catalog.md).
 */

const WATSONX_PRICES = 'https://www.ibm.com/docs/en/watsonx/saas?topic=models-supported-foundation';
const JINA_PRICES = 'https://jina.ai/api-dashboard/';
const REPLICATE_PRICES = 'https://replicate.com/pricing';
// Replicate's billing docs price a worked example of Llama 3.1 405B Instruct: 8 input tokens $0.0000760, 43 output
// tokens $0.0004085, i.e. $9.50 per million each way (read 2026-11-29 from a copy of the page).
const REPLICATE_BILLING = 'https://replicate.com/docs/billing';
// Checked 2026-11-29 (issue #47, twice): none of the three per-model price tables could be read, so these rows are
// estimates (the rates the first pass wrote, source unread), each saying what the checks did confirm.
const WATSONX_ESTIMATE =
  'the per-model table (Supported foundation models) was not readable; the billing page (https://dataplatform.cloud.ibm.com/docs/content/wsj/getting-started/wxai-runtime-plans-genai.html) confirms the unit: 1 RU = 1,000 input and output tokens at a per-model multiple of $0.0001';
const JINA_ESTIMATE = "jina.ai's pages read show prepaid token top-ups but no price per token; the $0.05 per million is not on a Jina page that was read";
const REPLICATE_ESTIMATE = "the official Meta models' pages (e.g. https://replicate.com/meta/meta-llama-3.1-405b-instruct) confirm they are priced per token, but no page read gave these models' rates";

/** watsonx.ai bills resource units of 1,000 tokens; its per-RU prices × 1,000 are the per-million rates here. */
const perThousand = (input: number, output = input): ModelRates => ({ input_per_mtok: input * 1000, output_per_mtok: output * 1000 });

export const CATALOGUE_PRICE_ROWS: readonly CataloguePriceRow[] = [
  { provider: 'watsonx', model: 'ibm/granite-3-8b-instruct', rates: perThousand(0.0002), source: WATSONX_PRICES, written: '2026-11-28', estimate: WATSONX_ESTIMATE },
  { provider: 'watsonx', model: 'meta-llama/llama-3-3-70b-instruct', rates: perThousand(0.00071), source: WATSONX_PRICES, written: '2026-11-28', estimate: WATSONX_ESTIMATE },
  { provider: 'watsonx', model: 'ibm/slate-125m-english-rtrvr-v2', rates: perThousand(0.0001, 0), source: WATSONX_PRICES, written: '2026-11-28', estimate: WATSONX_ESTIMATE },
  // Jina AI sells prepaid token packs; the rate is the pack's price per million tokens, the same for every
  // embeddings and reranker model of the API.
  { provider: 'jina-ai', model: 'jina-embeddings-v3', rates: { input_per_mtok: 0.05, output_per_mtok: 0 }, source: JINA_PRICES, written: '2026-11-28', estimate: JINA_ESTIMATE },
  { provider: 'jina-ai', model: 'jina-embeddings-v4', rates: { input_per_mtok: 0.05, output_per_mtok: 0 }, source: JINA_PRICES, written: '2026-11-28', estimate: JINA_ESTIMATE },
  { provider: 'jina-ai', model: 'jina-reranker-v2-base-multilingual', rates: { input_per_mtok: 0.05, output_per_mtok: 0 }, source: JINA_PRICES, written: '2026-11-28', estimate: JINA_ESTIMATE },
  // Replicate's official language models are billed per token (input and output apart).
  { provider: 'replicate', model: 'meta/meta-llama-3-70b-instruct', rates: { input_per_mtok: 0.65, output_per_mtok: 2.75 }, source: REPLICATE_PRICES, written: '2026-11-28', estimate: REPLICATE_ESTIMATE },
  { provider: 'replicate', model: 'meta/meta-llama-3.1-405b-instruct', rates: { input_per_mtok: 9.5, output_per_mtok: 9.5 }, source: REPLICATE_BILLING, written: '2026-11-29' },
  { provider: 'replicate', model: 'meta/meta-llama-3-8b-instruct', rates: { input_per_mtok: 0.05, output_per_mtok: 0.25 }, source: REPLICATE_PRICES, written: '2026-11-28', estimate: REPLICATE_ESTIMATE },
  // GitHub Models, SambaNova, Hyperbolic, Nebius, DashScope, AI21, Databricks, Azure AI Inference (catalogue-prices-hosted.ts).
  ...HOSTED_CATALOGUE_PRICE_ROWS,
];

/**
 * Models of providers that bill per image, character or minute: listed by /v1/models (so clients can discover them)
 * without a token price; their per-unit prices, where known, are in media-prices.ts. Stability's list is the adapter's own model table (a test keeps the two equal).
 */
export const CATALOGUE_LISTED_MODELS: Readonly<Record<string, readonly string[]>> = {
  'stability-ai': ['stable-image-core', 'stable-image-ultra', 'sd3.5-large', 'sd3.5-large-turbo', 'sd3.5-medium', 'sd3.5-flash'],
  elevenlabs: ['eleven_multilingual_v2', 'eleven_flash_v2_5', 'eleven_turbo_v2_5', 'eleven_v3'],
  deepgram: ['nova-3', 'nova-2'],
  assemblyai: ['universal-2', 'universal-3-pro'],
};

/** The row for one model of one provider (exact id, then ignoring case). */
export function cataloguePriceRow(provider: string, model: string): CataloguePriceRow | undefined {
  const rows = CATALOGUE_PRICE_ROWS.filter((row) => row.provider === provider);
  return rows.find((row) => row.model === model) ?? rows.find((row) => row.model.toLowerCase() === model.toLowerCase());
}

export function catalogueModelIds(provider: string): string[] {
  return [...CATALOGUE_PRICE_ROWS.filter((row) => row.provider === provider).map((row) => row.model), ...(CATALOGUE_LISTED_MODELS[provider] ?? [])];
}

/** The providers with rows or listed models here (listed by /v1/models like the shipped data's). */
export const CATALOGUE_PRICED_PROVIDERS: readonly string[] = [...new Set([...CATALOGUE_PRICE_ROWS.map((row) => row.provider), ...Object.keys(CATALOGUE_LISTED_MODELS)])];
