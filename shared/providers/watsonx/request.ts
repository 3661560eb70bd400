import { badRequest } from '../../http/errors.js';
import { isRecord } from '../common/json-guards.js';
import { checkEncodingFormat, embeddingTexts } from '../common/embedding-input.js';
import { paramsAskingForMore, refuseOrRecordDrop, type UnsupportedParamChecks } from '../common/unsupported-params.js';
import type { AdapterInput } from '../types.js';
import { watsonxScope } from './http.js';

export const PROVIDER_NAME = 'IBM watsonx.ai';

/** OpenAI chat parameters watsonx.ai's `/ml/v1/text/chat` has no field for, with the values that ask for nothing. */
const UNSUPPORTED: UnsupportedParamChecks = {
  logit_bias: (value) => isRecord(value) && Object.keys(value).length === 0,
  parallel_tool_calls: (value) => value === true,
  functions: () => false,
  function_call: () => false,
  audio: () => false,
  modalities: (value) => Array.isArray(value) && value.every((modality) => modality === 'text'),
  prediction: () => false,
  web_search_options: () => false,
  reasoning_effort: () => false,
};

/** Parameters watsonx.ai's chat takes under the same name and meaning as OpenAI's. */
const SAME_NAME = ['messages', 'tools', 'temperature', 'top_p', 'seed', 'stop', 'n', 'presence_penalty', 'frequency_penalty', 'logprobs', 'top_logprobs', 'response_format', 'max_tokens', 'time_limit'];

/**
 * OpenAI chat body → watsonx.ai chat body. The message and tool shapes are OpenAI's already; what differs is the
 * model's name (`model_id`), the project or space the call runs in, and the tool choice: a mode is
 * `tool_choice_option`, a named function `tool_choice`.
 */
export function toWatsonxChatBody(input: AdapterInput): Record<string, unknown> {
  const source = input.body;
  refuseOrRecordDrop(input, PROVIDER_NAME, paramsAskingForMore(source, UNSUPPORTED));
  if (!Array.isArray(source.messages) || source.messages.length === 0) throw badRequest('invalid_request', '`messages` must be a non-empty array', 'messages');
  const body: Record<string, unknown> = { model_id: modelId(source.model), ...watsonxScope(input.target) };
  for (const name of SAME_NAME) if (source[name] !== undefined && source[name] !== null) body[name] = source[name];
  if (typeof source.max_completion_tokens === 'number') body.max_tokens = source.max_completion_tokens;
  const choice = source.tool_choice;
  if (typeof choice === 'string') body.tool_choice_option = choice;
  else if (isRecord(choice)) body.tool_choice = choice;
  return body;
}

/** OpenAI embeddings body → `/ml/v1/text/embeddings` (`inputs`, `model_id`, the scope; no dimensions). */
export function toWatsonxEmbeddingsBody(input: AdapterInput): Record<string, unknown> {
  const source = input.body;
  checkEncodingFormat(source);
  if (source.dimensions !== undefined && source.dimensions !== null) refuseOrRecordDrop(input, PROVIDER_NAME, ['dimensions']);
  const body: Record<string, unknown> = { inputs: embeddingTexts(source, PROVIDER_NAME), model_id: modelId(source.model), ...watsonxScope(input.target) };
  // watsonx's own truncation switch, for callers that know it; OpenAI has none.
  if (typeof source.truncate_input_tokens === 'number') body.parameters = { truncate_input_tokens: source.truncate_input_tokens };
  return body;
}

function modelId(model: unknown): string {
  if (typeof model !== 'string' || model === '') throw badRequest('invalid_request', '`model` must name a watsonx.ai model id (e.g. ibm/granite-3-8b-instruct)', 'model');
  return model;
}
