import type { AdapterInput } from '../types.js';
import { DEFAULT_ANTHROPIC_VERSION } from './constants.js';

/**
 * The caller's `Authorization: Bearer` token goes as `x-api-key`. `anthropic-version` is always sent (the
 * target's, a forwarded one, or the default); `anthropic-beta` when the target names betas. gw's own headers
 * are set last, so a forwarded header cannot replace them.
 */
export function anthropicHeaders(input: AdapterInput): Record<string, string> {
  const { target, forwardHeaders } = input;
  const headers: Record<string, string> = {
    ...forwardHeaders,
    'content-type': 'application/json',
    'anthropic-version': target.anthropicVersion ?? forwardHeaders['anthropic-version'] ?? DEFAULT_ANTHROPIC_VERSION,
  };
  if (target.apiKey) headers['x-api-key'] = target.apiKey;
  if (target.anthropicBeta) headers['anthropic-beta'] = target.anthropicBeta;
  if (input.stream) headers.accept = 'text/event-stream';
  return headers;
}
