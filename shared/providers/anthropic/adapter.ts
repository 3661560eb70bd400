import type { AdapterInput, ProviderAdapter, UpstreamCall } from '../types.js';
import { ANTHROPIC_BASE_URL, DEFAULT_ANTHROPIC_VERSION } from './constants.js';
import { summariseAnthropicError } from './errors.js';
import { toAnthropicMessagesBody } from './request-body.js';
import { fromAnthropicMessage } from './response.js';
import { createAnthropicStreamTranslator } from './stream.js';

/**
 * Anthropic's Messages API behind the OpenAI chat-completions format. Only chat is offered: Anthropic has no
 * legacy completions or embeddings endpoint.
 */
export const anthropicAdapter: ProviderAdapter = {
  slug: 'anthropic',
  aliases: [],
  endpoints: ['chat'],
  buildCall(input: AdapterInput): UpstreamCall {
    const body = toAnthropicMessagesBody(input);
    const base = (input.target.customHost ?? ANTHROPIC_BASE_URL).replace(/\/+$/, '');
    return { url: `${base}/messages`, headers: anthropicHeaders(input), body: JSON.stringify(body) };
  },
  toOpenAIResponse: fromAnthropicMessage,
  toOpenAIError: summariseAnthropicError,
  createStreamTranslator: createAnthropicStreamTranslator,
};

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
