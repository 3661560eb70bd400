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
}

const ALL: Endpoint[] = ['chat', 'completions', 'embeddings'];
const OPENAI_MEDIA: PassthroughEndpoint[] = ['images/generations', 'images/edits', 'audio/speech', 'audio/transcriptions', 'audio/translations', 'moderations'];
const AUDIO_IN: PassthroughEndpoint[] = ['audio/transcriptions', 'audio/translations'];

export const OPENAI_COMPATIBLE_PROVIDERS: readonly OpenAICompatibleProvider[] = [
  { slug: 'openai', baseUrl: 'https://api.openai.com/v1', endpoints: ALL, acceptsStreamOptions: true, passthrough: OPENAI_MEDIA },
  { slug: 'groq', baseUrl: 'https://api.groq.com/openai/v1', endpoints: ['chat'], acceptsStreamOptions: true, passthrough: ['audio/speech', ...AUDIO_IN] },
  { slug: 'mistral-ai', aliases: ['mistral'], baseUrl: 'https://api.mistral.ai/v1', endpoints: ['chat', 'embeddings'], acceptsStreamOptions: false, passthrough: ['moderations'] },
  { slug: 'together-ai', aliases: ['together'], baseUrl: 'https://api.together.xyz/v1', endpoints: ALL, acceptsStreamOptions: true, passthrough: ['images/generations', 'audio/speech', ...AUDIO_IN, 'rerank'] },
  { slug: 'deepseek', baseUrl: 'https://api.deepseek.com/v1', endpoints: ['chat', 'completions'], acceptsStreamOptions: true },
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
  { slug: 'moonshot', aliases: ['moonshot-ai', 'kimi'], baseUrl: 'https://api.moonshot.ai/v1', endpoints: ['chat'], acceptsStreamOptions: false },
  // DashScope (Qwen) has an international (Singapore) and a mainland-China host; one slug each.
  { slug: 'dashscope', aliases: ['alibaba', 'qwen'], baseUrl: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1', endpoints: ['chat', 'embeddings'], acceptsStreamOptions: true },
  { slug: 'dashscope-cn', aliases: ['alibaba-cn'], baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1', endpoints: ['chat', 'embeddings'], acceptsStreamOptions: true },
  { slug: 'zhipu', aliases: ['zhipu-ai', 'glm', 'bigmodel'], baseUrl: 'https://open.bigmodel.cn/api/paas/v4', endpoints: ['chat', 'embeddings'], acceptsStreamOptions: false },
  { slug: 'minimax', baseUrl: 'https://api.minimax.io/v1', endpoints: ['chat'], acceptsStreamOptions: false },
  { slug: 'ai21', aliases: ['ai21-labs'], baseUrl: 'https://api.ai21.com/studio/v1', endpoints: ['chat'], acceptsStreamOptions: false },
];
