import type { OpenAIFinishReason, OpenAIUsage } from '../common/openai-types.js';
import { openAIUsage } from '../common/usage.js';
import type { ProviderErrorSummary } from '../types.js';
import { asRecord, countOf } from './json.js';

/**
 * `malformed_tool_use` / `malformed_model_output`: the model's output (a tool call's input, or the answer
 * itself) could not be parsed. OpenAI's finish reasons have no word for it and a `stop` would hide it, so the
 * answer is an explicit 502 error naming it.
 */
export function malformedOutputError(stopReason: unknown): ProviderErrorSummary | undefined {
  if (stopReason !== 'malformed_tool_use' && stopReason !== 'malformed_model_output') return undefined;
  const what = stopReason === 'malformed_tool_use' ? 'a tool call whose input could not be parsed' : 'output that could not be parsed';
  return { message: `The model produced ${what} (Bedrock stopReason ${stopReason})`, type: 'upstream_error', code: stopReason, param: null };
}

/**
 * Converse `stopReason` → OpenAI `finish_reason`. Unknown future reasons read as `stop`, the neutral end.
 * `model_context_window_exceeded` means the answer was cut, like `max_tokens`.
 */
export function finishReasonOf(stopReason: unknown, legacyFunctions: boolean): OpenAIFinishReason {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return legacyFunctions ? 'function_call' : 'tool_calls';
    case 'content_filtered':
    case 'guardrail_intervened':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/**
 * Converse `usage` → OpenAI usage. Bedrock counts cache reads and writes apart from `inputTokens`, while
 * OpenAI's `prompt_tokens` includes cached tokens, so the prompt total is the sum of the three.
 */
export function usageOf(raw: unknown): OpenAIUsage {
  const usage = asRecord(raw);
  const input = countOf(usage.inputTokens) ?? 0;
  const cacheRead = countOf(usage.cacheReadInputTokens);
  const cacheWrite = countOf(usage.cacheWriteInputTokens) ?? 0;
  return openAIUsage({
    promptTokens: input + (cacheRead ?? 0) + cacheWrite,
    completionTokens: countOf(usage.outputTokens) ?? 0,
    cachedTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  });
}
