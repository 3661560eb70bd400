import { badRequest } from '../../http/errors.js';
import { noStreamTranslator } from '../common/no-stream.js';
import type { ProviderAdapter } from '../types.js';
import { summariseAssemblyAIError } from './transcript-answer.js';

/** AssemblyAI serves transcription only (`/v1/audio/transcriptions`, ./passthrough.ts); the adapter reads its errors. */
export const assemblyAIAdapter: ProviderAdapter = {
  slug: 'assemblyai',
  aliases: ['assembly-ai'],
  endpoints: [],
  buildCall() {
    throw badRequest('unsupported_endpoint', 'AssemblyAI serves /v1/audio/transcriptions only through gw', 'x-gw-provider');
  },
  toOpenAIError: summariseAssemblyAIError,
  createStreamTranslator: () => noStreamTranslator('AssemblyAI'),
};
