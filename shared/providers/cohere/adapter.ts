import type { AdapterInput, ProviderAdapter, UpstreamCall } from '../types.js';
import { fromCohereEmbed, toCohereEmbedBody } from './embed.js';
import { summariseCohereError } from './errors.js';
import { toCohereChatBody } from './request.js';
import { toChatCompletion } from './response.js';
import { CohereStreamTranslator } from './stream.js';
import { cohereHeaders, cohereUrl } from './http.js';

/** Cohere's native v2 API (chat with streaming and tools, embed); rerank is a pass-through (./passthrough.ts). */
export const cohereAdapter: ProviderAdapter = {
  slug: 'cohere',
  aliases: [],
  endpoints: ['chat', 'embeddings'],

  buildCall(input: AdapterInput): UpstreamCall {
    const headers = cohereHeaders(input);
    if (input.endpoint === 'embeddings') {
      return { url: cohereUrl(input.target.customHost, 'embed'), headers, body: JSON.stringify(toCohereEmbedBody(input)) };
    }
    const body = toCohereChatBody(input);
    if (input.stream) headers.accept = 'text/event-stream';
    return { url: cohereUrl(input.target.customHost, 'chat'), headers, body: JSON.stringify(body) };
  },

  toOpenAIResponse(input: AdapterInput, providerBody: unknown): Record<string, unknown> {
    if (input.endpoint === 'embeddings') return fromCohereEmbed(input, providerBody);
    return toChatCompletion(String(input.body.model), providerBody);
  },

  toOpenAIError: summariseCohereError,

  createStreamTranslator: (input: AdapterInput) => new CohereStreamTranslator(String(input.body.model)),
};
