import { GatewayError, badRequest } from '../../http/errors.js';
import { estimateTokens } from '../common/token-estimate.js';
import { withoutUnsupportedParams } from '../common/unsupported-params.js';
import type { AdapterInput, OpenAIBody } from '../types.js';
import { asRecord, countOf, isRecord, stringOf } from './json.js';

export type EmbeddingFamily = 'titan' | 'cohere';

/**
 * Bedrock has no embeddings operation of its own: each model family takes its own body through InvokeModel.
 * gw speaks the two text families: Amazon Titan Text Embeddings and Cohere Embed. Model ids may carry a
 * cross-region prefix (`us.cohere.embed-v4:0`) or be ARNs that end in the model id.
 */
export function embeddingFamilyOf(model: string): EmbeddingFamily {
  const lower = model.toLowerCase();
  if (/(^|[./:])amazon\.titan-embed-/.test(lower)) return 'titan';
  if (/(^|[./:])cohere\.embed-/.test(lower)) return 'cohere';
  throw badRequest(
    'unsupported_model',
    `gw translates Bedrock embeddings for amazon.titan-embed-* and cohere.embed-* models; '${model}' is neither`,
    'model',
  );
}

/**
 * OpenAI embeddings body → the InvokeModel bodies of the model's family: one for Cohere (up to 96 texts per call),
 * one per text for Titan, which embeds one text per call (the adapter fans those out, see UpstreamCall.fanOut).
 */
export function toBedrockEmbeddingBodies(input: AdapterInput, family: EmbeddingFamily): Array<Record<string, unknown>> {
  const model = String(input.body.model);
  const cohereV3 = family === 'cohere' && !/embed-v4/.test(model.toLowerCase());
  const body = withoutUnsupportedParams(input, family === 'titan' ? 'Bedrock Titan embeddings' : 'Bedrock Cohere embeddings', cohereV3 ? ['dimensions'] : []);
  readEncodingFormat(body);
  const texts = inputTexts(body.input);
  if (family === 'titan') {
    const dimensions = body.dimensions !== undefined && body.dimensions !== null ? positiveInteger(body.dimensions, 'dimensions') : undefined;
    return texts.map((inputText) => (dimensions === undefined ? { inputText } : { inputText, dimensions }));
  }
  const cohere: Record<string, unknown> = { texts, input_type: stringOf(body.input_type) ?? 'search_document' };
  const truncate = stringOf(body.truncate);
  if (truncate) cohere.truncate = truncate;
  if (body.dimensions !== undefined && body.dimensions !== null) cohere.output_dimension = positiveInteger(body.dimensions, 'dimensions');
  return [cohere];
}

/**
 * The family's InvokeModel answer → OpenAI's embeddings list. Several Titan calls answer as `{answers: [...]}` in
 * input order (gw's fan-out): their vectors keep that order in `data[i].index` and their token counts are summed.
 */
export function toOpenAIEmbeddings(input: AdapterInput, family: EmbeddingFamily, providerBody: unknown): Record<string, unknown> {
  const body = asRecord(providerBody);
  const answers = family === 'titan' && Array.isArray(body.answers) ? body.answers.map(asRecord) : [body];
  const vectors = family === 'titan' ? answers.map((answer) => answer.embedding) : cohereVectors(body.embeddings);
  if (vectors.length === 0 || !vectors.every(isNumberArray)) {
    throw new GatewayError(502, 'invalid_provider_response', 'Bedrock answered without embedding vectors', { type: 'upstream_error', providerError: providerBody });
  }
  const base64 = input.body.encoding_format === 'base64';
  // Cohere on Bedrock usually reports no count: gw estimates it (common/token-estimate.ts) rather than report 0.
  const promptTokens =
    family === 'titan'
      ? answers.reduce((sum, answer) => sum + (countOf(answer.inputTextTokenCount) ?? 0), 0)
      : (countOf(asRecord(asRecord(body.meta).billed_units).input_tokens) ?? estimateTokens(inputTexts(input.body.input)) ?? 0);
  return {
    object: 'list',
    data: (vectors as number[][]).map((vector, index) => ({ object: 'embedding', index, embedding: base64 ? toBase64(vector) : vector })),
    model: String(input.body.model),
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

function readEncodingFormat(body: OpenAIBody): void {
  const format = body.encoding_format;
  if (format === undefined || format === null || format === 'float' || format === 'base64') return;
  throw badRequest('invalid_parameter', '`encoding_format` must be "float" or "base64"', 'encoding_format');
}

function inputTexts(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string')) return value as string[];
  throw badRequest('invalid_input', 'Bedrock embeddings take `input` as a string or a non-empty array of strings (token arrays are not supported)', 'input');
}

function positiveInteger(value: unknown, param: string): number {
  if (!Number.isInteger(value) || (value as number) < 1) throw badRequest('invalid_parameter', `\`${param}\` must be a positive integer`, param);
  return value as number;
}

/** Cohere answers `embeddings` as a list of vectors, or by type (`{"float": [...]}`) when types were asked for. */
function cohereVectors(embeddings: unknown): unknown[] {
  if (Array.isArray(embeddings)) return embeddings;
  if (isRecord(embeddings) && Array.isArray(embeddings.float)) return embeddings.float;
  return [];
}

function isNumberArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'number');
}

/** OpenAI's base64 encoding: the vector as little-endian float32 bytes (what the openai SDK asks for by default). */
function toBase64(vector: number[]): string {
  const floats = Float32Array.from(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}
