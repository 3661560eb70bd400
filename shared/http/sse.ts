import { createParser, type EventSourceMessage } from 'eventsource-parser';

const encoder = new TextEncoder();

/** One SSE `data:` event. Payload objects are JSON-encoded; strings (like `[DONE]`) go as they are. */
export function encodeSseData(payload: unknown): Uint8Array {
  const data = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return encoder.encode(`data: ${data}\n\n`);
}

export function encodeSseEvent(event: string, payload: unknown): Uint8Array {
  const data = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return encoder.encode(`event: ${event}\ndata: ${data}\n\n`);
}

export const SSE_DONE = encodeSseData('[DONE]');

/**
 * Incremental SSE decoder over raw bytes: byte chunks may split events, lines or UTF-8 characters anywhere.
 * Returns the complete events found so far.
 */
export class SseDecoder {
  private readonly decoder = new TextDecoder();
  private pending: EventSourceMessage[] = [];
  private readonly parser = createParser({ onEvent: (event) => this.pending.push(event) });

  push(chunk: Uint8Array): EventSourceMessage[] {
    this.parser.feed(this.decoder.decode(chunk, { stream: true }));
    return this.drain();
  }

  end(): EventSourceMessage[] {
    const tail = this.decoder.decode();
    // A final event without its blank line still counts: feed the terminator so the parser emits it.
    this.parser.feed(`${tail}\n\n`);
    return this.drain();
  }

  private drain(): EventSourceMessage[] {
    const events = this.pending;
    this.pending = [];
    return events;
  }
}

export type { EventSourceMessage };
