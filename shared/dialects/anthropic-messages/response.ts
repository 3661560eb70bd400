import { randomBytes } from 'node:crypto';
import { isRecord, numberField, recordField } from '../../providers/common/json-guards.js';

type Json = Record<string, unknown>;

/** OpenAI `finish_reason` → Anthropic `stop_reason`. */
export function stopReasonFrom(finishReason: unknown): string {
  switch (finishReason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/**
 * Canonical usage → Anthropic's: `input_tokens` excludes cache reads (OpenAI's `prompt_tokens` includes them)
 * and cache writes, which gw keeps as `cache_creation_input_tokens` when an Anthropic-family target reported them.
 */
export function anthropicUsageFrom(usage: unknown): Json {
  const record = isRecord(usage) ? usage : {};
  const cacheRead = numberField(recordField(record, 'prompt_tokens_details') ?? {}, 'cached_tokens') ?? 0;
  const cacheCreation = numberField(record, 'cache_creation_input_tokens') ?? 0;
  const prompt = numberField(record, 'prompt_tokens') ?? 0;
  return {
    input_tokens: Math.max(0, prompt - cacheRead - cacheCreation),
    output_tokens: numberField(record, 'completion_tokens') ?? 0,
    cache_creation_input_tokens: cacheCreation,
    cache_read_input_tokens: cacheRead,
  };
}

export function messageId(canonicalId: unknown): string {
  return typeof canonicalId === 'string' && canonicalId.startsWith('msg_') ? canonicalId : `msg_${randomBytes(12).toString('hex')}`;
}

/** A canonical `chat.completion` → an Anthropic Message: thinking, then text, then tool_use blocks. */
export function canonicalToMessage(completion: Json, model: unknown): Json {
  const choice = Array.isArray(completion.choices) && isRecord(completion.choices[0]) ? completion.choices[0] : {};
  const reply = recordField(choice, 'message') ?? {};
  const content: Json[] = [];
  if (Array.isArray(reply.thinking_blocks)) {
    for (const block of reply.thinking_blocks) if (isRecord(block)) content.push({ ...block, signature: block.signature ?? '' });
  } else if (typeof reply.reasoning_content === 'string' && reply.reasoning_content !== '') {
    content.push({ type: 'thinking', thinking: reply.reasoning_content, signature: '' });
  }
  if (typeof reply.content === 'string' && reply.content !== '') content.push({ type: 'text', text: reply.content });
  if (Array.isArray(reply.tool_calls)) {
    for (const call of reply.tool_calls) {
      if (!isRecord(call) || !isRecord(call.function)) continue;
      content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseArguments(call.function.arguments) });
    }
  }
  return {
    id: messageId(completion.id),
    type: 'message',
    role: 'assistant',
    model: typeof completion.model === 'string' ? completion.model : model,
    content,
    stop_reason: stopReasonFrom(choice.finish_reason),
    stop_sequence: null,
    usage: anthropicUsageFrom(completion.usage),
  };
}

/** Tool arguments arrive as a JSON string; a model that produced invalid JSON still gets its text back. */
export function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string' || raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return { _raw: raw };
  }
}
