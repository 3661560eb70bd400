import { badRequest } from '../../http/errors.js';
import { noStreamTranslator } from '../common/no-stream.js';
import type { ProviderAdapter } from '../types.js';
import { summariseStabilityError } from './http.js';

/**
 * Stability AI serves images only (`/v1/images/generations`, ./passthrough.ts); the adapter names the provider and
 * reads its errors for the pipeline. No chat or embeddings: those are 400 `unsupported_endpoint` before any call.
 */
export const stabilityAIAdapter: ProviderAdapter = {
  slug: 'stability-ai',
  aliases: ['stability'],
  endpoints: [],
  buildCall() {
    throw badRequest('unsupported_endpoint', 'Stability AI serves /v1/images/generations only through gw', 'x-gw-provider');
  },
  toOpenAIError: summariseStabilityError,
  createStreamTranslator: () => noStreamTranslator('Stability AI'),
};
