import { GatewayError } from '../../http/errors.js';
import { newChatCompletionId, nowSeconds } from '../common/chunks.js';
import type { OpenAIToolCall } from '../common/openai-types.js';
import { finishReasonOf, malformedOutputError, usageOf } from './finish-and-usage.js';
import { asRecord, isRecord, stringOf } from './json.js';
import { thinkingBlockOf, type ThinkingBlock } from './thinking-blocks.js';

/**
 * A Converse answer → an OpenAI `chat.completion`: text blocks joined into `content`, `toolUse` blocks into
 * `tool_calls` (arguments as a JSON string), reasoning into `reasoning_content` plus the signed
 * `thinking_blocks` a client sends back to continue a tool-use loop with thinking enabled.
 */
export function converseToChatCompletion(providerBody: unknown, model: string, legacyFunctions: boolean): Record<string, unknown> {
  const body = asRecord(providerBody);
  const message = asRecord(body.output).message;
  if (!isRecord(message) || !Array.isArray(message.content)) {
    throw new GatewayError(502, 'invalid_provider_response', 'Bedrock answered without output.message.content', {
      type: 'upstream_error',
      providerError: providerBody,
    });
  }
  const malformed = malformedOutputError(body.stopReason);
  if (malformed) throw new GatewayError(502, malformed.code!, malformed.message, { type: 'upstream_error', providerError: providerBody });
  let text = '';
  let reasoning = '';
  const toolCalls: OpenAIToolCall[] = [];
  const thinkingBlocks: ThinkingBlock[] = [];
  for (const block of message.content as unknown[]) {
    if (!isRecord(block)) continue;
    if (typeof block.text === 'string') text += block.text;
    else if (isRecord(block.toolUse)) toolCalls.push(toolCallOf(block.toolUse, toolCalls.length));
    else if (isRecord(block.reasoningContent)) {
      const reasoningText = asRecord(block.reasoningContent.reasoningText);
      reasoning += stringOf(reasoningText.text) ?? '';
      const thinking = thinkingBlockOf(stringOf(reasoningText.text) ?? '', stringOf(reasoningText.signature), stringOf(block.reasoningContent.redactedContent));
      if (thinking) thinkingBlocks.push(thinking);
    }
  }

  const choiceMessage: Record<string, unknown> = {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
    refusal: null,
  };
  if (reasoning !== '') choiceMessage.reasoning_content = reasoning;
  if (thinkingBlocks.length > 0) choiceMessage.thinking_blocks = thinkingBlocks;
  if (toolCalls.length > 0) {
    // The legacy format holds one call; a model asked through `functions` answers with one.
    if (legacyFunctions) choiceMessage.function_call = toolCalls[0].function;
    else choiceMessage.tool_calls = toolCalls;
  }
  return {
    id: newChatCompletionId(),
    object: 'chat.completion',
    created: nowSeconds(),
    model,
    choices: [{ index: 0, message: choiceMessage, logprobs: null, finish_reason: finishReasonOf(body.stopReason, legacyFunctions) }],
    usage: usageOf(body.usage),
  };
}

function toolCallOf(toolUse: Record<string, unknown>, position: number): OpenAIToolCall {
  return {
    id: stringOf(toolUse.toolUseId) ?? `call_${position}`,
    type: 'function',
    function: { name: stringOf(toolUse.name) ?? '', arguments: JSON.stringify(toolUse.input ?? {}) },
  };
}
