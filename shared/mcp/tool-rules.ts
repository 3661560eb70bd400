import type { McpToolRules } from './types.js';

/** `name` matches `pattern`: the exact name, or any name starting with the part before a trailing `*`. */
function matches(pattern: string, name: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
}

/**
 * Whether a tool is reachable through gw: never when `deny` names it; otherwise only when `allow` names it,
 * if there is an `allow` list at all. Deny wins so a broad allow (`search_*`) can carve out exceptions.
 */
export function isToolAllowed(rules: McpToolRules | undefined, name: string): boolean {
  if (rules?.deny?.some((pattern) => matches(pattern, name))) return false;
  if (rules?.allow === undefined) return true;
  return rules.allow.some((pattern) => matches(pattern, name));
}

/** The tools of a `tools/list` result a caller may see (entries without a string name are dropped too). */
export function visibleTools<Tool>(rules: McpToolRules | undefined, tools: readonly Tool[]): Tool[] {
  return tools.filter((tool) => {
    const name = (tool as { name?: unknown } | null)?.name;
    return typeof name === 'string' && isToolAllowed(rules, name);
  });
}
