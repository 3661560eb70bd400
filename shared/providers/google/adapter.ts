import { badRequest } from '../../http/errors.js';
import type { AdapterInput, ProviderAdapter, UpstreamCall } from '../types.js';
import { fromBatchEmbedContents, readEmbeddingRequest, toBatchEmbedContentsBody } from './embeddings.js';
import { summariseGoogleError } from './errors.js';
import { toGenerateContentBody } from './request.js';
import { toChatCompletion } from './response.js';
import { GeminiStreamTranslator } from './stream.js';
import { usesLegacyFunctions } from './tools.js';

export const GEMINI_API_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';
const PROVIDER_NAME = 'Google Gemini';

/**
 * The Gemini API (AI Studio keys). The key goes in `x-goog-api-key`, never in the URL, so it cannot end up in
 * access logs or error messages that quote the URL.
 */
export const googleAdapter: ProviderAdapter = {
  slug: 'google',
  aliases: ['gemini'],
  endpoints: ['chat', 'embeddings'],

  buildCall(input: AdapterInput): UpstreamCall {
    const base = (input.target.customHost ?? GEMINI_API_BASE_URL).replace(/\/+$/, '');
    const model = geminiModelId(input.body.model);
    const headers: Record<string, string> = { ...input.forwardHeaders, 'content-type': 'application/json' };
    if (input.target.apiKey) headers['x-goog-api-key'] = input.target.apiKey;
    if (input.endpoint === 'embeddings') {
      const body = toBatchEmbedContentsBody(readEmbeddingRequest(input, PROVIDER_NAME));
      return { url: `${base}/models/${model}:batchEmbedContents`, headers, body: JSON.stringify(body) };
    }
    const body = toGenerateContentBody(input, PROVIDER_NAME);
    if (input.stream) headers.accept = 'text/event-stream';
    const method = input.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    return { url: `${base}/models/${model}:${method}`, headers, body: JSON.stringify(body) };
  },

  toOpenAIResponse(input: AdapterInput, providerBody: unknown): Record<string, unknown> {
    if (input.endpoint === 'embeddings') return fromBatchEmbedContents(readEmbeddingRequest(input, PROVIDER_NAME), providerBody);
    return toChatCompletion(input, providerBody);
  },

  toOpenAIError: summariseGoogleError,

  createStreamTranslator: (input: AdapterInput) => new GeminiStreamTranslator(String(input.body.model), undefined, usesLegacyFunctions(input.body)),
};

/**
 * The model as a URL path segment. `models/` is accepted as a prefix (Google's own resource names carry it);
 * anything that could change the path (slashes, `..`, `?`) is refused.
 */
export function geminiModelId(model: unknown): string {
  const id = typeof model === 'string' ? model.trim().replace(/^models\//, '') : '';
  if (!/^[A-Za-z0-9][A-Za-z0-9._@-]*$/.test(id) || id.includes('..')) {
    throw badRequest('invalid_model', '`model` must be a Gemini model id such as gemini-2.5-flash (letters, digits, ".", "-", "_", "@")', 'model');
  }
  return id;
}
