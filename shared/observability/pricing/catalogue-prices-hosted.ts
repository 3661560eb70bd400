import type { ModelRates } from './config-documents.js';
import type { CataloguePriceRow } from './catalogue-price-row.js';

/**
 * Rows for the hosted open-model providers of issue #47 that the shipped genai-prices data does not know. Every
 * rate was read on the page the row names, on the day it names. Where no page of the provider's own could be read,
 * the row names the third party's page that states the provider's rate and says so in `secondary` (with the date
 * that page gives); the providers with no single rate, or none read, are in CATALOGUE_UNPRICED_PROVIDERS with why.
 */
const WRITTEN = '2026-11-29';

/** USD per million tokens, input and output (and cached input where the page prices it). */
const rates = (input: number, output: number, cachedInput?: number): ModelRates =>
  cachedInput === undefined ? { input_per_mtok: input, output_per_mtok: output } : { input_per_mtok: input, output_per_mtok: output, cached_input_per_mtok: cachedInput };

// GitHub Models' own billing page: paid usage is token units × $0.00001, and its table gives each model's price per
// million token units (input, cached input, output). Free, rate-limited usage is not billed; these rows price the
// paid usage. Model ids are the ones models.github.ai/inference expects (publisher/model).
const GITHUB_MODELS = 'https://docs.github.com/fr/billing/managing-billing-for-your-products/about-billing-for-github-models';

// SambaNova's rate card (cloud.sambanova.ai/pricing) was not readable; two trackers state it.
const SAMBANOVA_TRACKER = 'https://usagepricing.com/blueprint/sambanova';
const SAMBANOVA_TRACKER_NOTE = "usagepricing.com's SambaNova page, which gives the rates as of June 2026 from cloud.sambanova.ai/pricing";
const SAMBANOVA_LAVA = 'https://lava-a04d7b3f.mintlify.dev/docs/gateway/providers/sambanova';
const SAMBANOVA_LAVA_NOTE = "Lava's gateway docs page for SambaNova (its per-model table; the page gives no date)";

// Hyperbolic's own docs give only ranges (docs.hyperbolic.ai/inference/performance-limits: 3B–8B from $0.10, 32B–72B
// $0.20–$0.40 per million), which these rows fall in; the per-model rates are from a gateway's docs page.
const HYPERBOLIC_LAVA = 'https://lava-a04d7b3f.mintlify.dev/docs/gateway/providers/hyperbolic';
const HYPERBOLIC_NOTE = "Lava's gateway docs page for Hyperbolic (no date given); within the ranges of docs.hyperbolic.ai/inference/performance-limits";

// Alibaba Cloud Model Studio (international, dashscope-intl): the flagship models' lowest-tier prices (input priced
// by prompt length; a longer prompt costs more, so these are floors). The page says it was updated 2025-04-03.
const DASHSCOPE_INTL = 'https://alibabacloud.com/help/en/model-studio/billing-for-model-studio';

// Mainland China (dashscope.aliyuncs.com) bills in CNY per 1,000 tokens; gw prices in USD.
const DASHSCOPE_CN = 'https://help.aliyun.com/en/document_detail/3023262.html';
const CNY_PER_USD = 7.1;
const cnyPerThousand = (input: number, output: number): ModelRates => rates((input * 1000) / CNY_PER_USD, (output * 1000) / CNY_PER_USD);
const DASHSCOPE_CN_ESTIMATE = `the page gives CNY per 1,000 tokens for prompts up to 128k (qwen-plus 0.0008 in / 0.002 out, qwen-flash 0.0002 / 0.0015); converted at ${CNY_PER_USD} CNY per USD, a rate no page gave`;

// AI21's pricing page (ai21.com/pricing) was not readable; a key checker's page states Jamba Large 1.7's rates.
// `jamba-large` is the alias AI21's API reference calls without a version.
const AI21_TESTKEY = 'https://www.testkey.ai/hi/model-key-routes/jamba-large-1-7-pricing-context';
const AI21_NOTE = "testkey.ai's Jamba Large 1.7 page (input $2, output $8 per million; no date given)";
// Jamba Mini: API Evangelist's plan file transcribes ai21.com/pricing verbatim ($0.2 / 1M input, $0.4 / 1M output).
const AI21_PLANS = 'https://raw.githubusercontent.com/api-evangelist/ai21-labs/refs/heads/main/plans/ai21-labs-plans-pricing.yml';
const AI21_PLANS_NOTE = "API Evangelist's transcription of https://www.ai21.com/pricing/, which it says it read on 2026-10-07";

