import { createAnthropicStreamTranslator, fromAnthropicMessage, summariseAnthropicError } from '../anthropic/messages-codec.js';
import { readEmbeddingRequest } from '../google/embeddings.js';
import { isRecord, summariseGoogleError } from '../google/errors.js';
import { toGenerateContentBody } from '../google/request.js';
import { toChatCompletion } from '../google/response.js';
import { GeminiStreamTranslator } from '../google/stream.js';
import { usesLegacyFunctions } from '../google/tools.js';
import type { AdapterInput, ProviderAdapter, ProviderErrorSummary, UpstreamCall } from '../types.js';
import { toVertexAnthropicBody } from './anthropic.js';
import { vertexAccessToken } from './credentials.js';
import { fromPredictResponse, toPredictBody } from './embeddings.js';
import { vertexFamily, vertexRoute } from './routes.js';

const PROVIDER_NAME = 'Vertex AI';

/**
 * Google Vertex AI: Gemini models through `generateContent` (the same translation as the Gemini API), text
 * embeddings through `:predict`, and Claude through `rawPredict` with Anthropic's Messages format.
 */
export const vertexAIAdapter: ProviderAdapter = {
  slug: 'vertex-ai',
  aliases: ['cloudb'],
  endpoints: ['chat', 'embeddings'],

  async buildCall(input: AdapterInput): Promise<UpstreamCall> {
    const route = vertexRoute(input);
    const body =
      input.endpoint === 'embeddings'
        ? toPredictBody(readEmbeddingRequest(input, PROVIDER_NAME))
        : route.family === 'anthropic'
          ? toVertexAnthropicBody(input)
          : toGenerateContentBody(input, PROVIDER_NAME);
    // The body is built (and refused, if it must be) before any token exchange is paid for.
    const token = await vertexAccessToken(input.target);
    const headers: Record<string, string> = { ...input.forwardHeaders, 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (input.stream) headers.accept = 'text/event-stream';
    return { url: route.url, headers, body: JSON.stringify(body) };
  },

  toOpenAIResponse(input: AdapterInput, providerBody: unknown): Record<string, unknown> {
    if (input.endpoint === 'embeddings') return fromPredictResponse(readEmbeddingRequest(input, PROVIDER_NAME), providerBody);
    return vertexFamily(input) === 'anthropic' ? fromAnthropicMessage(input, providerBody) : toChatCompletion(input, providerBody);
  },

  toOpenAIError: summariseVertexError,

  createStreamTranslator(input: AdapterInput) {
    return vertexFamily(input) === 'anthropic' ? createAnthropicStreamTranslator(input) : new GeminiStreamTranslator(String(input.body.model), undefined, usesLegacyFunctions(input.body));
  },
};

/**
 * Errors of a Claude call come from Anthropic (`{type: "error", error: {type, message}}`) or from Google's
 * front end (`{error: {code, message, status}}`, e.g. a missing permission), so the body's shape decides.
 */
export function summariseVertexError(status: number, body: unknown): ProviderErrorSummary {
  if (isRecord(body) && body.type === 'error') return summariseAnthropicError(status, body);
  return summariseGoogleError(status, body);
}
