import { OpenAISseTranslator } from '../openai-compatible/stream.js';
import type { StreamEvent, StreamTranslator } from '../types.js';
import { summariseWatsonxError, toChatChunk } from './response.js';

/**
 * `/ml/v1/text/chat_stream` sends SSE `event: message` whose data are OpenAI-like chunks (model as `model_id`, no
 * `object`), the last one with `usage`, and no `[DONE]`. The OpenAI SSE reader does the framing (and completes a
 * stream that ends after its finish chunk); each chunk is then given OpenAI's fields, and an error event is read
 * with watsonx's error shape.
 */
export class WatsonxStreamTranslator implements StreamTranslator {
  private readonly sse = new OpenAISseTranslator();

  constructor(private readonly model: unknown) {}

  push(bytes: Uint8Array): StreamEvent[] {
    return this.sse.push(bytes).map((event) => this.mapped(event));
  }

  end(): StreamEvent[] {
    return this.sse.end().map((event) => this.mapped(event));
  }

  private mapped(event: StreamEvent): StreamEvent {
    if (event.type === 'chunk') return { type: 'chunk', chunk: toChatChunk(event.chunk, this.model) };
    if (event.type === 'error' && event.providerError !== undefined) return { ...event, error: summariseWatsonxError(500, event.providerError) };
    return event;
  }
}
