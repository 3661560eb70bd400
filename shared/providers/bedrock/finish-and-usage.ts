import type { OpenAIFinishReason, OpenAIUsage } from '../common/openai-types.js';
import { openAIUsage } from '../common/usage.js';
import { asRecord, countOf } from './json.js';

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
  });
}
