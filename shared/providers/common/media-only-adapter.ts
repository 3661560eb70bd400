import { badRequest } from '../../http/errors.js';
import type { ProviderAdapter, ProviderErrorSummary } from '../types.js';
import { noStreamTranslator } from './no-stream.js';

/**
 * The adapter of a provider that serves only media pass-through endpoints (Stability AI images, ElevenLabs speech,
 * Deepgram and AssemblyAI transcription, in their passthrough.ts): it names the provider and reads its errors for the
 * pipeline; chat and embeddings are 400 `unsupported_endpoint` before any call.
 */
export function mediaOnlyAdapter(names: { slug: string; aliases: readonly string[]; displayName: string; serves: string }, toOpenAIError: (status: number, body: unknown) => ProviderErrorSummary): ProviderAdapter {
  return {
    slug: names.slug,
    aliases: names.aliases,
    endpoints: [],
    buildCall() {
      throw badRequest('unsupported_endpoint', `${names.displayName} serves ${names.serves} only through gw`, 'x-gw-provider');
    },
    toOpenAIError,
    createStreamTranslator: () => noStreamTranslator(names.displayName),
  };
}
