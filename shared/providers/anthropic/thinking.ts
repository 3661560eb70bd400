import { badRequest } from '../../http/errors.js';
import { isRecord } from '../common/json-guards.js';
import { refuseOrRecordDrop } from '../common/unsupported-params.js';
import type { AdapterInput, OpenAIBody } from '../types.js';
import { DEFAULT_MAX_TOKENS } from './constants.js';

/**
 * Claude's extended thinking, shared by every target that serves Claude by translation (Anthropic, Vertex AI
 * Claude, Bedrock Claude). Two ways in: Anthropic's own `thinking` object, passed on as it is, or OpenAI's
 * `reasoning_effort` (Responses' `reasoning.effort` arrives here as the same field), mapped to a fixed
 * `budget_tokens` per level. `none` and `minimal` switch thinking off: Claude has no "think a little" below the
 * API's 1,024-token minimum budget. An explicit `thinking` wins over `reasoning_effort`.
 */
export const THINKING_BUDGET_BY_EFFORT: Readonly<Record<string, number | null>> = {
  none: null,
  minimal: null,
  low: 1024,
  medium: 4096,
  high: 16384,
};

export interface ThinkingPlan {
  /** The `thinking` object to send, when thinking is on (or explicitly `disabled`/`adaptive`). */
  thinking?: Record<string, unknown>;
  /** The output-token limit to send: raised so the thinking budget fits in front of the requested output. */
  maxTokens: number;
  /** The body with sampling parameters thinking cannot take removed (only under x-gw-drop-unsupported-params). */
  body: OpenAIBody;
}

/**
 * Reads `thinking` / `reasoning_effort` and the token limit. With a budget, `max_tokens` becomes budget +
 * requested output (the requested limit, or 4,096), since the budget counts against `max_tokens` and
 * Anthropic and Bedrock require `max_tokens` > `budget_tokens`; an explicit `thinking` with a limit that
 * already exceeds its budget is left alone. Thinking also fixes sampling: `temperature` other than 1,
 * `top_k`, `top_p` below 0.95 and a forced tool choice are refused (or dropped on request), never sent to be
 * refused upstream.
 */
export function planThinking(input: AdapterInput, body: OpenAIBody, providerName: string): ThinkingPlan {
  const requested = requestedMaxTokens(body);
  const explicit = explicitThinking(body.thinking);
  const fromEffort = explicit === undefined ? thinkingFromEffort(body.reasoning_effort) : undefined;
  const thinking = explicit ?? fromEffort;
  const budget = thinking?.type === 'enabled' ? (thinking.budget_tokens as number) : undefined;
  if (budget === undefined) return { thinking, maxTokens: requested ?? DEFAULT_MAX_TOKENS, body };

  const maxTokens = explicit !== undefined && requested !== undefined && requested > budget ? requested : budget + (requested ?? DEFAULT_MAX_TOKENS);
  return { thinking, maxTokens, body: withoutThinkingConflicts(input, body, providerName) };
}

/** `reasoning_effort` → a `thinking` object; undefined when no effort was given or it switches thinking off. */
export function thinkingFromEffort(effort: unknown): Record<string, unknown> | undefined {
  if (effort === undefined || effort === null) return undefined;
  if (typeof effort !== 'string' || !(effort in THINKING_BUDGET_BY_EFFORT)) {
    throw badRequest('invalid_parameter', `\`reasoning_effort\` must be one of ${Object.keys(THINKING_BUDGET_BY_EFFORT).join(', ')}`, 'reasoning_effort');
  }
  const budget = THINKING_BUDGET_BY_EFFORT[effort];
  return budget === null ? undefined : { type: 'enabled', budget_tokens: budget };
}

function requestedMaxTokens(body: OpenAIBody): number | undefined {
  // max_completion_tokens is OpenAI's current name; max_tokens the deprecated one.
  for (const name of ['max_completion_tokens', 'max_tokens'] as const) {
    const value = body[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw badRequest('invalid_parameter', `\`${name}\` must be a positive integer`, name);
    return value;
  }
  return undefined;
}

/** `thinking` is Anthropic's own extended-thinking object: checked, then passed on unchanged. */
function explicitThinking(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw badRequest('invalid_parameter', '`thinking` must be an object like {"type":"enabled","budget_tokens":2048}', 'thinking');
  if (value.type === 'enabled') {
    if (typeof value.budget_tokens !== 'number' || !Number.isInteger(value.budget_tokens) || value.budget_tokens < 1) {
      throw badRequest('invalid_parameter', '`thinking.budget_tokens` must be a positive integer when thinking is enabled', 'thinking.budget_tokens');
    }
    return value;
  }
  if (value.type === 'disabled' || value.type === 'adaptive') return value;
  throw badRequest('invalid_parameter', '`thinking.type` must be "enabled", "adaptive" or "disabled"', 'thinking.type');
}

/** Sampling settings Claude refuses while thinking (Anthropic's extended-thinking compatibility rules). */
function withoutThinkingConflicts(input: AdapterInput, body: OpenAIBody, providerName: string): OpenAIBody {
  const conflicts: string[] = [];
  if (body.temperature !== undefined && body.temperature !== null && body.temperature !== 1) conflicts.push('temperature');
  if (body.top_k !== undefined && body.top_k !== null) conflicts.push('top_k');
  if (typeof body.top_p === 'number' && body.top_p < 0.95) conflicts.push('top_p');
  if (forcesToolUse(body.tool_choice)) conflicts.push('tool_choice');
  if (forcesToolUse(body.function_call)) conflicts.push('function_call');
  if (conflicts.length === 0) return body;
  refuseOrRecordDrop(input, providerName, conflicts, 'with extended thinking (reasoning_effort or thinking): Claude then takes only temperature 1, top_p from 0.95 to 1, no top_k and no forced tool choice');
  const cleaned = { ...body };
  for (const name of conflicts) delete cleaned[name];
  return cleaned;
}

function forcesToolUse(choice: unknown): boolean {
  return choice === 'required' || (isRecord(choice) && (choice.type === 'function' || typeof choice.name === 'string'));
}
