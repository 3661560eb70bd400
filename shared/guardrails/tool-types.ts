/**
 * How a `tools.blockedTypes` / `tools.allowedTypes` entry matches a tool's type. Providers version and preview
 * their built-in tools (`web_search`, `web_search_preview`, `web_search_preview_2025_03_11`,
 * `web_search_20250305`, `bash_20250124`, `computer_use_preview`, …), so an exact match would let a block list
 * be passed by sending another version of the same tool. An entry matches:
 * - its own name exactly (`function`, `mcp`, `code_interpreter`);
 * - the same name followed by `_preview` and/or a date or version (`_20250305`, `_2025_03_11`): the family's
 *   versions, so `web_search` matches every web search tool above and `bash` matches `bash_20250124`;
 * - with a trailing `*`, every type that starts with what precedes it (`computer*` matches `computer_20250124`
 *   and `computer_use_preview`; `*` alone matches every type).
 * Matching is case-sensitive, as providers' types are.
 */
export function toolTypeMatches(entry: string, type: string): boolean {
  if (entry.endsWith('*')) return type.startsWith(entry.slice(0, -1));
  if (type === entry) return true;
  return type.startsWith(`${entry}_`) && VERSION_SUFFIX.test(type.slice(entry.length + 1));
}

export function toolTypeListed(entries: readonly string[], type: string): boolean {
  return entries.some((entry) => toolTypeMatches(entry, type));
}

// `preview`, a date (`20250305`, `2025_03_11`, `2025-03-11`) or a version number (`v2`, `2`), or preview then one of those.
const VERSION_SUFFIX = /^(?:preview(?:_(?:\d{4}[_-]?\d{2}[_-]?\d{2}|v?\d+))?|\d{4}[_-]?\d{2}[_-]?\d{2}|v?\d+)$/;
