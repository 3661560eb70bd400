import { roundUsd } from './cost.js';

/**
 * What a provider bills per web search it runs on its side, on top of the tokens: Anthropic's web search tool is
 * $10 per 1,000 searches on the Claude API and for Claude on Vertex AI; Gemini's Grounding with Google Search is
 * $35 per 1,000 grounded prompts on Gemini 2.5 (Gemini 3 bills $14 per 1,000 queries; gw counts each query at the
 * higher figure, an upper bound). Anthropic's and Google's pricing pages, 2026-11. The count comes from the canonical
 * usage's `server_tool_use.web_search_requests` (the Anthropic and Gemini mappings).
 */
function usdPerSearch(provider: string, model: string): number {
  if (provider === 'anthropic') return 0.01;
  if (provider === 'vertex-ai') return /claude/i.test(model) ? 0.01 : 0.035;
  if (provider === 'google') return 0.035;
  return 0;
}

export function webSearchFee(provider: string, model: string, usage: Record<string, unknown>): number {
  const tools = usage.server_tool_use;
  const searches = typeof tools === 'object' && tools !== null ? (tools as Record<string, unknown>).web_search_requests : undefined;
  if (typeof searches !== 'number' || !Number.isFinite(searches) || searches <= 0) return 0;
  return roundUsd(searches * usdPerSearch(provider, model));
}
