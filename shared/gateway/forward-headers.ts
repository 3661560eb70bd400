import { badRequest } from '../http/errors.js';
import { assertJsonNesting } from '../http/json-nesting.js';

// Headers a caller may never pass through x-gw-forward-headers: connection-level ones, ones gw computes
// itself, and credentials gw converts per provider.
const NEVER_FORWARDED = new Set([
  'authorization',
  'proxy-authorization',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'expect',
  'cookie',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
]);

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const MAX_FORWARDED = 32;

/**
 * Reads `x-gw-forward-headers` (comma-separated, or a JSON array) and returns the named headers of the request.
 * Naming a header that may not be forwarded is an error, not a silent drop, so a misconfiguration shows.
 */
export function parseForwardHeaders(value: string | undefined, headers: Record<string, string>): Record<string, string> {
  if (value === undefined || value.trim() === '') return {};
  const names = readNames(value.trim());
  if (names.length > MAX_FORWARDED) {
    throw badRequest('invalid_forward_headers', `x-gw-forward-headers may name at most ${MAX_FORWARDED} headers`, 'x-gw-forward-headers');
  }
  const forwarded: Record<string, string> = {};
  for (const raw of names) {
    const name = raw.trim().toLowerCase();
    if (!HEADER_NAME.test(name)) {
      throw badRequest('invalid_forward_headers', `x-gw-forward-headers: "${raw}" is not a valid header name`, 'x-gw-forward-headers');
    }
    if (NEVER_FORWARDED.has(name) || name.startsWith('x-gw-')) {
      throw badRequest('invalid_forward_headers', `x-gw-forward-headers: "${name}" cannot be forwarded (gw's own, hop-by-hop and credential headers are handled by gw)`, 'x-gw-forward-headers');
    }
    const headerValue = headers[name];
    if (headerValue !== undefined) forwarded[name] = headerValue;
  }
  return forwarded;
}

function readNames(value: string): string[] {
  if (!value.startsWith('[')) return value.split(',').filter((name) => name.trim() !== '');
  assertJsonNesting(value, 'x-gw-forward-headers', 'x-gw-forward-headers');
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw badRequest('invalid_forward_headers', 'x-gw-forward-headers must be a comma-separated list or a JSON array of header names', 'x-gw-forward-headers');
  }
  if (!Array.isArray(parsed) || parsed.some((name) => typeof name !== 'string')) {
    throw badRequest('invalid_forward_headers', 'x-gw-forward-headers must be a JSON array of strings', 'x-gw-forward-headers');
  }
  return parsed as string[];
}
