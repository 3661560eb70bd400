import { GatewayError, badRequest } from '../../http/errors.js';
import type { AdapterInput } from '../types.js';
import type { GeminiBody } from './gemini-types.js';

/**
 * Embeddings. The Gemini API's `batchEmbedContents` is used for every call (one input or many), because
 * `embedContent` folds all the parts of one request into a single vector, while OpenAI's `input` array asks for
 * one vector per entry. The same input and output helpers serve Vertex AI's `:predict`.
 */
export interface EmbeddingRequest {
  model: string;
  inputs: string[];
  dimensions?: number;
  /** gw extension: Google's task type (RETRIEVAL_QUERY, SEMANTIC_SIMILARITY, …), passed through. */
  taskType?: string;
  encodingFormat: 'float' | 'base64';
}

export function readEmbeddingRequest(input: AdapterInput, providerName: string): EmbeddingRequest {
  const body = input.body;
  const raw = body.input;
  const inputs = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((entry) => typeof entry === 'string')) {
    throw badRequest('invalid_input', `${providerName} embeds text only: input must be a string or a non-empty array of strings (token arrays are not supported)`, 'input');
  }
  const dimensions = body.dimensions;
  if (dimensions !== undefined && (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1)) {
    throw badRequest('invalid_parameter', 'dimensions must be a positive integer', 'dimensions');
  }
  const encodingFormat = body.encoding_format ?? 'float';
  if (encodingFormat !== 'float' && encodingFormat !== 'base64') throw badRequest('invalid_parameter', 'encoding_format must be "float" or "base64"', 'encoding_format');
  const taskType = body.task_type;
  if (taskType !== undefined && typeof taskType !== 'string') throw badRequest('invalid_parameter', 'task_type must be a string', 'task_type');
  return { model: String(body.model), inputs, dimensions, taskType, encodingFormat };
}

export function toBatchEmbedContentsBody(request: EmbeddingRequest): GeminiBody {
  return {
    requests: request.inputs.map((text) => ({
      model: `models/${request.model.replace(/^models\//, '')}`,
      content: { parts: [{ text }] },
      ...(request.taskType ? { taskType: request.taskType } : {}),
      ...(request.dimensions ? { outputDimensionality: request.dimensions } : {}),
    })),
  };
}

/** `{embeddings: [{values}]}` → OpenAI's embedding list. The Gemini API reports no token counts here. */
export function fromBatchEmbedContents(request: EmbeddingRequest, providerBody: unknown): Record<string, unknown> {
  const embeddings = (providerBody as { embeddings?: Array<{ values?: unknown }> } | null)?.embeddings;
  if (!Array.isArray(embeddings)) throw invalidEmbeddingResponse();
  const vectors = embeddings.map((embedding) => vectorOf(embedding?.values));
  const promptTokens = (providerBody as { usageMetadata?: { promptTokenCount?: unknown } }).usageMetadata?.promptTokenCount;
  return toEmbeddingList(request, vectors, typeof promptTokens === 'number' ? promptTokens : 0);
}

export function toEmbeddingList(request: EmbeddingRequest, vectors: number[][], promptTokens: number): Record<string, unknown> {
  return {
    object: 'list',
    data: vectors.map((vector, index) => ({ object: 'embedding', index, embedding: request.encodingFormat === 'base64' ? float32Base64(vector) : vector })),
    model: request.model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

export function vectorOf(values: unknown): number[] {
  if (!Array.isArray(values) || !values.every((value) => typeof value === 'number')) throw invalidEmbeddingResponse();
  return values;
}

/** OpenAI's base64 encoding: the vector as little-endian float32 bytes. */
function float32Base64(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

function invalidEmbeddingResponse(): GatewayError {
  return new GatewayError(502, 'invalid_provider_response', 'The provider answered the embeddings call with a body gw does not understand', { type: 'upstream_error' });
}
