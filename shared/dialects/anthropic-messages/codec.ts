import type { DialectCodec } from '../types.js';
import { namedEvent } from '../sse.js';
import { anthropicErrorBody, anthropicStreamError } from './errors.js';
import { buildNativeMessagesCall, createNativeMessagesStream, nativeMessageUsage } from './native.js';
import { buildVertexClaudeCall, isVertexClaude } from './vertex-native.js';
import { buildBedrockClaudeCall, isBedrockClaude } from './bedrock-native.js';
import { collectMessage, replayMessage } from './native-cache.js';
import { messagesToCanonical, validateMessagesBody } from './request.js';
import { canonicalToMessage } from './response.js';
import { MessagesStreamEncoder } from './stream.js';

/** Anthropic's Messages API (`POST /v1/messages`) ⇄ the canonical chat form. */
export const anthropicMessagesCodec: DialectCodec = {
  name: 'messages',
  validate: validateMessagesBody,
  // Anthropic itself, Claude on Vertex AI (rawPredict) and Claude on Bedrock (InvokeModel) take the Messages body.
  speaksNatively: (provider, target, body) =>
    provider === 'anthropic' || (provider === 'vertex-ai' && isVertexClaude(target, body)) || (provider === 'bedrock' && isBedrockClaude(body)),
  toCanonical: messagesToCanonical,
  fromCanonical: (completion, body) => canonicalToMessage(completion, body.model),
  createStreamEncoder: (body) => new MessagesStreamEncoder(body),
  buildNativeCall: (input) => {
    if (input.provider === 'vertex-ai') return buildVertexClaudeCall(input);
    if (input.provider === 'bedrock') return buildBedrockClaudeCall(input);
    return buildNativeMessagesCall(input);
  },
  createNativeStreamTranslator: createNativeMessagesStream,
  nativeUsage: nativeMessageUsage,
  createNativeAnswerCollector: collectMessage,
  replayNativeAnswer: replayMessage,
  nativeStreamError: (error) => [namedEvent('error', anthropicStreamError(error))],
  errorBody: anthropicErrorBody,
};
