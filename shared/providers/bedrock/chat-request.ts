import { badRequest } from '../../http/errors.js';
import { paramsAskingForMore, recordDropped, withoutUnsupportedParams, type UnsupportedParamChecks } from '../common/unsupported-params.js';
import { planThinking } from '../anthropic/thinking.js';
import type { AdapterInput, OpenAIBody } from '../types.js';
import type { ConverseInferenceConfig, ConverseOutputConfig, ConverseRequest } from './converse-types.js';
import { isRecord, stringOf } from './json.js';
import { toConverseConversation } from './request-messages.js';
import { toConverseTools } from './request-tools.js';

/**
 * OpenAI chat parameters Converse has no field for. A value equal to OpenAI's default (`n: 1`,
 * `logprobs: false`, a penalty of 0, …) asks for nothing and is accepted.
 */
export const CONVERSE_UNSUPPORTED_PARAMS: UnsupportedParamChecks = {
  n: (value) => value === 1,
  logprobs: (value) => value === false,
  top_logprobs: (value) => value === 0,
  logit_bias: (value) => isRecord(value) && Object.keys(value).length === 0,
  presence_penalty: (value) => value === 0,
  frequency_penalty: (value) => value === 0,
  seed: () => false,
  parallel_tool_calls: (value) => value === true,
  reasoning_effort: () => false,
  verbosity: () => false,
  modalities: (value) => Array.isArray(value) && value.length === 1 && value[0] === 'text',
  audio: () => false,
  prediction: () => false,
  web_search_options: () => false,
  service_tier: () => false,
  store: (value) => value === false,
  metadata: () => false,
  prompt_cache_key: () => false,
};

export interface ConverseCall {
  request: ConverseRequest;
  /** The answer must use the legacy `function_call` shape. */
  legacyFunctions: boolean;
}

/**
 * OpenAI chat body → Converse request body. `model` travels in the URL, `stream` picks the operation,
 * `stream_options` is moot (usage always comes back), and `user` is not sent: Converse has no end-user field.
 */
export function toConverseRequest(input: AdapterInput): ConverseCall {
  const claude = isClaudeModel(input.body.model);
  // Claude takes reasoning_effort as extended thinking (../anthropic/thinking.ts); other families cannot.
  const present = paramsAskingForMore(input.body, CONVERSE_UNSUPPORTED_PARAMS, (name) => name === 'reasoning_effort' && claude);
  const accepted = withoutUnsupportedParams(input, 'Bedrock (Converse)', present);
  const plan = claude ? planThinking(input, accepted, 'Bedrock (Converse)') : undefined;
  const body = plan?.body ?? accepted;

  const conversation = toConverseConversation(body.messages as unknown[]);
  const tools = toConverseTools(body, conversation.hasToolBlocks, input);
  const request: ConverseRequest = { messages: conversation.messages };
  if (conversation.system.length > 0) request.system = conversation.system;
  const inferenceConfig = readInferenceConfig(body);
  // With thinking on, the budget counts against maxTokens, which Bedrock requires to exceed it.
  if (plan?.thinking?.type === 'enabled') Object.assign((request.inferenceConfig = inferenceConfig ?? {}), { maxTokens: plan.maxTokens });
  else if (inferenceConfig) request.inferenceConfig = inferenceConfig;
  if (tools.toolConfig) request.toolConfig = tools.toolConfig;
  const outputConfig = readResponseFormat(body.response_format, input);
  if (outputConfig) request.outputConfig = outputConfig;
  const additional: Record<string, unknown> = {};
  const thinking = plan ? plan.thinking : readThinking(body.thinking);
  if (thinking && thinking.type !== 'disabled') additional.thinking = thinking;
  const topK = readTopK(body.top_k, String(body.model));
  if (topK) Object.assign(additional, topK);
  if (Object.keys(additional).length > 0) request.additionalModelRequestFields = additional;
  return { request, legacyFunctions: tools.legacyFunctions };
}

/** Claude on Bedrock: `anthropic.claude-…`, a cross-region profile (`us.anthropic.claude-…`) or an ARN naming one. */
export function isClaudeModel(model: unknown): boolean {
  return typeof model === 'string' && /anthropic\.claude|claude-/.test(model);
}

/**
 * `top_k` has no Converse field: it goes in `additionalModelRequestFields`, in the model family's own shape —
 * Amazon Nova reads `inferenceConfig.topK`, Claude, Mistral, Cohere and Llama-style models `top_k`.
 */
