import { randomBytes } from 'node:crypto';
import type { OpenAIFinishReason, OpenAIUsage } from '../common/openai-types.js';
import { openAIUsage } from '../common/usage.js';
import type { ProviderErrorSummary } from '../types.js';
import type { GeminiCandidate, GeminiUsageMetadata } from './gemini-types.js';

/** Reasons Gemini stops because a filter intervened rather than because the answer was complete. */
const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION']);

/**
 * Finishes where Gemini tried to call a function and failed to produce a valid call. OpenAI's finish reasons
 * have no word for that, and a `stop` with empty content would hide it, so the answer is an explicit error.
 */
const MALFORMED_CALL = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL']);

export function malformedCallError(candidate: GeminiCandidate): ProviderErrorSummary | undefined {
  if (!candidate.finishReason || !MALFORMED_CALL.has(candidate.finishReason)) return undefined;
  const detail = candidate.finishMessage ? `: ${candidate.finishMessage.slice(0, 500)}` : '';
  return {
    message: `The model produced a function call that could not be parsed (Gemini finishReason ${candidate.finishReason})${detail}`,
    type: 'upstream_error',
    code: 'malformed_function_call',
    param: null,
  };
}

/**
 * Gemini `finishReason` → OpenAI `finish_reason`; a turn that called functions always ends in `tool_calls`
 * (`function_call` for a legacy `functions` request).
 */
export function toFinishReason(reason: string, calledFunctions: boolean, legacyFunctions = false): OpenAIFinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(reason)) return 'content_filter';
  if (!calledFunctions) return 'stop';
  return legacyFunctions ? 'function_call' : 'tool_calls';
}

/**
 * Gemini usage → OpenAI usage. Thought tokens are billed as output, so they count in `completion_tokens` (as
 * OpenAI counts reasoning tokens) and are reported again under `reasoning_tokens`; cached tokens are part of the
 * prompt count already. Tool-use prompt tokens (grounding) are input too.
 */
export function toOpenAIUsage(usage: GeminiUsageMetadata | undefined): OpenAIUsage {
  const thoughts = usage?.thoughtsTokenCount;
  return openAIUsage({
    promptTokens: (usage?.promptTokenCount ?? 0) + (usage?.toolUsePromptTokenCount ?? 0),
    completionTokens: (usage?.candidatesTokenCount ?? 0) + (thoughts ?? 0),
    cachedTokens: usage?.cachedContentTokenCount,
    reasoningTokens: thoughts,
  });
}

/** Gemini function calls have no ids (or ids OpenAI clients never saw); gw makes one per call. */
export function newToolCallId(): string {
  return `call_${randomBytes(12).toString('base64url')}`;
}

/** The thought signature travels on the tool call under the name Google's OpenAI-compatible endpoint uses. */
export function signatureExtra(signature: string | undefined): Record<string, unknown> {
  return signature ? { extra_content: { google: { thought_signature: signature } } } : {};
}
