import { anthropicHeaders } from '../../providers/anthropic/headers.js';
import { ANTHROPIC_BASE_URL } from '../../providers/anthropic/constants.js';
import { statusForAnthropicError, summariseAnthropicError } from '../../providers/anthropic/errors.js';
import { mergeTokenCounts, NO_TOKENS, usageFrom, type AnthropicTokenCounts } from '../../providers/anthropic/mapping.js';
import { isRecord } from '../../providers/common/json-guards.js';
import type { UpstreamCall } from '../../providers/types.js';
import { PassThroughStreamTranslator } from '../native-stream.js';
import { BedrockInvokeStreamDecoder } from './bedrock-native.js';
import type { NativeCallInput, NativeStreamTranslator } from '../types.js';

/**
 * The client's Messages body sent to Anthropic as it is (cache_control, thinking blocks, server tools kept).
 * gw's `user` (from metadata `_user`) becomes `metadata.user_id` unless the body names one; the client's
 * `anthropic-version` and `anthropic-beta` headers go with it, since they belong to the dialect.
 */
export function buildNativeMessagesCall(input: NativeCallInput, path = '/messages'): UpstreamCall {
  const { user, ...body } = input.body;
  if (typeof user === 'string' && !(isRecord(body.metadata) && body.metadata.user_id !== undefined)) {
    body.metadata = { ...(isRecord(body.metadata) ? body.metadata : {}), user_id: user };
  }
  if (path === '/messages') body.stream = input.stream;
  const target = {
    ...input.target,
    anthropicVersion: input.target.anthropicVersion ?? input.requestHeaders['anthropic-version'],
    anthropicBeta: input.target.anthropicBeta ?? input.requestHeaders['anthropic-beta'],
  };
  const headers = anthropicHeaders({ endpoint: 'chat', body, stream: input.stream, target, forwardHeaders: input.forwardHeaders });
  const base = (input.target.customHost ?? ANTHROPIC_BASE_URL).replace(/\/+$/, '');
  return { url: `${base}${path}`, headers, body: JSON.stringify(body) };
}

/** Canonical usage of an Anthropic Message. */
export function nativeMessageUsage(message: Record<string, unknown>): Record<string, unknown> {
  return { ...usageFrom(mergeTokenCounts(NO_TOKENS, message.usage)) };
}

export function createNativeMessagesStream(input: NativeCallInput): NativeStreamTranslator {
  let counts: AnthropicTokenCounts = NO_TOKENS;
  const decoder = input.provider === 'bedrock' ? new BedrockInvokeStreamDecoder() : undefined;
  return new PassThroughStreamTranslator({
    isContent: (type) => type.startsWith('content_block') || type === 'message_delta',
    isEnd: (type) => type === 'message_stop',
    errorOf: (event) => {
      if (event.type !== 'error') return undefined;
      const status = statusForAnthropicError(event);
      return { status, error: summariseAnthropicError(status, event) };
    },
    usage: (event) => {
      if (event.type === 'message_start' && isRecord(event.message)) counts = mergeTokenCounts(counts, event.message.usage);
      else if (event.type === 'message_delta') counts = mergeTokenCounts(counts, event.usage);
      return { ...usageFrom(counts) };
    },
  }, decoder);
}
