import { SseDecoder, type EventSourceMessage } from '../../http/sse.js';
import { ChunkFactory, newChatCompletionId } from '../common/chunks.js';
import { isRecord, recordField } from '../common/json-guards.js';
import type { StreamEvent, StreamTranslator } from '../types.js';
import { summariseCohereError } from './errors.js';
import { toFinishReason, toOpenAIUsage } from './response.js';

/**
 * Cohere v2 chat SSE (`message-start`, `content-delta`, `tool-plan-delta`, `tool-call-start`/`-delta`,
 * `message-end`) → OpenAI `chat.completion.chunk` events. Usage arrives only in `message-end`, so the usage chunk
 * and `done` go out then; a body that ends without it was cut short, and the relay reports that.
 */
export class CohereStreamTranslator implements StreamTranslator {
  private readonly decoder = new SseDecoder();
  private readonly chunks: ChunkFactory;
  private readonly toolIndexes = new Map<number, number>();
  private started = false;
  private finished = false;

  constructor(model: string, id: string = newChatCompletionId()) {
    this.chunks = new ChunkFactory(id, model);
  }

  push(bytes: Uint8Array): StreamEvent[] {
    return this.translate(this.decoder.push(bytes));
  }

  end(): StreamEvent[] {
    return this.translate(this.decoder.end());
  }

  private translate(messages: EventSourceMessage[]): StreamEvent[] {
    const events: StreamEvent[] = [];
    for (const message of messages) {
      if (this.finished) break;
      const data = message.data.trim();
      if (data === '' || data === '[DONE]') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        this.finished = true;
        events.push({ type: 'error', error: { message: 'Cohere sent a stream event that is not JSON', code: 'invalid_provider_stream' }, providerError: data.slice(0, 500) });
        break;
      }
      if (isRecord(parsed)) this.translateEvent(parsed, events);
    }
    return events;
  }

  private translateEvent(event: Record<string, unknown>, events: StreamEvent[]): void {
    const delta = recordField(event, 'delta') ?? {};
    const message = recordField(delta, 'message') ?? {};
    const index = typeof event.index === 'number' ? event.index : 0;
    if (!this.started && event.type !== undefined) {
      this.started = true;
      events.push({ type: 'chunk', chunk: this.chunks.role() });
    }
    switch (event.type) {
      case 'content-delta': {
        const content = recordField(message, 'content') ?? {};
        if (typeof content.text === 'string' && content.text !== '') events.push({ type: 'chunk', chunk: this.chunks.content(content.text) });
        else if (typeof content.thinking === 'string' && content.thinking !== '') events.push({ type: 'chunk', chunk: this.chunks.reasoning(content.thinking) });
        return;
      }
      case 'tool-plan-delta':
        // The plan a model writes before calling tools is its visible text before the calls, as OpenAI models send it.
        if (typeof message.tool_plan === 'string' && message.tool_plan !== '') events.push({ type: 'chunk', chunk: this.chunks.content(message.tool_plan) });
        return;
      case 'tool-call-start': {
        const call = recordField(message, 'tool_calls') ?? {};
        const fn = recordField(call, 'function') ?? {};
        const toolIndex = this.toolIndexes.size;
        this.toolIndexes.set(index, toolIndex);
        events.push({ type: 'chunk', chunk: this.chunks.toolCallStart(toolIndex, String(call.id ?? ''), String(fn.name ?? '')) });
        if (typeof fn.arguments === 'string' && fn.arguments !== '') events.push({ type: 'chunk', chunk: this.chunks.toolCallArguments(toolIndex, fn.arguments) });
        return;
      }
      case 'tool-call-delta': {
        const fn = recordField(recordField(message, 'tool_calls') ?? {}, 'function') ?? {};
        const toolIndex = this.toolIndexes.get(index);
        if (toolIndex !== undefined && typeof fn.arguments === 'string') events.push({ type: 'chunk', chunk: this.chunks.toolCallArguments(toolIndex, fn.arguments) });
        return;
      }
      case 'message-end': {
        this.finished = true;
        if (delta.finish_reason === 'ERROR') {
          const error = summariseCohereError(500, isRecord(delta.error) ? delta.error : { message: typeof delta.error === 'string' ? delta.error : 'Cohere ended the stream with an error' });
          events.push({ type: 'error', status: 502, error, providerError: event });
          return;
        }
        events.push({ type: 'chunk', chunk: this.chunks.finish(toFinishReason(delta.finish_reason)) });
        events.push({ type: 'chunk', chunk: this.chunks.usage(toOpenAIUsage(delta.usage)) }, { type: 'done' });
        return;
      }
      default:
        // message-start, content-start/-end, tool-call-end, citation events: nothing an OpenAI client reads.
        return;
    }
  }
}
