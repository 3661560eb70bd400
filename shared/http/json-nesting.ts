import { badRequest } from './errors.js';

/** Deepest JSON nesting (objects and arrays) gw accepts in anything a caller sends: bodies and JSON headers. */
export const MAX_JSON_NESTING = 64;

/**
 * Refuses JSON text nested deeper than MAX_JSON_NESTING with a 400 `json_too_deep`. Every parser of caller
 * JSON calls it before JSON.parse: the walkers after the parse (zod, guardrails, MCP inspection, redaction)
 * recurse, so a body nested thousands deep would overflow the stack (a 500) instead of being refused.
 * `what` names the input in the message ("The request body", "x-gw-config").
 */
export function assertJsonNesting(text: string, what: string, param: string | null = null): void {
  const depth = jsonNestingDepth(text);
  if (depth > MAX_JSON_NESTING) {
    throw badRequest('json_too_deep', `${what} nests JSON ${depth > 10_000 ? 'more than 10000' : depth} levels deep; the limit is ${MAX_JSON_NESTING}`, param);
  }
}

/**
 * How deep objects and arrays nest in a JSON text, counted without parsing (brackets inside strings are
 * skipped). Stops counting once past the limit by a wide margin: the answer is a refusal either way.
 */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x7b || code === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > 10_001) return deepest;
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    }
  }
  return deepest;
}
