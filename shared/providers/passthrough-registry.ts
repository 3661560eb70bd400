import { assemblyAIPassthrough } from './assemblyai/passthrough.js';
import { azureOpenAIPassthrough } from './azure-openai/passthrough.js';
import { coherePassthrough } from './cohere/passthrough.js';
import { jinaAIPassthrough } from './jina-ai/passthrough.js';
import { deepgramPassthrough } from './deepgram/passthrough.js';
import { elevenLabsPassthrough } from './elevenlabs/passthrough.js';
import { stabilityAIPassthrough } from './stability-ai/passthrough.js';
import { voyageAIPassthrough } from './voyage-ai/passthrough.js';
import { OPENAI_COMPATIBLE_PROVIDERS } from './openai-compatible/catalog.js';
import { openAICompatiblePassthrough } from './openai-compatible/passthrough.js';
import type { PassthroughEndpoint, PassthroughSupport } from './passthrough-types.js';

const BY_SLUG = new Map<string, PassthroughSupport>();
for (const row of OPENAI_COMPATIBLE_PROVIDERS) {
  const support = openAICompatiblePassthrough(row);
  if (support) BY_SLUG.set(row.slug, support);
}
BY_SLUG.set('azure-openai', azureOpenAIPassthrough);
BY_SLUG.set('cohere', coherePassthrough);
BY_SLUG.set('voyage-ai', voyageAIPassthrough);
BY_SLUG.set('jina-ai', jinaAIPassthrough);
BY_SLUG.set('stability-ai', stabilityAIPassthrough);
BY_SLUG.set('elevenlabs', elevenLabsPassthrough);
BY_SLUG.set('deepgram', deepgramPassthrough);
BY_SLUG.set('assemblyai', assemblyAIPassthrough);

/** What a provider (canonical slug) offers of the pass-through endpoints; undefined when none. */
export function passthroughSupport(slug: string): PassthroughSupport | undefined {
  return BY_SLUG.get(slug);
}

/** The providers that serve one pass-through endpoint, for error messages and docs. */
export function providersServing(endpoint: PassthroughEndpoint): string[] {
  return [...BY_SLUG].filter(([, support]) => support.endpoints.includes(endpoint)).map(([slug]) => slug);
}
