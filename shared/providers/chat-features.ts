import { OPENAI_COMPATIBLE_PROVIDERS } from './openai-compatible/catalog.js';

/** The chat features docs/providers.md tabulates per provider (issue #47). */
export const CHAT_FEATURES = ['stream', 'tools', 'json_schema', 'vision'] as const;
export type ChatFeature = (typeof CHAT_FEATURES)[number];

const ALL: readonly ChatFeature[] = CHAT_FEATURES;

/**
 * What each provider that translates chat does with the features: listed, gw translates it to the provider's API;
 * not listed, gw refuses it with a 400 `unsupported_parameter` (or drops it on request). Checked against the adapters
 * themselves by test/unit/providers/chat-features.test.ts, so this cannot claim what an adapter does not do.
 */
const TRANSLATED: Readonly<Record<string, readonly ChatFeature[]>> = {
  anthropic: ALL,
  bedrock: ALL,
  google: ALL,
  'vertex-ai': ALL,
  cohere: ALL,
  watsonx: ALL,
  // Replicate's language models take a prompt string: no tools, schema or images through its predictions API.
  replicate: ['stream'],
};

/** Providers whose chat body gw relays as OpenAI's: each feature works as far as the provider supports it. */
const RELAYED = new Set(['azure-openai', ...OPENAI_COMPATIBLE_PROVIDERS.map((row) => row.slug)]);

/**
 * ✓ translated, pass relayed untranslated, blank refused; undefined for a provider gw does not know to serve chat.
 * A relayed provider's stream is ✓: gw reads its SSE event by event (usage, errors, [DONE]), whatever it relays.
 */
export function chatFeatureCell(slug: string, feature: ChatFeature): '✓' | 'pass' | '' | undefined {
  if (RELAYED.has(slug)) return feature === 'stream' ? '✓' : 'pass';
  const translated = TRANSLATED[slug];
  if (!translated) return undefined;
  return translated.includes(feature) ? '✓' : '';
}
