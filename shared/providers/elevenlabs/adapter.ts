import { badRequest } from '../../http/errors.js';
import { noStreamTranslator } from '../common/no-stream.js';
import type { ProviderAdapter } from '../types.js';
import { summariseElevenLabsError } from './speech.js';

/** ElevenLabs serves speech only (`/v1/audio/speech`, ./passthrough.ts); the adapter reads its errors for the pipeline. */
export const elevenLabsAdapter: ProviderAdapter = {
  slug: 'elevenlabs',
  aliases: ['eleven-labs', '11labs'],
  endpoints: [],
  buildCall() {
    throw badRequest('unsupported_endpoint', 'ElevenLabs serves /v1/audio/speech only through gw', 'x-gw-provider');
  },
  toOpenAIError: summariseElevenLabsError,
  createStreamTranslator: () => noStreamTranslator('ElevenLabs'),
};
