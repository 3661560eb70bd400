import type { PassthroughEndpoint } from '../passthrough-types.js';
import type { Endpoint } from '../types.js';

/**
 * Every provider that speaks the OpenAI wire format is one row here, not a folder of copies.
 * `baseUrl` is undefined for providers that only exist where the caller runs them (x-gw-custom-host needed).
 */
export interface OpenAICompatibleProvider {
  slug: string;
  aliases?: string[];
  baseUrl?: string;
  endpoints: Endpoint[];
  /** Whether the provider accepts `stream_options.include_usage`; others report usage on their own or not at all. */
  acceptsStreamOptions: boolean;
  /** The OpenAI endpoints gw relays to it untranslated (images, audio, moderations, rerank; docs/passthrough.md). */
  passthrough?: PassthroughEndpoint[];
  /** A per-account address instead of one host (`baseUrl` is then unused): see account-host.ts. */
  account?: AccountAddress;
  /** The header that carries the token when it is not `Authorization: Bearer` (Azure AI's `api-key`). */
  authHeader?: string;
  /** A fixed query every call carries (Azure AI's `api-version`). */
  query?: Record<string, string>;
  /** The provider's stream puts usage inside its last choice (Moonshot); gw moves it to the chunk's top level. */
  usageInChoice?: boolean;
  /** The usage field where the provider reports prompt-cache hits, when not OpenAI's (usage-fields.ts). */
  cachedTokensField?: 'cached_tokens' | 'prompt_cache_hit_tokens';
}

/**
 * A provider whose API lives under a per-account address (Cloudflare's account id in the path, a Databricks
 * workspace host, a Snowflake account host, an Azure AI resource): the caller names the account in an
 * `x-gw-<provider>-…` header, checked against the provider's own naming rule when the headers are read, so the
 * URL gw builds always stays on the provider's own domain (a stored credential may go there, never elsewhere).
 */
export interface AccountAddress {
  /** The request header (lower case) that names the account. */
  header: string;
  /** What a valid value looks like; anything else is a 400 naming the header. */
  pattern: RegExp;
  /** Said in the 400 when the value does not match. */
  describe: string;
  /** The base URL for one account. */
  baseUrl(account: string): string;
}


const ALL: Endpoint[] = ['chat', 'completions', 'embeddings'];
const OPENAI_MEDIA: PassthroughEndpoint[] = ['images/generations', 'images/edits', 'audio/speech', 'audio/transcriptions', 'audio/translations', 'moderations'];
const AUDIO_IN: PassthroughEndpoint[] = ['audio/transcriptions', 'audio/translations'];

