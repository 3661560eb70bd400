import { badRequest } from '../../http/errors.js';
import { isRecord } from '../common/json-guards.js';
import { withoutUnsupportedParams } from '../common/unsupported-params.js';
import type { AdapterInput, OpenAIBody } from '../types.js';
import { JSON_OBJECT_INSTRUCTION, UNSUPPORTED_PARAMS } from './constants.js';
import type { AnthropicBlock } from './request-content.js';
import { toAnthropicConversation } from './request-messages.js';
import { toAnthropicTools } from './request-tools.js';
import { planThinking } from './thinking.js';
import { webSearchTool } from './web-search.js';

/**
 * The full Messages API body (including `model` and `stream`) for an OpenAI chat-completions body.
 * Throws a 400 GatewayError for anything Anthropic cannot honour.
 */
export function toAnthropicMessagesBody(input: AdapterInput): Record<string, unknown> {
  // Web search is Anthropic's own server tool (web-search.ts), declared beside the client's function tools.
  const { web_search_options: webSearch, ...requested } = input.body;
  const accepted = withoutUnsupportedParams({ ...input, body: withoutNoOpParams(requested) }, 'Anthropic', UNSUPPORTED_PARAMS);
  const { thinking, maxTokens, body } = planThinking(input, accepted, 'Anthropic');
  const { system, messages } = toAnthropicConversation(body.messages);
  const output = responseFormat(body.response_format);
  if (output.instruction) system.push({ type: 'text', text: output.instruction });

  const anthropic: Record<string, unknown> = { model: body.model, messages };
  if (system.length > 0) anthropic.system = systemField(system);
  anthropic.max_tokens = maxTokens;
  const stop = stopSequences(body.stop);
  if (stop) anthropic.stop_sequences = stop;
  for (const name of ['temperature', 'top_p', 'top_k'] as const) {
    const value = body[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isFinite(value)) throw badRequest('invalid_parameter', `\`${name}\` must be a number`, name);
    anthropic[name] = value;
  }
  const user = endUser(body);
  if (user) anthropic.metadata = { user_id: user };
  if (thinking) anthropic.thinking = thinking;
  Object.assign(anthropic, toAnthropicTools(body));
  if (webSearch !== undefined && webSearch !== null) anthropic.tools = [...((anthropic.tools as unknown[] | undefined) ?? []), webSearchTool(webSearch)];
  if (output.format) anthropic.output_config = { format: output.format };
  anthropic.stream = input.stream;
  return anthropic;
}

/**
 * Parameters set to the value that asks for nothing (OpenAI's defaults, which some SDKs always send) are not
 * "unsupported": they are removed before the unsupported-parameter check.
 */
export function withoutNoOpParams(body: OpenAIBody): OpenAIBody {
  const noOp: Record<string, (value: unknown) => boolean> = {
    n: (value) => value === 1,
    logprobs: (value) => value === false,
    top_logprobs: (value) => value === 0,
    presence_penalty: (value) => value === 0,
    frequency_penalty: (value) => value === 0,
    logit_bias: (value) => isRecord(value) && Object.keys(value).length === 0,
    store: (value) => value === false,
    modalities: (value) => Array.isArray(value) && value.length === 1 && value[0] === 'text',
    service_tier: (value) => value === 'auto',
  };
  const cleaned = { ...body };
  for (const [name, isNoOp] of Object.entries(noOp)) if (cleaned[name] !== undefined && isNoOp(cleaned[name])) delete cleaned[name];
  return cleaned;
}

function systemField(blocks: AnthropicBlock[]): string | AnthropicBlock[] {
  if (blocks.length === 1 && blocks[0].cache_control === undefined) return blocks[0].text as string;
  return blocks;
}

function stopSequences(stop: unknown): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  const list = typeof stop === 'string' ? [stop] : stop;
  if (!Array.isArray(list) || list.some((entry) => typeof entry !== 'string')) {
    throw badRequest('invalid_parameter', '`stop` must be a string or an array of strings', 'stop');
  }
  const sequences = list.filter((entry: string) => entry !== '');
  return sequences.length > 0 ? sequences : undefined;
}

/** `user` (or its successor `safety_identifier`) names the end user; Anthropic takes it as metadata.user_id. */
function endUser(body: OpenAIBody): string | undefined {
  for (const name of ['user', 'safety_identifier'] as const) {
    const value = body[name];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string') throw badRequest('invalid_parameter', `\`${name}\` must be a string`, name);
    return value;
  }
  return undefined;
}

interface OutputFormat {
  /** Native structured output: `output_config.format`. */
  format?: Record<string, unknown>;
  /** A system instruction, for JSON mode, which has no native counterpart. */
  instruction?: string;
}

/**
 * `response_format`: json_schema → Anthropic structured outputs (`output_config.format`, constrained decoding,
 * so the text answer always parses against the schema); json_object → a system instruction (Anthropic has no
 * schema-less JSON mode); text → nothing.
 */
function responseFormat(value: unknown): OutputFormat {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw badRequest('invalid_response_format', '`response_format` must be an object', 'response_format');
  switch (value.type) {
    case 'text':
      return {};
    case 'json_object':
      return { instruction: JSON_OBJECT_INSTRUCTION };
    case 'json_schema': {
      const schema = isRecord(value.json_schema) ? value.json_schema.schema : undefined;
      if (!isRecord(schema)) {
        throw badRequest('invalid_response_format', '`response_format.json_schema.schema` must be a JSON Schema object', 'response_format.json_schema.schema');
      }
      return { format: { type: 'json_schema', schema } };
    }
    default:
      throw badRequest('invalid_response_format', `\`response_format.type\` '${String(value.type)}' is not supported by Anthropic; use text, json_object or json_schema`, 'response_format.type');
  }
}
