import { GatewayError } from '../../http/errors.js';
import { newChatCompletionId, nowSeconds } from '../common/chunks.js';
import type { OpenAIUsage } from '../common/openai-types.js';
import type { AdapterInput } from '../types.js';
import type { GeminiCandidate, GeminiGenerateContentResponse } from './gemini-types.js';
import { usesLegacyFunctions } from './tools.js';
import { groundingAnnotations, groundingSearches } from './grounding.js';
import { malformedCallError, newToolCallId, signatureExtra, toFinishReason, toOpenAIUsage } from './response-common.js';

/**
 * Gemini `GenerateContentResponse` → OpenAI `chat.completion`: one choice per candidate, text parts joined
 * into `content`, thought parts into `reasoning_content`, function calls into `tool_calls` (ids made by gw,
 * arguments as a JSON string). A prompt blocked before any candidate is one empty `content_filter` choice.
 */
export function toChatCompletion(input: AdapterInput, providerBody: unknown): Record<string, unknown> {
  if (typeof providerBody !== 'object' || providerBody === null) {
    throw new GatewayError(502, 'invalid_provider_response', 'Gemini answered with a body that is not a JSON object', { type: 'upstream_error' });
  }
  const response = providerBody as GeminiGenerateContentResponse;
  const candidates = response.candidates ?? [];
  const malformed = candidates.map(malformedCallError).find((error) => error !== undefined);
  if (malformed) throw new GatewayError(502, malformed.code!, malformed.message, { type: 'upstream_error', providerError: providerBody });
  const choices =
    candidates.length > 0
      ? candidates.map((candidate, position) => toChoice(candidate, candidate.index ?? position, usesLegacyFunctions(input.body)))
      : [{ index: 0, message: { role: 'assistant', content: null, refusal: null }, logprobs: null, finish_reason: response.promptFeedback?.blockReason ? 'content_filter' : 'stop' }];
  return {
    id: response.responseId ? `chatcmpl-${response.responseId}` : newChatCompletionId(),
    object: 'chat.completion',
    created: nowSeconds(),
    model: typeof input.body.model === 'string' ? input.body.model : (response.modelVersion ?? 'unknown'),
    choices,
    usage: withSearches(toOpenAIUsage(response.usageMetadata), candidates.reduce((sum, candidate) => sum + groundingSearches(candidate.groundingMetadata), 0)),
  };
}

/** The searches a grounded answer ran, in the usage field every adapter uses for them (priced per search). */
export function withSearches(usage: OpenAIUsage, searches: number): OpenAIUsage {
  return searches > 0 ? { ...usage, server_tool_use: { web_search_requests: searches } } : usage;
}

function toChoice(candidate: GeminiCandidate, index: number, legacyFunctions: boolean): Record<string, unknown> {
  let content = '';
  let reasoning = '';
  const toolCalls: Record<string, unknown>[] = [];
  for (const part of candidate.content?.parts ?? []) {
    if (part.functionCall) {
      toolCalls.push({
        id: newToolCallId(),
        type: 'function',
        function: { name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) },
        ...signatureExtra(part.thoughtSignature),
      });
    } else if (typeof part.text === 'string') {
      if (part.thought) reasoning += part.text;
      else content += part.text;
    }
  }
  const message: Record<string, unknown> = { role: 'assistant', content: content === '' && toolCalls.length > 0 ? null : content, refusal: null };
  if (reasoning) message.reasoning_content = reasoning;
  const annotations = groundingAnnotations(candidate.groundingMetadata, content);
  if (annotations.length > 0) message.annotations = annotations;
  if (legacyFunctions && toolCalls.length > 0) message.function_call = (toolCalls[0] as { function: unknown }).function;
  else if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return { index, message, logprobs: null, finish_reason: toFinishReason(candidate.finishReason ?? 'STOP', toolCalls.length > 0, legacyFunctions) };
}
