import type { StreamEvent, StreamTranslator } from '../../../../shared/providers/types.js';

export interface ReassembledMessage {
  ids: string[];
  models: string[];
  role?: string;
  content: string;
  reasoning: string;
  toolCalls: Array<{ id?: string; name?: string; arguments: string }>;
  functionCall?: { name?: string; arguments: string };
  thinkingBlocks?: unknown;
  finishReason?: string;
  usage?: Record<string, unknown>;
  done: boolean;
  errors: Array<Extract<StreamEvent, { type: 'error' }>>;
}

interface Delta {
  role?: string;
  content?: string;
  reasoning_content?: string;
  tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>;
  function_call?: { name?: string; arguments?: string };
  thinking_blocks?: unknown;
}

/** Folds OpenAI chunk events back into one message, the way an OpenAI client accumulates a stream. */
export function reassemble(events: StreamEvent[]): ReassembledMessage {
  const message: ReassembledMessage = { ids: [], models: [], content: '', reasoning: '', toolCalls: [], done: false, errors: [] };
  for (const event of events) {
    if (event.type === 'done') message.done = true;
    else if (event.type === 'error') message.errors.push(event);
    else {
      const chunk = event.chunk as { id: string; model: string; choices: Array<{ delta: Delta; finish_reason: string | null }>; usage?: Record<string, unknown> };
      if (!message.ids.includes(chunk.id)) message.ids.push(chunk.id);
      if (!message.models.includes(chunk.model)) message.models.push(chunk.model);
      if (chunk.usage) message.usage = chunk.usage;
      for (const choice of chunk.choices) {
        const delta = choice.delta;
        if (delta.role) message.role = delta.role;
        if (delta.content) message.content += delta.content;
        if (delta.reasoning_content) message.reasoning += delta.reasoning_content;
        if (delta.thinking_blocks) message.thinkingBlocks = delta.thinking_blocks;
        for (const call of delta.tool_calls ?? []) {
          const slot = (message.toolCalls[call.index] ??= { arguments: '' });
          if (call.id) slot.id = call.id;
          if (call.function?.name) slot.name = call.function.name;
          slot.arguments += call.function?.arguments ?? '';
        }
        if (delta.function_call) {
          message.functionCall ??= { arguments: '' };
          if (delta.function_call.name) message.functionCall.name = delta.function_call.name;
          message.functionCall.arguments += delta.function_call.arguments ?? '';
        }
        if (choice.finish_reason) message.finishReason = choice.finish_reason;
      }
    }
  }
  return message;
}

/** Feeds `bytes` to the translator in pieces cut at the given offsets, then ends it. */
export function feed(translator: StreamTranslator, bytes: Uint8Array, cuts: number[] = []): StreamEvent[] {
  const points = [...new Set(cuts.filter((cut) => cut > 0 && cut < bytes.length))].sort((a, b) => a - b);
  const events: StreamEvent[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    events.push(...translator.push(bytes.subarray(start, point)));
    start = point;
  }
  events.push(...translator.end());
  return events;
}
