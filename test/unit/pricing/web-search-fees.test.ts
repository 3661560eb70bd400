import { describe, expect, it } from 'vitest';
import { costOfUsage } from '../../../shared/observability/pricing/index.js';

// Class: a fee the provider bills outside tokens is part of the cost (budgets and analytics see it, not only tokens).
describe('web search fees in the cost of a response', () => {
  const tokens = { prompt_tokens: 900, completion_tokens: 40, total_tokens: 940 };

  it('adds $10 per 1,000 searches Anthropic ran to the token price', async () => {
    const plain = await costOfUsage('anthropic', 'claude-sonnet-4-5', tokens);
    const searched = await costOfUsage('anthropic', 'claude-sonnet-4-5', { ...tokens, server_tool_use: { web_search_requests: 2 } });
    expect(plain).toBeGreaterThan(0);
    expect(Math.round((searched! - plain!) * 1e6)).toBe(20_000);
  });

  it('adds $35 per 1,000 grounded Gemini searches', async () => {
    const plain = await costOfUsage('google', 'gemini-2.5-pro', tokens);
    const grounded = await costOfUsage('google', 'gemini-2.5-pro', { ...tokens, server_tool_use: { web_search_requests: 1 } });
    expect(Math.round((grounded! - plain!) * 1e6)).toBe(35_000);
  });

  it('adds nothing for providers that report no searches, or a count that is not a number', async () => {
    const plain = await costOfUsage('anthropic', 'claude-sonnet-4-5', tokens);
    expect(await costOfUsage('anthropic', 'claude-sonnet-4-5', { ...tokens, server_tool_use: { web_search_requests: 'many' } })).toBe(plain);
    expect(await costOfUsage('anthropic', 'claude-sonnet-4-5', { ...tokens, server_tool_use: { web_search_requests: -3 } })).toBe(plain);
  });
});
