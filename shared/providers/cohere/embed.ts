import { badRequest } from '../../http/errors.js';
import { openAIEmbeddingsList } from '../common/embeddings-list.js';
import { isRecord, numberField, recordField } from '../common/json-guards.js';
import type { AdapterInput } from '../types.js';

/** Cohere's v3+ embed models require an input type; a document is what an OpenAI embeddings call usually embeds. */
const DEFAULT_INPUT_TYPE = 'search_document';
const INPUT_TYPES = new Set(['search_document', 'search_query', 'classification', 'clustering']);

/** OpenAI embeddings body → Cohere `POST /v2/embed`. `input_type` may be sent as an extra body field. */
export function toCohereEmbedBody(input: AdapterInput): Record<string, unknown> {
  const source = input.body;
  const texts = typeof source.input === 'string' ? [source.input] : source.input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((text) => typeof text === 'string')) {
    throw badRequest('invalid_request', 'Cohere embeds text only: `input` must be a string or an array of strings', 'input');
  }
  const inputType = source.input_type ?? DEFAULT_INPUT_TYPE;
  if (typeof inputType !== 'string' || !INPUT_TYPES.has(inputType)) {
    throw badRequest('invalid_request', `\`input_type\` must be one of ${[...INPUT_TYPES].join(', ')}`, 'input_type');
  }
  const body: Record<string, unknown> = { model: source.model, texts, input_type: inputType, embedding_types: ['float'] };
  if (typeof source.dimensions === 'number') body.output_dimension = source.dimensions;
  if (source.encoding_format !== undefined && source.encoding_format !== 'float' && source.encoding_format !== 'base64') {
    throw badRequest('invalid_request', '`encoding_format` must be float or base64', 'encoding_format');
  }
  return body;
}

/** Cohere embed answer → OpenAI `list` of embeddings (gw asked for floats; see openAIEmbeddingsList). */
export function fromCohereEmbed(input: AdapterInput, answer: unknown): Record<string, unknown> {
  const body = isRecord(answer) ? answer : {};
  const embeddings = recordField(body, 'embeddings');
  const vectors = Array.isArray(embeddings?.float) ? embeddings.float : Array.isArray(body.embeddings) ? body.embeddings : [];
  const billed = recordField(recordField(body, 'meta') ?? {}, 'billed_units') ?? {};
  return openAIEmbeddingsList(input.body.model, vectors, numberField(billed, 'input_tokens') ?? 0, input.body.encoding_format);
}