// Databricks bills Foundation Model APIs in DBUs; no page read gave a model's DBUs per million tokens, so the USD rate
// is an independent guide's, which depends on the list DBU price (a contract price changes it).
const DATABRICKS_GUIDE = 'https://www.databrickspricing.com/ai-pricing';
const DATABRICKS_NOTE = 'databrickspricing.com, an independent guide (not Databricks), updated April 2026; the 8B rate also on cloudprice.net';
const DATABRICKS_ESTIMATE = 'Databricks bills DBUs; no page read gave the DBUs per million tokens and the DBU price together, so this is the guide’s USD figure at list price';

// Nebius Token Factory's prices page was not readable; Mastra's model-router docs list its models with rates (from
// models.dev). The base flavour is the plain id Nebius's API takes (docs.aispendops.com/providers/nebius calls
// `meta-llama/Llama-3.3-70B-Instruct`), the fast flavour the same id with `-fast`.
const NEBIUS_MASTRA_V0 = 'https://mastra.ai/models/v0/providers/nebius';
const NEBIUS_MASTRA = 'https://mastra.ai/models/providers/nebius';
const NEBIUS_NOTE = "Mastra's model-router page for Nebius Token Factory (rates from models.dev; no date given)";

// Azure AI Foundry's serverless (pay-as-you-go) Llama, as a price tracker lists it.
const AZURE_AI_TRACKER = 'https://cloudprice.net/models/friendliai/meta-llama-3.1-8b-instruct';
const AZURE_AI_NOTE = "cloudprice.net's pricing-by-provider table for Llama 3.1 8B Instruct (Azure AI Foundry row; no date given)";

