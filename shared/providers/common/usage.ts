import type { OpenAIUsage } from './openai-types.js';

export interface UsageCounts {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
  /** Prompt tokens written to the provider's prompt cache (Anthropic, Bedrock), apart from cache reads. */
  cacheWriteTokens?: number;
  reasoningTokens?: number;
}

/**
 * OpenAI's usage object from provider counts; details appear only when the provider reported them. Cache writes
 * (when there were any) are `prompt_tokens_details.cache_creation_tokens`, next to the reads in `cached_tokens`,
 * and again as `cache_creation_input_tokens` for readers of Anthropic's name.
 */
export function openAIUsage(counts: UsageCounts): OpenAIUsage {
  const usage: OpenAIUsage = {
    prompt_tokens: counts.promptTokens,
    completion_tokens: counts.completionTokens,
    total_tokens: counts.promptTokens + counts.completionTokens,
  };
  if (counts.cachedTokens !== undefined) usage.prompt_tokens_details = { cached_tokens: counts.cachedTokens };
  if (counts.cacheWriteTokens !== undefined && counts.cacheWriteTokens > 0) {
    usage.prompt_tokens_details = { ...usage.prompt_tokens_details, cache_creation_tokens: counts.cacheWriteTokens };
    usage.cache_creation_input_tokens = counts.cacheWriteTokens;
  }
  if (counts.reasoningTokens !== undefined) usage.completion_tokens_details = { reasoning_tokens: counts.reasoningTokens };
  return usage;
}
