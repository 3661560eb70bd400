import { badRequest } from '../../http/errors.js';
import type { OpenAIBody } from '../types.js';
import { toGeminiSchema } from './schema.js';

/** OpenAI sampling parameters and their `generationConfig` names; values go through unchanged. */
const SAME_VALUE_PARAMS: ReadonlyArray<[openai: string, gemini: string]> = [
  ['temperature', 'temperature'],
  ['top_p', 'topP'],
  ['top_k', 'topK'],
  ['n', 'candidateCount'],
  ['seed', 'seed'],
  ['presence_penalty', 'presencePenalty'],
  ['frequency_penalty', 'frequencyPenalty'],
];

/** reasoning_effort → thinking budget for Gemini 2.x, the same steps Google's OpenAI-compatible endpoint uses. */
const BUDGET_BY_EFFORT: Record<string, number> = { none: 0, minimal: 1024, low: 1024, medium: 8192, high: 24576 };
const EFFORTS = Object.keys(BUDGET_BY_EFFORT);

export function toGenerationConfig(body: OpenAIBody, model: string): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const [openai, gemini] of SAME_VALUE_PARAMS) {
    if (body[openai] !== undefined && body[openai] !== null) config[gemini] = body[openai];
  }
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== undefined && maxTokens !== null) config.maxOutputTokens = maxTokens;
  if (body.stop !== undefined && body.stop !== null) config.stopSequences = stopSequences(body.stop);
  Object.assign(config, responseFormat(body.response_format));
  const thinking = thinkingConfig(body, model);
  if (thinking) config.thinkingConfig = thinking;
  return config;
}

function stopSequences(stop: unknown): string[] {
  if (typeof stop === 'string') return [stop];
  if (Array.isArray(stop) && stop.every((entry) => typeof entry === 'string')) return stop;
  throw badRequest('invalid_parameter', 'stop must be a string or an array of strings', 'stop');
}

function responseFormat(format: unknown): Record<string, unknown> {
  if (format === undefined || format === null) return {};
  const record = format as { type?: unknown; json_schema?: { schema?: unknown } };
  switch (record.type) {
    case 'text':
      return {};
    case 'json_object':
      return { responseMimeType: 'application/json' };
    case 'json_schema': {
      const schema = record.json_schema?.schema;
      if (schema === undefined) throw badRequest('invalid_response_format', 'response_format.json_schema.schema is required', 'response_format.json_schema.schema');
      return { responseMimeType: 'application/json', responseSchema: toGeminiSchema(schema, 'response_format.json_schema.schema') };
    }
    default:
      throw badRequest('invalid_response_format', 'response_format.type must be text, json_object or json_schema', 'response_format.type');
  }
}

/**
 * `thinking` (Anthropic-style, which gw accepts for every provider) → `thinkingConfig.thinkingBudget`, with
 * thought summaries switched on so they come back as `reasoning_content`. `reasoning_effort` (OpenAI-style)
 * → a budget for Gemini 2.x, and Gemini 3's own `thinkingLevel` for newer models.
 */
function thinkingConfig(body: OpenAIBody, model: string): Record<string, unknown> | undefined {
  const thinking = body.thinking as { type?: unknown; budget_tokens?: unknown } | undefined | null;
  if (thinking !== undefined && thinking !== null) {
    if (thinking.type === 'disabled') return { thinkingBudget: 0 };
    if (thinking.type !== 'enabled') throw badRequest('invalid_parameter', 'thinking.type must be "enabled" or "disabled"', 'thinking.type');
    if (thinking.budget_tokens === undefined) return { includeThoughts: true };
    if (typeof thinking.budget_tokens !== 'number' || !Number.isInteger(thinking.budget_tokens) || thinking.budget_tokens < -1) {
      throw badRequest('invalid_parameter', 'thinking.budget_tokens must be an integer of at least 0 (or -1: Gemini decides the budget)', 'thinking.budget_tokens');
    }
    return { thinkingBudget: thinking.budget_tokens, includeThoughts: thinking.budget_tokens !== 0 };
  }
  const effort = body.reasoning_effort;
  if (effort === undefined || effort === null) return undefined;
  if (typeof effort !== 'string' || !EFFORTS.includes(effort)) {
    throw badRequest('invalid_parameter', `reasoning_effort must be one of ${EFFORTS.join(', ')}`, 'reasoning_effort');
  }
  if (usesThinkingBudget(model)) return { thinkingBudget: BUDGET_BY_EFFORT[effort] };
  // Gemini 3 cannot switch thinking off; "minimal" is the closest it has to "none".
  return { thinkingLevel: effort === 'none' ? 'minimal' : effort };
}

function usesThinkingBudget(model: string): boolean {
  return /(^|\/)gemini-[12]\./.test(model);
}
