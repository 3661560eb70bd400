import { isRecord } from '../common/json-guards.js';
import type { OpenAIBody } from '../types.js';

type Json = Record<string, unknown>;

/**
 * OpenAI's web search (chat `web_search_options`) → Gemini's Grounding with Google Search (`{googleSearch: {}}`),
 * and its grounding metadata back as OpenAI's `url_citation` annotations.
 *
 * Google cannot combine its search tool with function declarations in one request (its grounding guide says so),
 * so a request that also declares functions keeps `web_search_options` unsupported (400, or dropped under the
 * header). `user_location` has no counterpart (Gemini takes coordinates only) and does not narrow a search, so it
 * is not sent. Google bills grounded requests per prompt or per query depending on the model; gw counts each
 * search query (at least one per grounded answer) at the higher per-prompt price (pricing/web-search-fees.ts).
 */
export function groundsWithSearch(body: OpenAIBody): boolean {
  if (body.web_search_options === undefined || body.web_search_options === null) return false;
  const declares = (value: unknown) => Array.isArray(value) && value.length > 0;
  return !declares(body.tools) && !declares(body.functions);
}

export const GOOGLE_SEARCH_TOOL = { googleSearch: {} };

/** One candidate's grounding → annotations over `text` (the candidate's answer text as the client receives it). */
export function groundingAnnotations(metadata: unknown, text: string): Json[] {
  if (!isRecord(metadata)) return [];
  const chunks = Array.isArray(metadata.groundingChunks) ? metadata.groundingChunks : [];
  const supports = Array.isArray(metadata.groundingSupports) ? metadata.groundingSupports : [];
  const annotations: Json[] = [];
  let searchFrom = 0;
  for (const support of supports) {
    if (!isRecord(support) || !isRecord(support.segment) || typeof support.segment.text !== 'string') continue;
    // Google's segment offsets are bytes of one part; the segment's own text locates it in characters instead.
    const start = text.indexOf(support.segment.text, searchFrom);
    if (start < 0) continue;
    const end = start + support.segment.text.length;
    searchFrom = start;
    for (const chunkIndex of Array.isArray(support.groundingChunkIndices) ? support.groundingChunkIndices : []) {
      const web = typeof chunkIndex === 'number' && isRecord(chunks[chunkIndex]) ? (chunks[chunkIndex] as Json).web : undefined;
      if (!isRecord(web) || typeof web.uri !== 'string') continue;
      annotations.push({ type: 'url_citation', url_citation: { url: web.uri, title: typeof web.title === 'string' ? web.title : '', start_index: start, end_index: end } });
    }
  }
  return annotations;
}

/** How many searches a grounded answer ran, for the fee: its queries, at least one once it was grounded. */
export function groundingSearches(metadata: unknown): number {
  if (!isRecord(metadata)) return 0;
  const queries = Array.isArray(metadata.webSearchQueries) ? metadata.webSearchQueries.length : 0;
  const grounded = queries > 0 || (Array.isArray(metadata.groundingChunks) && metadata.groundingChunks.length > 0);
  return grounded ? Math.max(1, queries) : 0;
}
