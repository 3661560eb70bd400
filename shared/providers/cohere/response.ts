import { newChatCompletionId, nowSeconds } from '../common/chunks.js';
import { isRecord, numberField, recordField } from '../common/json-guards.js';
import type { OpenAIFinishReason, OpenAIUsage } from '../common/openai-types.js';
import { openAIUsage } from '../common/usage.js';

/** Cohere `finish_reason` → OpenAI's. `ERROR` never reaches here as a success (see `toChatCompletion`). */
export function toFinishReason(reason: unknown): OpenAIFinishReason {
  switch (reason) {
    case 'MAX_TOKENS':
      return 'length';
    case 'TOOL_CALL':
      return 'tool_calls';
    default:
      return 'stop';
  }
}

/**
 * Cohere's usage → OpenAI's. `billed_units` are what Cohere charges (the prompt without its own system
 * preamble), so they are the counts gw prices; `tokens` (what the model saw) is the fallback when billing is
 * absent. `cached_tokens` is reported by newer models.
 */
export function toOpenAIUsage(usage: unknown): OpenAIUsage {
  const record = isRecord(usage) ? usage : {};
  const billed = recordField(record, 'billed_units') ?? {};
  const tokens = recordField(record, 'tokens') ?? {};
  const cached = numberField(record, 'cached_tokens');
  return openAIUsage({
    promptTokens: numberField(billed, 'input_tokens') ?? numberField(tokens, 'input_tokens') ?? 0,
    completionTokens: numberField(billed, 'output_tokens') ?? numberField(tokens, 'output_tokens') ?? 0,
    ...(cached !== undefined ? { cachedTokens: cached } : {}),
  });
}

/** Cohere `POST /v2/chat` answer → OpenAI `chat.completion`. Text parts join; thinking parts become reasoning. */
export function toChatCompletion(model: string, answer: unknown): Record<string, unknown> {
  const body = isRecord(answer) ? answer : {};
  const message = recordField(body, 'message') ?? {};
  const parts = Array.isArray(message.content) ? message.content.filter(isRecord) : [];
  // A tool-calling answer carries the model's plan instead of content: it is the text before the calls, as OpenAI
  // models send it (and request.ts sends it back as `tool_plan`).
  const text = parts.filter((part) => part.type === 'text').map((part) => String(part.text ?? '')).join('') || (typeof message.tool_plan === 'string' ? message.tool_plan : '');
  const reasoning = parts.filter((part) => part.type === 'thinking').map((part) => String(part.thinking ?? '')).join('');
  const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord).map(toOpenAIToolCall) : [];
  const out: Record<string, unknown> = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
  if (reasoning !== '') out.reasoning_content = reasoning;
  if (toolCalls.length > 0) out.tool_calls = toolCalls;
  return {
    id: typeof body.id === 'string' ? body.id : newChatCompletionId(),
    object: 'chat.completion',
    created: nowSeconds(),
    model,
    choices: [{ index: 0, message: out, logprobs: null, finish_reason: toFinishReason(body.finish_reason) }],
    usage: toOpenAIUsage(body.usage),
  };
}

function toOpenAIToolCall(call: Record<string, unknown>): Record<string, unknown> {
  const fn = recordField(call, 'function') ?? {};
  return { id: call.id, type: 'function', function: { name: fn.name, arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}) } };
}
