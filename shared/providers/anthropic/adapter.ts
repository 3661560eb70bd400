import type { AdapterInput, ProviderAdapter, UpstreamCall } from '../types.js';
import { ANTHROPIC_BASE_URL } from './constants.js';
import { summariseAnthropicError } from './errors.js';
import { anthropicHeaders } from './headers.js';
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
