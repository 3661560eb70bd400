import type { AdapterInput, ProviderAdapter, UpstreamCall } from '../types.js';
import { fromBatchEmbedContents, readEmbeddingRequest, toBatchEmbedContentsBody } from './embeddings.js';
import { summariseGoogleError } from './errors.js';
import { toGenerateContentBody } from './request.js';
import { toChatCompletion } from './response.js';
import { GeminiStreamTranslator } from './stream.js';
import { usesLegacyFunctions } from './tools.js';
import { geminiModelId } from './model-id.js';

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
