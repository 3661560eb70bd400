import { badRequest } from '../../http/errors.js';
import { isRecord } from '../common/json-guards.js';

type Json = Record<string, unknown>;

/**
 * OpenAI's web search (chat `web_search_options`, which the Responses dialect's `web_search` tool becomes) → the
 * Messages API's server tool `web_search_20250305`, which Anthropic runs on its side (also on Vertex AI), and its
 * citations back as OpenAI's `url_citation` annotations.
 *
 * `user_location.approximate` carries over field by field. `search_context_size` has no Anthropic counterpart (it
 * tunes how much page text OpenAI feeds the model) and is ignored: it changes no result's scope. Searches are
 * billed by Anthropic per search, on top of tokens (usage `server_tool_use.web_search_requests`).
 */
export const WEB_SEARCH_TOOL_TYPE = 'web_search_20250305';

export function webSearchTool(options: unknown): Json {
  if (!isRecord(options)) throw badRequest('invalid_parameter', '`web_search_options` must be an object', 'web_search_options');
  const tool: Json = { type: WEB_SEARCH_TOOL_TYPE, name: 'web_search' };
  const location = options.user_location;
  if (location !== undefined && location !== null) {
    const approximate = isRecord(location) ? location.approximate : undefined;
    if (!isRecord(approximate)) throw badRequest('invalid_parameter', '`web_search_options.user_location` must be {"type": "approximate", "approximate": {...}}', 'web_search_options.user_location');
    const fields: Json = { type: 'approximate' };
    for (const name of ['city', 'region', 'country', 'timezone']) if (typeof approximate[name] === 'string') fields[name] = approximate[name];
    tool.user_location = fields;
  }
  return tool;
}

/** One cited span of the answer's text, as OpenAI's chat `annotations` entry. */
export interface UrlCitation {
  type: 'url_citation';
  url_citation: { url: string; title: string; start_index: number; end_index: number };
}

/**
 * A text block's `web_search_result_location` citations → annotations over the block's span in the joined answer
 * (`start` is where the block begins in it). Anthropic cites a whole text block; OpenAI's indexes are characters.
 */
export function citationsOf(block: Json, start: number, length: number): UrlCitation[] {
  if (!Array.isArray(block.citations)) return [];
  const annotations: UrlCitation[] = [];
  for (const citation of block.citations) {
    if (!isRecord(citation) || citation.type !== 'web_search_result_location' || typeof citation.url !== 'string') continue;
    annotations.push({
      type: 'url_citation',
      url_citation: { url: citation.url, title: typeof citation.title === 'string' ? citation.title : '', start_index: start, end_index: start + length },
    });
  }
  return annotations;
}

/** The query of a `server_tool_use` block of the web search tool, if it is one. */
export function searchQueryOf(block: Json): string | undefined {
  if (block.type !== 'server_tool_use' || block.name !== 'web_search' || !isRecord(block.input)) return undefined;
  return typeof block.input.query === 'string' ? block.input.query : '';
}