export const HOSTED_CATALOGUE_PRICE_ROWS: readonly CataloguePriceRow[] = [
  { provider: 'github-models', model: 'openai/gpt-4o', rates: rates(2.5, 10, 1.25), source: GITHUB_MODELS, written: WRITTEN },
  { provider: 'github-models', model: 'openai/gpt-4o-mini', rates: rates(0.15, 0.6, 0.08), source: GITHUB_MODELS, written: WRITTEN },
  { provider: 'github-models', model: 'openai/gpt-4.1', rates: rates(2, 8, 0.5), source: GITHUB_MODELS, written: WRITTEN },
  { provider: 'github-models', model: 'openai/gpt-4.1-mini', rates: rates(0.4, 1.6, 0.1), source: GITHUB_MODELS, written: WRITTEN },

  { provider: 'sambanova', model: 'Meta-Llama-3.3-70B-Instruct', rates: rates(0.6, 1.2), source: SAMBANOVA_TRACKER, written: WRITTEN, secondary: SAMBANOVA_TRACKER_NOTE },
  { provider: 'sambanova', model: 'gpt-oss-120b', rates: rates(0.22, 0.59), source: SAMBANOVA_TRACKER, written: WRITTEN, secondary: SAMBANOVA_TRACKER_NOTE },
  { provider: 'sambanova', model: 'DeepSeek-V3.1', rates: rates(3, 4.5), source: SAMBANOVA_TRACKER, written: WRITTEN, secondary: SAMBANOVA_TRACKER_NOTE },
  { provider: 'sambanova', model: 'Meta-Llama-3.1-8B-Instruct', rates: rates(0.1, 0.2), source: SAMBANOVA_LAVA, written: WRITTEN, secondary: SAMBANOVA_LAVA_NOTE },

  { provider: 'hyperbolic', model: 'meta-llama/Llama-3.3-70B-Instruct', rates: rates(0.4, 0.4), source: HYPERBOLIC_LAVA, written: WRITTEN, secondary: HYPERBOLIC_NOTE },
  { provider: 'hyperbolic', model: 'meta-llama/Meta-Llama-3.1-8B-Instruct', rates: rates(0.1, 0.1), source: HYPERBOLIC_LAVA, written: WRITTEN, secondary: HYPERBOLIC_NOTE },
  { provider: 'hyperbolic', model: 'deepseek-ai/DeepSeek-V3', rates: rates(0.25, 0.25), source: HYPERBOLIC_LAVA, written: WRITTEN, secondary: HYPERBOLIC_NOTE },
  { provider: 'hyperbolic', model: 'Qwen/Qwen2.5-72B-Instruct', rates: rates(0.4, 0.4), source: HYPERBOLIC_LAVA, written: WRITTEN, secondary: HYPERBOLIC_NOTE },

  { provider: 'dashscope', model: 'qwen-max', rates: rates(1.6, 6.4), source: DASHSCOPE_INTL, written: WRITTEN },
  { provider: 'dashscope', model: 'qwen-plus', rates: rates(0.4, 1.2), source: DASHSCOPE_INTL, written: WRITTEN },
  { provider: 'dashscope', model: 'qwen-turbo', rates: rates(0.05, 0.2), source: DASHSCOPE_INTL, written: WRITTEN },
  { provider: 'dashscope-cn', model: 'qwen-plus', rates: cnyPerThousand(0.0008, 0.002), source: DASHSCOPE_CN, written: WRITTEN, estimate: DASHSCOPE_CN_ESTIMATE },
  { provider: 'dashscope-cn', model: 'qwen-flash', rates: cnyPerThousand(0.0002, 0.0015), source: DASHSCOPE_CN, written: WRITTEN, estimate: DASHSCOPE_CN_ESTIMATE },

  { provider: 'ai21', model: 'jamba-large', rates: rates(2, 8), source: AI21_TESTKEY, written: WRITTEN, secondary: AI21_NOTE },
  { provider: 'ai21', model: 'jamba-large-1.7', rates: rates(2, 8), source: AI21_TESTKEY, written: WRITTEN, secondary: AI21_NOTE },
  { provider: 'ai21', model: 'jamba-mini', rates: rates(0.2, 0.4), source: AI21_PLANS, written: WRITTEN, secondary: AI21_PLANS_NOTE },
  { provider: 'ai21', model: 'jamba-mini-1.7', rates: rates(0.2, 0.4), source: AI21_PLANS, written: WRITTEN, secondary: AI21_PLANS_NOTE },

  { provider: 'databricks', model: 'databricks-meta-llama-3-3-70b-instruct', rates: rates(0.5, 1.5), source: DATABRICKS_GUIDE, written: WRITTEN, secondary: DATABRICKS_NOTE, estimate: DATABRICKS_ESTIMATE },
  { provider: 'databricks', model: 'databricks-meta-llama-3-1-8b-instruct', rates: rates(0.15, 0.45), source: DATABRICKS_GUIDE, written: WRITTEN, secondary: DATABRICKS_NOTE, estimate: DATABRICKS_ESTIMATE },
  { provider: 'databricks', model: 'databricks-bge-large-en', rates: rates(0.1, 0), source: DATABRICKS_GUIDE, written: WRITTEN, secondary: DATABRICKS_NOTE, estimate: DATABRICKS_ESTIMATE },

  { provider: 'nebius', model: 'meta-llama/Llama-3.3-70B-Instruct', rates: rates(0.13, 0.4), source: NEBIUS_MASTRA_V0, written: WRITTEN, secondary: NEBIUS_NOTE },
  { provider: 'nebius', model: 'meta-llama/Llama-3.3-70B-Instruct-fast', rates: rates(0.25, 0.75), source: NEBIUS_MASTRA_V0, written: WRITTEN, secondary: NEBIUS_NOTE },
  { provider: 'nebius', model: 'BAAI/bge-en-icl', rates: rates(0.01, 0), source: NEBIUS_MASTRA, written: WRITTEN, secondary: NEBIUS_NOTE },

  { provider: 'azure-ai-inference', model: 'Meta-Llama-3.1-8B-Instruct', rates: rates(0.3, 0.61), source: AZURE_AI_TRACKER, written: WRITTEN, secondary: AZURE_AI_NOTE },
];

/**
 * #47 providers gw ships no price for, and why: a workspace pricing file (docs/model-catalog.md) prices their models.
 * Their calls are logged with `cost: null` until one does (never at a made-up rate).
 */
export const CATALOGUE_UNPRICED_PROVIDERS: Readonly<Record<string, string>> = {
  huggingface:
    'Inference Providers routes each call to a backend (Cerebras, Groq, Nebius, SambaNova, …) and passes on that backend’s price: there is no single rate per model',
  'nvidia-nim':
    'the hosted endpoints (integrate.api.nvidia.com) run on free trial credits, and production NIM is self-hosted under an NVIDIA AI Enterprise licence: no per-token price is published',
  lambda: 'no page read gave a per-model token price (an API directory, apis.io/apis/lambda-labs/inference-api, reports that Lambda announced on 2026-05-29 that its Inference API is winding down)',
  'snowflake-cortex':
    'Snowflake bills AI Credits ($2.00 each with global routing, $2.20 regional: docs.snowflake.com/en/user-guide/snowflake-cortex/pricing) but the credits per million tokens of each model (its Consumption Table) could not be read',
};
