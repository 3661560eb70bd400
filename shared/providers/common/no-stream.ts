import type { StreamTranslator } from '../types.js';

/**
 * The stream translator of a provider that serves no streaming endpoint (embeddings only). The gateway never
 * streams an embeddings call; should it ever ask, the stream ends with an explicit error, never a silent close.
 */
export function noStreamTranslator(providerName: string): StreamTranslator {
  let told = false;
  const once = () => (told ? [] : ((told = true), [{ type: 'error' as const, status: 400, error: { message: `${providerName} serves no streaming endpoint through gw`, code: 'stream_unsupported' } }]));
  return { push: once, end: once };
}
