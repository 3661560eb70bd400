import type { AdapterInput, ProviderAdapter, ProviderErrorSummary, StreamTranslator, UpstreamCall, UpstreamHeaders } from '../types.js';
import { loadTokenEstimator } from '../common/token-estimate.js';
import { authoriseCall, bedrockRuntimeBase, readBedrockAuth } from './auth.js';
import { converseToChatCompletion } from './chat-response.js';
import { toConverseRequest } from './chat-request.js';
import { embeddingFamilyOf, toBedrockEmbeddingBody, toOpenAIEmbeddings } from './embeddings.js';
import { summariseBedrockError } from './errors.js';
import { ConverseStreamTranslator } from './stream.js';

/**
 * Amazon Bedrock (the spec's `cloudc`). Chat goes through Converse / ConverseStream for every model family;
 * embeddings through InvokeModel with the Titan or Cohere body. Calls are SigV4-signed (service `bedrock`).
 */
export const bedrockAdapter: ProviderAdapter = {
  slug: 'bedrock',
  aliases: ['cloudc'],
  endpoints: ['chat', 'embeddings'],

  async buildCall(input: AdapterInput): Promise<UpstreamCall> {
    const auth = readBedrockAuth(input.target);
    const model = String(input.body.model);
    let operation: string;
    let payload: object;
    if (input.endpoint === 'embeddings') {
      operation = 'invoke';
      const family = embeddingFamilyOf(model);
      payload = toBedrockEmbeddingBody(input, family);
      // Cohere's answer carries no token count: the estimator must be ready when the answer is translated.
      if (family === 'cohere') await loadTokenEstimator();
    } else {
      operation = input.stream ? 'converse-stream' : 'converse';
      payload = toConverseRequest(input).request;
    }
    // The model id is one path segment: `:` in `…-v1:0` and `/` in ARNs are percent-encoded.
    const url = `${bedrockRuntimeBase(input.target, auth.region)}/model/${encodeURIComponent(model)}/${operation}`;
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = {
      ...input.forwardHeaders,
      'content-type': 'application/json',
      accept: input.stream ? 'application/vnd.amazon.eventstream' : 'application/json',
    };
    return { url, method: 'POST', headers: await authoriseCall(auth, { url, headers, body }), body };
  },

  toOpenAIResponse(input: AdapterInput, providerBody: unknown): Record<string, unknown> {
    if (input.endpoint === 'embeddings') return toOpenAIEmbeddings(input, embeddingFamilyOf(String(input.body.model)), providerBody);
    return converseToChatCompletion(providerBody, String(input.body.model), usesLegacyFunctions(input));
  },

  toOpenAIError(status: number, providerBody: unknown, headers?: UpstreamHeaders): ProviderErrorSummary {
    return summariseBedrockError(status, providerBody, headers);
  },

  createStreamTranslator(input: AdapterInput): StreamTranslator {
    return new ConverseStreamTranslator(String(input.body.model), usesLegacyFunctions(input));
  },
};

/** A request that declared legacy `functions` (and no `tools`) gets its answer in the legacy shape. */
function usesLegacyFunctions(input: AdapterInput): boolean {
  return Array.isArray(input.body.functions) && (input.body.tools === undefined || input.body.tools === null);
}
