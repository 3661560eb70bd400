import { badRequest } from '../../http/errors.js';
import { noStreamTranslator } from '../common/no-stream.js';
import type { ProviderAdapter } from '../types.js';
import { summariseDeepgramError } from './transcription.js';

/** Deepgram serves transcription only (`/v1/audio/transcriptions`, ./passthrough.ts); the adapter reads its errors. */
export const deepgramAdapter: ProviderAdapter = {
  slug: 'deepgram',
  aliases: [],
  endpoints: [],
  buildCall() {
    throw badRequest('unsupported_endpoint', 'Deepgram serves /v1/audio/transcriptions only through gw', 'x-gw-provider');
  },
  toOpenAIError: summariseDeepgramError,
  createStreamTranslator: () => noStreamTranslator('Deepgram'),
};
