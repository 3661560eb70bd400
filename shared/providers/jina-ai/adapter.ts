import { badRequest } from '../../http/errors.js';
import { checkEncodingFormat, embeddingTexts } from '../common/embedding-input.js';
import { openAIEmbeddingsList, readEmbeddingsList } from '../common/embeddings-list.js';
import { summariseDetailError } from '../common/detail-error.js';
import { noStreamTranslator } from '../common/no-stream.js';
import type { AdapterInput, ProviderAdapter, ProviderErrorSummary, UpstreamCall } from '../types.js';
import { jinaHeaders, jinaUrl } from './http.js';

const PROVIDER_NAME = 'Jina AI';
const TASKS = new Set(['retrieval.query', 'retrieval.passage', 'text-matching', 'classification', 'separation', 'code.query', 'code.passage']);

/** Jina AI embeddings (`POST /v1/embeddings`); rerank is a pass-through (./passthrough.ts). */
export const jinaAIAdapter: ProviderAdapter = {
  slug: 'jina-ai',
  aliases: ['jina'],
  endpoints: ['embeddings'],

  buildCall(input: AdapterInput): UpstreamCall {
    const source = input.body;
    checkEncodingFormat(source);
    // Floats always (gw packs base64 itself), so Jina's own binary/ubinary layouts never reach an OpenAI client.
    const body: Record<string, unknown> = { model: source.model, input: embeddingTexts(source, PROVIDER_NAME), embedding_type: 'float' };
    if (source.task !== undefined && source.task !== null) {
      if (typeof source.task !== 'string' || !TASKS.has(source.task)) throw badRequest('invalid_request', `\`task\` must be one of ${[...TASKS].join(', ')}`, 'task');
      body.task = source.task;
    }
    if (typeof source.dimensions === 'number') body.dimensions = source.dimensions;
    if (typeof source.normalized === 'boolean') body.normalized = source.normalized;
    if (typeof source.late_chunking === 'boolean') body.late_chunking = source.late_chunking;
    return { url: jinaUrl(input.target.customHost, 'embeddings'), headers: jinaHeaders(input), body: JSON.stringify(body) };
  },

  toOpenAIResponse(input: AdapterInput, providerBody: unknown): Record<string, unknown> {
    const { vectors, tokens } = readEmbeddingsList(providerBody);
    return openAIEmbeddingsList(input.body.model, vectors, tokens, input.body.encoding_format);
  },

  toOpenAIError: summariseJinaError,

  createStreamTranslator: () => noStreamTranslator(PROVIDER_NAME),
};

/** Jina answers errors as `{"detail": "…"}`. */
export function summariseJinaError(status: number, body: unknown): ProviderErrorSummary {
  return summariseDetailError(PROVIDER_NAME, status, body);
}
