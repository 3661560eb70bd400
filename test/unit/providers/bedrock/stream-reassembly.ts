import { ConverseStreamTranslator } from '../../../../shared/providers/bedrock/stream.js';
import type { StreamEvent } from '../../../../shared/providers/types.js';

/** Feeds byte parts through a fresh translator, then ends it; returns every event in order. */
export function translateParts(parts: Uint8Array[], options: { legacyFunctions?: boolean; model?: string } = {}): StreamEvent[] {
  const translator = new ConverseStreamTranslator(options.model ?? 'anthropic.claude-3-5-sonnet-20240620-v1:0', options.legacyFunctions ?? false, 'chatcmpl-test');
  const events: StreamEvent[] = [];
  for (const part of parts) events.push(...translator.push(part));
  events.push(...translator.end());
  return events;
}

export interface Reassembled {
  content: string;
  reasoning: string;
  toolCalls: Array<{ index: number; id?: string; name?: string; arguments: string }>;
  finishReason?: string;
  usage?: unknown;
  /** The last `thinking_blocks` snapshot. */
  thinkingBlocks?: unknown;
  done: number;
  errors: Array<Extract<StreamEvent, { type: 'error' }>>;
}

type Delta = { content?: string; reasoning_content?: string; thinking_blocks?: unknown; tool_calls?: Array<{ index: number; id?: string; function: { name?: string; arguments?: string } }> };

/** What a client would build from the chunks: the message, the finish reason and the usage. */
export function reassemble(events: StreamEvent[]): Reassembled {
  const result: Reassembled = { content: '', reasoning: '', toolCalls: [], done: 0, errors: [] };
  for (const event of events) {
    if (event.type === 'done') result.done++;
    else if (event.type === 'error') result.errors.push(event);
    else {
      const chunk = event.chunk as { usage?: unknown; choices: Array<{ delta: Delta; finish_reason: string | null }> };
      if (chunk.usage) result.usage = chunk.usage;
      for (const choice of chunk.choices) {
        result.content += choice.delta.content ?? '';
        result.reasoning += choice.delta.reasoning_content ?? '';
        if (choice.delta.thinking_blocks) result.thinkingBlocks = choice.delta.thinking_blocks;
        for (const call of choice.delta.tool_calls ?? []) {
          const existing = result.toolCalls.find((candidate) => candidate.index === call.index);
          if (existing) existing.arguments += call.function.arguments ?? '';
          else result.toolCalls.push({ index: call.index, id: call.id, name: call.function.name, arguments: call.function.arguments ?? '' });
        }
        if (choice.finish_reason) result.finishReason = choice.finish_reason;
      }
    }
  }
  return result;
}
