import type { OpenAIUsage } from './openai-types.js';

export interface UsageCounts {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
  reasoningTokens?: number;
}

/** OpenAI's usage object from provider counts; details appear only when the provider reported them. */
export function openAIUsage(counts: UsageCounts): OpenAIUsage {
  const usage: OpenAIUsage = {
    prompt_tokens: counts.promptTokens,
    completion_tokens: counts.completionTokens,
    total_tokens: counts.promptTokens + counts.completionTokens,
  };
  if (counts.cachedTokens !== undefined) usage.prompt_tokens_details = { cached_tokens: counts.cachedTokens };
  if (counts.reasoningTokens !== undefined) usage.completion_tokens_details = { reasoning_tokens: counts.reasoningTokens };
  return usage;
}
