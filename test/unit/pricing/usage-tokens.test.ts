import { describe, expect, it } from 'vitest';
import { tokenCounts } from '../../../shared/observability/pricing/usage-tokens.js';

describe('token counts from a usage object', () => {
  it('reads OpenAI usage with its details', () => {
    expect(tokenCounts({ prompt_tokens: 100, completion_tokens: 50, total_tokens: 150, prompt_tokens_details: { cached_tokens: 40 }, completion_tokens_details: { reasoning_tokens: 20 } })).toEqual({
      input: 100,
      output: 50,
      cachedInput: 40,
      cacheWrite: 0,
      reasoning: 20,
      total: 150,
    });
  });

  it('reads the cache writes gw keeps from Anthropic and Bedrock', () => {
    expect(tokenCounts({ prompt_tokens: 1_000, completion_tokens: 10, total_tokens: 1_010, prompt_tokens_details: { cached_tokens: 200 }, cache_creation_input_tokens: 700 })).toMatchObject({
      cachedInput: 200,
      cacheWrite: 700,
    });
  });

  it('reads embeddings usage (prompt tokens only)', () => {
    expect(tokenCounts({ prompt_tokens: 8, total_tokens: 8 })).toEqual({ input: 8, output: 0, cachedInput: 0, cacheWrite: 0, reasoning: 0, total: 8 });
  });

  it('never lets details exceed their totals', () => {
    expect(tokenCounts({ prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 50 }, completion_tokens_details: { reasoning_tokens: 9 } })).toMatchObject({ cachedInput: 10, reasoning: 5, total: 15 });
  });

  it.each([[undefined], [{}], [{ prompt_tokens: 'many' }], [{ prompt_tokens: -1 }]])('is undefined without counts: %j', (usage) => {
    expect(tokenCounts(usage as Record<string, unknown> | undefined)).toBeUndefined();
  });
});
