import { GatewayError } from '../../http/errors.js';
import { newChatCompletionId, nowSeconds } from '../common/chunks.js';
import { isRecord, stringField } from '../common/json-guards.js';
import type { OpenAIToolCall } from '../common/openai-types.js';
import type { AdapterInput } from '../types.js';
import { finishReasonFrom, mergeTokenCounts, NO_TOKENS, usageFrom } from './mapping.js';
import { usesLegacyFunctions } from './request-tools.js';
import { citationsOf, type UrlCitation } from './web-search.js';

/**
 * An Anthropic Message → an OpenAI `chat.completion`. Text blocks join into `content`; `tool_use` blocks become
 * `tool_calls` with JSON-string arguments (or one `function_call` for a legacy `functions` request); thinking
 * becomes `reasoning_content`, and the signed thinking blocks themselves are kept in `thinking_blocks` so a
 * client can send them back in a tool-use loop. Web search citations become `annotations` (web-search.ts); the
 * server tool's own blocks (the search and its encrypted results) have no OpenAI counterpart and are left out.
 */
export function fromAnthropicMessage(input: AdapterInput, message: unknown): Record<string, unknown> {
  if (!isRecord(message) || !Array.isArray(message.content)) {
    throw new GatewayError(502, 'upstream_invalid_response', 'Anthropic answered with a body that is not a Message', {
      type: 'upstream_error',
      providerError: message,
    });
  }
  const legacy = usesLegacyFunctions(input.body);
  const text: string[] = [];
  const reasoning: string[] = [];
  const thinkingBlocks: Array<Record<string, unknown>> = [];
  const toolCalls: OpenAIToolCall[] = [];
  const annotations: UrlCitation[] = [];
  let written = 0;
  for (const block of message.content as unknown[]) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') {
      annotations.push(...citationsOf(block, written, block.text.length));
      text.push(block.text);
      written += block.text.length;
    }
    else if (block.type === 'thinking' && typeof block.thinking === 'string') {
      reasoning.push(block.thinking);
      thinkingBlocks.push({ type: 'thinking', thinking: block.thinking, signature: block.signature ?? null });
    } else if (block.type === 'redacted_thinking' && typeof block.data === 'string') {
      thinkingBlocks.push({ type: 'redacted_thinking', data: block.data });
    } else if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    }
  }

  const joined = text.join('');
  const reply: Record<string, unknown> = { role: 'assistant', content: joined === '' && toolCalls.length > 0 ? null : joined, refusal: null };
  if (legacy && toolCalls.length > 0) reply.function_call = toolCalls[0].function;
  else if (toolCalls.length > 0) reply.tool_calls = toolCalls;
  if (annotations.length > 0) reply.annotations = annotations;
  if (reasoning.length > 0) reply.reasoning_content = reasoning.join('');
  if (thinkingBlocks.length > 0) reply.thinking_blocks = thinkingBlocks;

  return {
    id: stringField(message, 'id') ?? newChatCompletionId(),
    object: 'chat.completion',
    created: nowSeconds(),
    model: stringField(message, 'model') ?? input.body.model,
    choices: [{ index: 0, message: reply, logprobs: null, finish_reason: finishReasonFrom(message.stop_reason, legacy) }],
    usage: usageFrom(mergeTokenCounts(NO_TOKENS, message.usage)),
  };
}