export const OPENAI_COMPATIBLE_PROVIDERS: readonly OpenAICompatibleProvider[] = [
  { slug: 'openai', baseUrl: 'https://api.openai.com/v1', endpoints: ALL, acceptsStreamOptions: true, passthrough: OPENAI_MEDIA },
  { slug: 'groq', baseUrl: 'https://api.groq.com/openai/v1', endpoints: ['chat'], acceptsStreamOptions: true, passthrough: ['audio/speech', ...AUDIO_IN] },
  { slug: 'mistral-ai', aliases: ['mistral'], baseUrl: 'https://api.mistral.ai/v1', endpoints: ['chat', 'embeddings'], acceptsStreamOptions: false, passthrough: ['moderations'] },
  { slug: 'together-ai', aliases: ['together'], baseUrl: 'https://api.together.xyz/v1', endpoints: ALL, acceptsStreamOptions: true, passthrough: ['images/generations', 'audio/speech', ...AUDIO_IN, 'rerank'] },
  { slug: 'deepseek', baseUrl: 'https://api.deepseek.com/v1', endpoints: ['chat', 'completions'], acceptsStreamOptions: true, cachedTokensField: 'prompt_cache_hit_tokens' },
  { slug: 'fireworks-ai', aliases: ['fireworks'], baseUrl: 'https://api.fireworks.ai/inference/v1', endpoints: ALL, acceptsStreamOptions: true },
  { slug: 'openrouter', baseUrl: 'https://openrouter.ai/api/v1', endpoints: ['chat', 'completions'], acceptsStreamOptions: true },
  { slug: 'perplexity-ai', aliases: ['perplexity'], baseUrl: 'https://api.perplexity.ai', endpoints: ['chat'], acceptsStreamOptions: false },
  { slug: 'x-ai', aliases: ['xai'], baseUrl: 'https://api.x.ai/v1', endpoints: ['chat', 'completions'], acceptsStreamOptions: true, passthrough: ['images/generations'] },
  { slug: 'cerebras', baseUrl: 'https://api.cerebras.ai/v1', endpoints: ['chat', 'completions'], acceptsStreamOptions: true },
  { slug: 'deepinfra', baseUrl: 'https://api.deepinfra.com/v1/openai', endpoints: ALL, acceptsStreamOptions: true, passthrough: ['images/generations', 'audio/speech', ...AUDIO_IN] },
  { slug: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', endpoints: ALL, acceptsStreamOptions: true },
  { slug: 'vllm', endpoints: ALL, acceptsStreamOptions: true, passthrough: [...AUDIO_IN, 'rerank'] },
  { slug: 'lm-studio', aliases: ['lmstudio'], baseUrl: 'http://127.0.0.1:1234/v1', endpoints: ALL, acceptsStreamOptions: true },
  // Issue #47: hosted OpenAI-compatible APIs with one public host each (base URLs from each provider's API reference).
  { slug: 'huggingface', aliases: ['hugging-face', 'hf'], baseUrl: 'https://router.huggingface.co/v1', endpoints: ['chat'], acceptsStreamOptions: true },
  { slug: 'github-models', aliases: ['github'], baseUrl: 'https://models.github.ai/inference', endpoints: ['chat', 'embeddings'], acceptsStreamOptions: true },
  { slug: 'nvidia-nim', aliases: ['nvidia', 'nim'], baseUrl: 'https://integrate.api.nvidia.com/v1', endpoints: ALL, acceptsStreamOptions: true },
  { slug: 'sambanova', baseUrl: 'https://api.sambanova.ai/v1', endpoints: ['chat', 'embeddings'], acceptsStreamOptions: true, passthrough: AUDIO_IN },
  { slug: 'nebius', aliases: ['nebius-ai-studio'], baseUrl: 'https://api.tokenfactory.nebius.com/v1', endpoints: ALL, acceptsStreamOptions: true, passthrough: ['images/generations'] },
  { slug: 'novita-ai', aliases: ['novita'], baseUrl: 'https://api.novita.ai/v3/openai', endpoints: ALL, acceptsStreamOptions: true },
  { slug: 'hyperbolic', baseUrl: 'https://api.hyperbolic.xyz/v1', endpoints: ['chat', 'completions'], acceptsStreamOptions: true },
  { slug: 'lambda', aliases: ['lambda-ai'], baseUrl: 'https://api.lambda.ai/v1', endpoints: ['chat', 'completions'], acceptsStreamOptions: true },
  // Moonshot, Zhipu, MiniMax and AI21 report usage in their last chunk on their own; stream_options is not theirs.
  { slug: 'moonshot', aliases: ['moonshot-ai', 'kimi'], baseUrl: 'https://api.moonshot.ai/v1', endpoints: ['chat'], acceptsStreamOptions: false, usageInChoice: true, cachedTokensField: 'cached_tokens' },
  // DashScope (Qwen) has an international (Singapore) and a mainland-China host; one slug each.
  { slug: 'dashscope', aliases: ['alibaba', 'qwen'], baseUrl: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1', endpoints: ['chat', 'embeddings'], acceptsStreamOptions: true },
  { slug: 'dashscope-cn', aliases: ['alibaba-cn'], baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1', endpoints: ['chat', 'embeddings'], acceptsStreamOptions: true },
  { slug: 'zhipu', aliases: ['zhipu-ai', 'glm', 'bigmodel'], baseUrl: 'https://open.bigmodel.cn/api/paas/v4', endpoints: ['chat', 'embeddings'], acceptsStreamOptions: false },
  { slug: 'minimax', baseUrl: 'https://api.minimax.io/v1', endpoints: ['chat'], acceptsStreamOptions: false },
  // Per-account addresses (issue #47): the account comes from an x-gw-<provider>-… header, checked when headers are read.
  {
    slug: 'cloudflare-workers-ai',
    aliases: ['cloudflare', 'workers-ai'],
    endpoints: ['chat', 'embeddings'],
    acceptsStreamOptions: false,
    account: { header: 'x-gw-cloudflare-account-id', pattern: /^[a-f0-9]{32}$/, describe: 'a Cloudflare account id (32 hex digits)', baseUrl: (id) => `https://api.cloudflare.com/client/v4/accounts/${id}/ai/v1` },
  },
  {
    slug: 'databricks',
    endpoints: ALL,
    acceptsStreamOptions: false,
    account: {
      header: 'x-gw-databricks-workspace',
      pattern: /^[a-z0-9][a-z0-9-]*(\.[a-z0-9-]+)*\.(cloud\.databricks\.com|gcp\.databricks\.com|azuredatabricks\.net)$/,
      describe: 'a Databricks workspace host (e.g. dbc-1234abcd-5678.cloud.databricks.com, adb-123.4.azuredatabricks.net)',
      baseUrl: (host) => `https://${host}/serving-endpoints`,
    },
  },
  {
    slug: 'snowflake-cortex',
    aliases: ['snowflake'],
    endpoints: ['chat'],
    acceptsStreamOptions: false,
    account: {
      header: 'x-gw-snowflake-account',
      pattern: /^[a-z0-9][a-z0-9_-]*(\.[a-z0-9-]+){0,3}$/,
      describe: 'a Snowflake account identifier (e.g. myorg-myaccount)',
      baseUrl: (account) => `https://${account.replace(/_/g, '-')}.snowflakecomputing.com/api/v2/cortex/v1`,
    },
  },
  {
    slug: 'azure-ai-inference',
    aliases: ['azure-ai', 'azure-ai-foundry'],
    endpoints: ['chat', 'embeddings'],
    acceptsStreamOptions: true,
    authHeader: 'api-key',
    query: { 'api-version': '2024-05-01-preview' },
    account: {
      header: 'x-gw-azure-ai-resource',
      pattern: /^[a-z0-9][a-z0-9-]{0,62}[a-z0-9]$/,
      describe: 'an Azure AI Foundry resource name (its host is <name>.services.ai.azure.com)',
      baseUrl: (resource) => `https://${resource}.services.ai.azure.com/models`,
    },
  },
  { slug: 'ai21', aliases: ['ai21-labs'], baseUrl: 'https://api.ai21.com/studio/v1', endpoints: ['chat'], acceptsStreamOptions: false },
];
