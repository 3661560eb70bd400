import { roundUsd } from './cost.js';

/**
 * What a provider bills per web search it runs on its side, on top of the tokens: Anthropic's web search tool is
 * $10 per 1,000 searches on the Claude API and on Vertex AI (Anthropic's and Google's pricing pages, 2026-11).
 * The count comes from the canonical usage's `server_tool_use.web_search_requests` (the Anthropic mapping).
 */
const USD_PER_SEARCH: Readonly<Record<string, number>> = { anthropic: 0.01, 'vertex-ai': 0.01 };

export function webSearchFee(provider: string, usage: Record<string, unknown>): number {
  const tools = usage.server_tool_use;
  const searches = typeof tools === 'object' && tools !== null ? (tools as Record<string, unknown>).web_search_requests : undefined;
  if (typeof searches !== 'number' || !Number.isFinite(searches) || searches <= 0) return 0;
  return roundUsd(searches * (USD_PER_SEARCH[provider] ?? 0));
}
