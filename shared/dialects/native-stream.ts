import { SseDecoder } from '../http/sse.js';
import { isRecord } from '../providers/common/json-guards.js';
import type { ProviderErrorSummary, StreamEvent } from '../providers/types.js';
import type { NativeStreamTranslator } from './types.js';

/** How one dialect's native stream is read: which events hold, end, fail, and where usage is. */
export interface NativeStreamRules {
  /** Events before the first of these are held back, so an error right after the start can still fall back. */
  isContent(type: string): boolean;
  isEnd(type: string): boolean;
  /** An error event (in the dialect's shape): its status and gw's summary, or undefined when it is not one. */
  errorOf(event: Record<string, unknown>): { status: number; error: ProviderErrorSummary } | undefined;
  /** Folds the event's usage into what was seen so far (canonical shape). */
  usage(event: Record<string, unknown>, previous: Record<string, unknown> | undefined): Record<string, unknown> | undefined;
}

/** Splits a provider's stream bytes into events (`data` is one event's JSON): SSE unless the provider frames otherwise. */
export interface StreamFrameDecoder {
  push(bytes: Uint8Array): Array<{ event?: string; data: string }>;
  end(): Array<{ event?: string; data: string }>;
}

/**
 * A dialect stream relayed unchanged, event by event: each event goes out as it came (as a chunk whose `raw`
 * is the original data; the dialect edge restores the event name from its `type`), while usage is read on
 * the way for metering.
 */
export class PassThroughStreamTranslator implements NativeStreamTranslator {
  private held: StreamEvent[] = [];
  private committed = false;
  private over = false;
  private usage: Record<string, unknown> | undefined;

  constructor(
    private readonly rules: NativeStreamRules,
    private readonly decoder: StreamFrameDecoder = new SseDecoder(),
  ) {}

  push(bytes: Uint8Array): StreamEvent[] {
    return this.translate(this.decodeSafely(() => this.decoder.push(bytes)));
  }

  end(): StreamEvent[] {
    return this.translate(this.decodeSafely(() => this.decoder.end()));
  }

  /** Bytes that cannot be framed end the stream with a 502, like an event that is not JSON. */
  private decodeSafely(decode: () => Array<{ event?: string; data: string }>): Array<{ event?: string; data: string }> {
    try {
      return decode();
    } catch (error) {
      return [{ data: JSON.stringify({ type: 'error', error: { type: 'api_error', message: `The provider's stream could not be read: ${(error as Error).message}` } }) }];
    }
  }

  canonicalUsage(): Record<string, unknown> | undefined {
    return this.usage;
  }

  private translate(messages: Array<{ event?: string; data: string }>): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const message of messages) {
      if (this.over) break;
      const data = message.data.trim();
      if (data === '' || data === '[DONE]') continue;
      let event: unknown;
      try {
        event = JSON.parse(data);
      } catch {
        this.over = true;
        out.push({ type: 'error', status: 502, error: { message: 'The provider sent a stream event that is not JSON', type: 'upstream_error', code: 'upstream_invalid_stream' }, providerError: data.slice(0, 500) });
        break;
      }
      if (!isRecord(event)) continue;
      const type = typeof event.type === 'string' ? event.type : (message.event ?? '');
      const failure = this.rules.errorOf(event);
      if (failure) {
        this.over = true;
        out.push({ type: 'error', status: failure.status, error: failure.error, providerError: event });
        break;
      }
      this.usage = this.rules.usage(event, this.usage);
      const chunk: StreamEvent = { type: 'chunk', chunk: { type }, raw: data };
      if (!this.committed && !this.rules.isContent(type) && !this.rules.isEnd(type)) {
        this.held.push(chunk);
        continue;
      }
      if (!this.committed) {
        this.committed = true;
        out.push(...this.held);
        this.held = [];
      }
      out.push(chunk);
      if (this.rules.isEnd(type)) {
        this.over = true;
        out.push({ type: 'done' });
      }
    }
    return out;
  }
}
