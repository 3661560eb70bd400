import { badRequest } from '../../http/errors.js';
import { checkEncodingFormat, embeddingTexts } from '../common/embedding-input.js';
import { openAIEmbeddingsList, readEmbeddingsList } from '../common/embeddings-list.js';
import { summariseDetailError } from '../common/detail-error.js';
import { noStreamTranslator } from '../common/no-stream.js';
import type { AdapterInput, ProviderAdapter, ProviderErrorSummary, UpstreamCall } from '../types.js';
import { voyageHeaders, voyageUrl } from './http.js';

const PROVIDER_NAME = 'Voyage AI';
const INPUT_TYPES = new Set(['query', 'document']);

/** Voyage AI embeddings (`POST /v1/embeddings`); rerank is a pass-through (./passthrough.ts). */
export const voyageAIAdapter: ProviderAdapter = {
  slug: 'voyage-ai',
  aliases: ['voyage'],
  endpoints: ['embeddings'],

  buildCall(input: AdapterInput): UpstreamCall {
    const source = input.body;
    checkEncodingFormat(source);
    const body: Record<string, unknown> = { model: source.model, input: embeddingTexts(source, PROVIDER_NAME) };
    if (source.input_type !== undefined && source.input_type !== null) {
      if (typeof source.input_type !== 'string' || !INPUT_TYPES.has(source.input_type)) throw badRequest('invalid_request', '`input_type` must be query or document', 'input_type');
      body.input_type = source.input_type;
    }
    // OpenAI's `dimensions` is Voyage's `output_dimension`; `truncation` (Voyage's own) passes through.
    if (typeof source.dimensions === 'number') body.output_dimension = source.dimensions;
    if (typeof source.truncation === 'boolean') body.truncation = source.truncation;
    return { url: voyageUrl(input.target.customHost, 'embeddings'), headers: voyageHeaders(input), body: JSON.stringify(body) };
  },

  toOpenAIResponse(input: AdapterInput, providerBody: unknown): Record<string, unknown> {
    const { vectors, tokens } = readEmbeddingsList(providerBody);
    return openAIEmbeddingsList(input.body.model, vectors, tokens, input.body.encoding_format);
  },

  toOpenAIError: summariseVoyageError,

  createStreamTranslator: () => noStreamTranslator(PROVIDER_NAME),
};

/** Voyage answers errors as `{"detail": "…"}`. */
export function summariseVoyageError(status: number, body: unknown): ProviderErrorSummary {
  return summariseDetailError(PROVIDER_NAME, status, body);
}
