import { isRecord, numberField, recordField } from './json-guards.js';

/**
 * An OpenAI-shaped embeddings list from a provider that was asked for float vectors (Cohere, Voyage AI, Jina AI),
 * made exactly OpenAI's: `usage.prompt_tokens` filled from the provider's count and, when the client asked for
 * `encoding_format: base64` (the OpenAI SDK's default), each vector packed as little-endian float32 as OpenAI does.
 * gw always asks for floats, so no provider's own base64 layout ever reaches a client.
 */
export function openAIEmbeddingsList(model: unknown, vectors: readonly unknown[], inputTokens: number, encodingFormat: unknown): Record<string, unknown> {
  const base64 = encodingFormat === 'base64';
  return {
    object: 'list',
    model,
    data: vectors.map((vector, index) => ({ object: 'embedding', index, embedding: base64 && Array.isArray(vector) ? packFloat32(vector as number[]) : vector })),
    usage: { prompt_tokens: inputTokens, total_tokens: inputTokens },
  };
}

/** `data[].embedding` (in `index` order) and the token count of an OpenAI-like list answer. */
export function readEmbeddingsList(answer: unknown): { vectors: unknown[]; tokens: number } {
  const body = isRecord(answer) ? answer : {};
  const rows = Array.isArray(body.data) ? body.data.filter(isRecord) : [];
  rows.sort((a, b) => (numberField(a, 'index') ?? 0) - (numberField(b, 'index') ?? 0));
  const usage = recordField(body, 'usage') ?? {};
  return { vectors: rows.map((row) => row.embedding), tokens: numberField(usage, 'prompt_tokens') ?? numberField(usage, 'total_tokens') ?? 0 };
}

function packFloat32(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}
