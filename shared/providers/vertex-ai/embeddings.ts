import { GatewayError } from '../../http/errors.js';
import { toEmbeddingList, vectorOf, type EmbeddingRequest } from '../google/embeddings.js';

/**
 * Vertex AI text embeddings (`text-embedding-005`, `gemini-embedding-001`, …) go through `:predict`:
 * `{instances: [{content, task_type}], parameters: {outputDimensionality}}` in,
 * `{predictions: [{embeddings: {values, statistics: {token_count}}}]}` out.
 */
export function toPredictBody(request: EmbeddingRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    instances: request.inputs.map((content) => ({ content, ...(request.taskType ? { task_type: request.taskType } : {}) })),
  };
  if (request.dimensions) body.parameters = { outputDimensionality: request.dimensions };
  return body;
}

export function fromPredictResponse(request: EmbeddingRequest, providerBody: unknown): Record<string, unknown> {
  const predictions = (providerBody as { predictions?: unknown } | null)?.predictions;
  if (!Array.isArray(predictions)) {
    throw new GatewayError(502, 'invalid_provider_response', 'Vertex AI answered the embeddings call without predictions', { type: 'upstream_error' });
  }
  let tokens = 0;
  const vectors = predictions.map((prediction) => {
    const embeddings = (prediction as { embeddings?: { values?: unknown; statistics?: { token_count?: unknown } } } | null)?.embeddings;
    const count = embeddings?.statistics?.token_count;
    if (typeof count === 'number') tokens += count;
    return vectorOf(embeddings?.values);
  });
  return toEmbeddingList(request, vectors, tokens);
}
