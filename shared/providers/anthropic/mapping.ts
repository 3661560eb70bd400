import { isRecord, numberField } from '../common/json-guards.js';
import type { OpenAIFinishReason, OpenAIUsage } from '../common/openai-types.js';
import { openAIUsage } from '../common/usage.js';

/**
 * Anthropic `stop_reason` → OpenAI `finish_reason`. A tool call answers `tool_calls`, or `function_call` for a
 * request made with the legacy `functions` API. `pause_turn` (a server tool paused the turn) ends this answer
 * like a normal stop; `refusal` is a content filter in OpenAI's terms.
 */
export function finishReasonFrom(stopReason: unknown, legacyFunctions: boolean): OpenAIFinishReason {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return legacyFunctions ? 'function_call' : 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/** Token counts as Anthropic reports them; later reports (message_delta) replace earlier ones field by field. */
export interface AnthropicTokenCounts {
  input: number;
  output: number;
  cacheRead?: number;
  cacheCreation?: number;
  /** Web searches Anthropic ran (`server_tool_use.web_search_requests`), priced per search (pricing/web-search-fees.ts). */
  webSearches?: number;
}

export function mergeTokenCounts(counts: AnthropicTokenCounts, usage: unknown): AnthropicTokenCounts {
  if (!isRecord(usage)) return counts;
  return {
    input: numberField(usage, 'input_tokens') ?? counts.input,
    output: numberField(usage, 'output_tokens') ?? counts.output,
    cacheRead: numberField(usage, 'cache_read_input_tokens') ?? counts.cacheRead,
    cacheCreation: numberField(usage, 'cache_creation_input_tokens') ?? counts.cacheCreation,
    webSearches: (isRecord(usage.server_tool_use) ? numberField(usage.server_tool_use, 'web_search_requests') : undefined) ?? counts.webSearches,
  };
}

export type AnthropicOpenAIUsage = OpenAIUsage;

/**
 * OpenAI usage from Anthropic counts. Anthropic's `input_tokens` excludes cache reads and writes while
 * OpenAI's `prompt_tokens` includes cached tokens, so prompt tokens are the sum of all three; cache reads are
 * `prompt_tokens_details.cached_tokens`. Cache writes, priced differently, are
 * `prompt_tokens_details.cache_creation_tokens` (and `cache_creation_input_tokens`) when there were any.
 */
export function usageFrom(counts: AnthropicTokenCounts): AnthropicOpenAIUsage {
  const cacheRead = counts.cacheRead ?? 0;
  const cacheCreation = counts.cacheCreation ?? 0;
  const usage = openAIUsage({
    promptTokens: counts.input + cacheRead + cacheCreation,
    completionTokens: counts.output,
    cachedTokens: counts.cacheRead,
    cacheWriteTokens: cacheCreation,
  });
  if (counts.webSearches) usage.server_tool_use = { web_search_requests: counts.webSearches };
  return usage;
}

export const NO_TOKENS: AnthropicTokenCounts = { input: 0, output: 0 };
