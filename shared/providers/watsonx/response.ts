import { isRecord, numberField, stringField } from '../common/json-guards.js';
import { openAIEmbeddingsList } from '../common/embeddings-list.js';
import { nowSeconds } from '../common/chunks.js';
import type { ProviderErrorSummary } from '../types.js';

/**
 * watsonx.ai chat answer → OpenAI's: the fields are OpenAI's but the object type is missing and the model is
 * `model_id`. Usage is `prompt_tokens` / `completion_tokens` / `total_tokens` (no cached or reasoning counts).
 */
export function toChatCompletion(model: unknown, answer: unknown): Record<string, unknown> {
  const body = isRecord(answer) ? answer : {};
  return {
    id: stringField(body, 'id') ?? '',
    object: 'chat.completion',
    created: numberField(body, 'created') ?? nowSeconds(),
    model: stringField(body, 'model_id') ?? model,
    choices: Array.isArray(body.choices) ? body.choices : [],
    ...(isRecord(body.usage) ? { usage: body.usage } : {}),
  };
}

/** A chat stream chunk made OpenAI's (`object`, `model`), its fields kept. */
export function toChatChunk(chunk: Record<string, unknown>, model: unknown): Record<string, unknown> {
  const { model_id: modelId, model_version: _version, created_at: _createdAt, system: _system, ...rest } = chunk;
  return { ...rest, object: 'chat.completion.chunk', model: typeof modelId === 'string' ? modelId : (rest.model ?? model) };
}

/** `{results: [{embedding}], input_token_count}` → OpenAI's embeddings list (base64 when the client asked). */
export function toEmbeddingsList(model: unknown, answer: unknown, encodingFormat: unknown): Record<string, unknown> {
  const body = isRecord(answer) ? answer : {};
  const results = Array.isArray(body.results) ? body.results.filter(isRecord) : [];
  return openAIEmbeddingsList(stringField(body, 'model_id') ?? model, results.map((row) => row.embedding), numberField(body, 'input_token_count') ?? 0, encodingFormat);
}

/**
 * watsonx.ai errors are `{errors: [{code, message, more_info}], trace, status_code}`; the first error's code and
 * message become gw's (the IBM trace id is kept in the message so support cases can quote it).
 */
export function summariseWatsonxError(status: number, body: unknown): ProviderErrorSummary {
  const first = isRecord(body) && Array.isArray(body.errors) ? body.errors.find(isRecord) : undefined;
  const trace = isRecord(body) ? stringField(body, 'trace') : undefined;
  const message =
    (first && stringField(first, 'message')) ||
    (typeof body === 'string' && body.trim().slice(0, 500)) ||
    `IBM watsonx.ai answered with HTTP ${status}`;
  const code = (first && stringField(first, 'code')) ?? `http_${status}`;
  return { message: trace ? `${message} (trace ${trace})` : message, code, param: null };
}
