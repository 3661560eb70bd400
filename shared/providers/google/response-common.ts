import { randomBytes } from 'node:crypto';
import type { OpenAIFinishReason, OpenAIUsage } from '../common/openai-types.js';
import { openAIUsage } from '../common/usage.js';
import type { GeminiUsageMetadata } from './gemini-types.js';

/** Reasons Gemini stops because a filter intervened rather than because the answer was complete. */
const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION']);

/** Gemini `finishReason` → OpenAI `finish_reason`; a turn that called functions always ends in `tool_calls`. */
export function toFinishReason(reason: string, calledFunctions: boolean): OpenAIFinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(reason)) return 'content_filter';
  return calledFunctions ? 'tool_calls' : 'stop';
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
