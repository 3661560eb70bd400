import { describe, expect, it } from 'vitest';
import { tokenCounts } from '../../../../shared/observability/pricing/usage-tokens.js';
import { usageFrom } from '../../../../shared/providers/anthropic/mapping.js';
import { usageOf } from '../../../../shared/providers/bedrock/finish-and-usage.js';

/** Cache writes are reported apart from cache reads, and priced as writes. */
describe('cache-write tokens', () => {
  it('Bedrock: cacheWriteInputTokens → prompt_tokens_details.cache_creation_tokens, reads stay cached_tokens', () => {
    const usage = usageOf({ inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 300, cacheWriteInputTokens: 1200, totalTokens: 1515 });
    expect(usage).toEqual({
      prompt_tokens: 1510,
      completion_tokens: 5,
      total_tokens: 1515,
      prompt_tokens_details: { cached_tokens: 300, cache_creation_tokens: 1200 },
      cache_creation_input_tokens: 1200,
    });
    expect(tokenCounts(usage as unknown as Record<string, unknown>)).toMatchObject({ input: 1510, cachedInput: 300, cacheWrite: 1200 });
  });

  it('Anthropic: a write without reads still reports both fields, and no write reports neither', () => {
    expect(usageFrom({ input: 4, output: 2, cacheCreation: 96 })).toEqual({
      prompt_tokens: 100,
      completion_tokens: 2,
      total_tokens: 102,
      prompt_tokens_details: { cache_creation_tokens: 96 },
      cache_creation_input_tokens: 96,
    });
    expect(usageFrom({ input: 4, output: 2, cacheRead: 0, cacheCreation: 0 })).toEqual({ prompt_tokens: 4, completion_tokens: 2, total_tokens: 6, prompt_tokens_details: { cached_tokens: 0 } });
  });

  it('pricing reads the write count from prompt_tokens_details when only that is given', () => {
    expect(tokenCounts({ prompt_tokens: 1000, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 100, cache_creation_tokens: 600 } })).toMatchObject({ cachedInput: 100, cacheWrite: 600 });
  });
});
