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
];