function readTopK(value: unknown, model: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw badRequest('invalid_parameter', '`top_k` must be a non-negative integer', 'top_k');
  return /amazon\.nova/.test(model) ? { inferenceConfig: { topK: value } } : { top_k: value };
}

function readInferenceConfig(body: OpenAIBody): ConverseInferenceConfig | undefined {
  const config: ConverseInferenceConfig = {};
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== undefined && maxTokens !== null) {
    const param = body.max_completion_tokens !== undefined && body.max_completion_tokens !== null ? 'max_completion_tokens' : 'max_tokens';
    if (!Number.isInteger(maxTokens) || (maxTokens as number) < 1) throw badRequest('invalid_parameter', `\`${param}\` must be a positive integer`, param);
    config.maxTokens = maxTokens as number;
  }
  const temperature = finiteNumber(body.temperature, 'temperature');
  if (temperature !== undefined) config.temperature = temperature;
  const topP = finiteNumber(body.top_p, 'top_p');
  if (topP !== undefined) config.topP = topP;
  const stop = readStop(body.stop);
  if (stop) config.stopSequences = stop;
  return Object.keys(config).length > 0 ? config : undefined;
}

function finiteNumber(value: unknown, param: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw badRequest('invalid_parameter', `\`${param}\` must be a number`, param);
  return value;
}

function readStop(stop: unknown): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  const list = typeof stop === 'string' ? [stop] : stop;
  if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) {
    throw badRequest('invalid_parameter', '`stop` must be a string or an array of strings', 'stop');
  }
  return list.length > 0 ? list : undefined;
}

/**
 * `json_schema` maps onto Converse's native structured output (`outputConfig.textFormat`), which constrains the
 * text answer to the schema. `json_object` has no Converse counterpart without a schema, so it is a 400.
 */
function readResponseFormat(format: unknown, drop: Pick<AdapterInput, 'dropUnsupportedParams' | 'droppedParams'>): ConverseOutputConfig | undefined {
  if (format === undefined || format === null) return undefined;
  if (!isRecord(format) || typeof format.type !== 'string') {
    throw badRequest('invalid_response_format', '`response_format` must be an object with a `type`', 'response_format');
  }
  if (format.type === 'text') return undefined;
  if (format.type === 'json_object') {
    if (drop.dropUnsupportedParams) {
      recordDropped(drop, ['response_format']);
      return undefined;
    }
    throw badRequest(
      'unsupported_parameter',
      'Bedrock (Converse) has no JSON mode without a schema: send response_format {"type": "json_schema", "json_schema": {"name": …, "schema": {…}}}, or send x-gw-drop-unsupported-params: true to have gw drop it',
      'response_format',
    );
  }
  if (format.type !== 'json_schema') {
    throw badRequest('invalid_response_format', `response_format.type '${format.type}' is not supported; use text or json_schema`, 'response_format.type');
  }
  const spec = isRecord(format.json_schema) ? format.json_schema : undefined;
  if (!spec || !isRecord(spec.schema)) {
    throw badRequest('invalid_response_format', 'response_format.json_schema.schema must be a JSON Schema object', 'response_format.json_schema.schema');
  }
  const jsonSchema: ConverseOutputConfig['textFormat']['structure']['jsonSchema'] = { schema: JSON.stringify(spec.schema) };
  const name = stringOf(spec.name);
  if (name) jsonSchema.name = name;
  const description = stringOf(spec.description);
  if (description) jsonSchema.description = description;
  return { textFormat: { type: 'json_schema', structure: { jsonSchema } } };
}

/**
 * `thinking` is Anthropic's extended-thinking switch; on Bedrock it travels in `additionalModelRequestFields`,
 * which Converse hands to the model unchanged (so only Claude models accept it).
 */
function readThinking(thinking: unknown): Record<string, unknown> | undefined {
  if (thinking === undefined || thinking === null) return undefined;
  if (!isRecord(thinking) || typeof thinking.type !== 'string') {
    throw badRequest('invalid_thinking', '`thinking` must be an object like {"type": "enabled", "budget_tokens": 2048}', 'thinking');
  }
  if (thinking.type === 'disabled') return undefined;
  if (thinking.type === 'enabled' && (!Number.isInteger(thinking.budget_tokens) || (thinking.budget_tokens as number) < 1)) {
    throw badRequest('invalid_thinking', '`thinking.budget_tokens` must be a positive integer when thinking is enabled', 'thinking.budget_tokens');
  }
  return { ...thinking };
}
