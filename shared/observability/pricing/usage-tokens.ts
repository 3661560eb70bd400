/**
 * A response's token counts, read from the OpenAI-shaped `usage` every adapter produces. `input` includes
 * cached and cache-write tokens and `output` includes reasoning tokens, as in OpenAI's usage; the details say
 * how many of them are priced differently.
 */
export interface TokenCounts {
  input: number;
  output: number;
  /** Prompt tokens read from the provider's prompt cache (`prompt_tokens_details.cached_tokens`). */
  cachedInput: number;
  /** Prompt tokens written to the provider's prompt cache (`prompt_tokens_details.cache_creation_tokens`). */
  cacheWrite: number;
  /** Completion tokens spent on reasoning (`completion_tokens_details.reasoning_tokens`). */
  reasoning: number;
  total: number;
}

/** The counts of a usage object, or undefined when it has no token counts at all. */
export function tokenCounts(usage: Record<string, unknown> | undefined): TokenCounts | undefined {
  if (!usage) return undefined;
  const input = count(usage.prompt_tokens) ?? count(usage.input_tokens);
  const output = count(usage.completion_tokens) ?? count(usage.output_tokens);
  const total = count(usage.total_tokens);
  if (input === undefined && output === undefined && total === undefined) return undefined;
  const inputTokens = input ?? 0;
  const outputTokens = output ?? (total !== undefined ? Math.max(0, total - inputTokens) : 0);
  const cachedInput = Math.min(inputTokens, count(detail(usage.prompt_tokens_details, 'cached_tokens')) ?? 0);
  const written = count(detail(usage.prompt_tokens_details, 'cache_creation_tokens')) ?? count(usage.cache_creation_input_tokens);
  const cacheWrite = Math.min(inputTokens - cachedInput, written ?? 0);
  return {
    input: inputTokens,
    output: outputTokens,
    cachedInput,
    cacheWrite,
    reasoning: Math.min(outputTokens, count(detail(usage.completion_tokens_details, 'reasoning_tokens')) ?? 0),
    total: total ?? inputTokens + outputTokens,
  };
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function detail(value: unknown, field: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[field] : undefined;
}
