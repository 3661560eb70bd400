import { GatewayError } from '../http/errors.js';
import { SSE_DONE, encodeSseData, encodeSseEvent } from '../http/sse.js';
import { maskCredentials, type KnownCredentials } from '../observability/redact.js';
import type { StreamEvent, StreamTranslator } from '../providers/types.js';
import { isIdleTimeout, type UpstreamResponse } from './upstream-client.js';

export interface StreamRelayOptions {
  /** Whether the client asked for the usage chunk (`stream_options.include_usage`). */
  clientWantsUsage: boolean;
  /** Sees every OpenAI chunk as it passes (the cache's tee), before usage is stripped. */
  onChunk?: (chunk: Record<string, unknown>) => void;
  /** Called with the usage object whenever the provider reports one. */
  onUsage?: (usage: Record<string, unknown>) => void;
  /** Called once when the relay is over: `ok` is true only when the stream ended cleanly. */
  onEnd?: (outcome: { ok: boolean; errorCode?: string }) => void;
  /**
   * The request's credentials (request-credentials.ts): masked in every error event relayed to the client, where a
   * provider may quote the key back. Only error events are scanned; content chunks pass untouched.
   */
  credentials?: KnownCredentials;
}

const encoder = new TextEncoder();

/**
 * Relays a provider stream as OpenAI SSE. It reads until the first chunk before returning, so an error that
 * arrives before any content still surfaces as an HTTP error (which routing may retry or fall back on). After
 * that it is committed: a failure ends the stream with an explicit SSE error event, never a silent close.
 */
export async function openStreamRelay(
  upstream: UpstreamResponse,
  translator: StreamTranslator,
  options: StreamRelayOptions,
): Promise<AsyncIterable<Uint8Array>> {
  const iterator = upstream.body[Symbol.asyncIterator]();
  const pending: Uint8Array[] = [];
  let committed = false;
  let finished = false;
  // Set when an error event follows content within the first read: relayed, then the stream ends.
  let errorAfterCommit: string | undefined;

  // Read up to the first content chunk (or a clean end) before committing the response.
  while (!committed) {
    let next: IteratorResult<Uint8Array>;
    try {
      next = await iterator.next();
    } catch (error) {
      upstream.body.destroy();
      throw beforeCommitFailure(error);
    }
    const events = next.done ? translator.end() : translator.push(next.value);
    for (const event of events) {
      if (event.type === 'error') {
        if (!committed) {
          upstream.body.destroy();
          throw new GatewayError(event.status ?? 502, event.error.code ?? 'upstream_stream_error', event.error.message, {
            type: 'upstream_error',
            providerError: event.providerError,
            upstream: true,
          });
        }
        errorAfterCommit = event.error.code ?? 'upstream_stream_error';
        break;
      }
      if (event.type === 'done') finished = true;
      else committed = true;
    }
    pending.push(encodeEvents(errorAfterCommit ? events.slice(0, events.findIndex((event) => event.type === 'error') + 1) : events, options));
    if (next.done || finished) {
      if (!finished && !committed) {
        throw new GatewayError(502, 'upstream_stream_empty', 'The provider ended the stream without sending anything', { type: 'upstream_error', upstream: true });
      }
      committed = true;
    }
  }

  return relay();

  async function* relay(): AsyncGenerator<Uint8Array> {
    let outcome: { ok: boolean; errorCode?: string } = { ok: false, errorCode: 'client_closed_request' };
    try {
      for (const bytes of pending) if (bytes.length > 0) yield bytes;
      if (errorAfterCommit) {
        outcome = { ok: false, errorCode: errorAfterCommit };
        return;
      }
      while (!finished) {
        let next: IteratorResult<Uint8Array>;
        try {
          next = await iterator.next();
        } catch (error) {
          const failure = afterCommitFailure(error);
          outcome = { ok: false, errorCode: String(failure.error.code) };
          yield encodeSseEvent('error', failure);
          return;
        }
        const events = next.done ? translator.end() : translator.push(next.value);
        const errorEvent = events.find((event) => event.type === 'error');
        const bytes = encodeEvents(events, options);
        if (bytes.length > 0) yield bytes;
        if (errorEvent) {
          outcome = { ok: false, errorCode: errorEvent.error.code ?? 'upstream_stream_error' };
          return;
        }
        if (events.some((event) => event.type === 'done')) finished = true;
        if (next.done && !finished) {
          outcome = { ok: false, errorCode: 'upstream_stream_truncated' };
          yield encodeSseEvent('error', errorPayload('upstream_stream_truncated', 'The provider ended the stream before it was complete'));
          return;
        }
      }
      outcome = { ok: true };
    } finally {
      // Runs on normal end, on error and when the client goes away (the consumer calls return()). After a clean
      // end the provider may still be closing its body: read that out so the keep-alive connection is reused.
      if (outcome.ok && upstream.body.dump) void upstream.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      else upstream.body.destroy();
      options.onEnd?.(outcome);
    }
  }
}

/** Encodes a batch of events as one write. Errors become SSE error events; `done` becomes `[DONE]`. */
function encodeEvents(events: StreamEvent[], options: StreamRelayOptions): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const event of events) {
    if (event.type === 'done') parts.push(SSE_DONE);
    else if (event.type === 'error') {
      const known = options.credentials;
      const message = known && known.size > 0 ? known.mask(event.error.message) : event.error.message;
      parts.push(encodeSseEvent('error', errorPayload(event.error.code ?? 'upstream_stream_error', message, maskCredentials(event.providerError, known))));
    } else {
      const chunk = withoutUnrequestedUsage(event, options);
      if (chunk) parts.push(chunk);
    }
  }
  if (parts.length === 1) return parts[0];
  return concat(parts);
}

function withoutUnrequestedUsage(event: Extract<StreamEvent, { type: 'chunk' }>, options: StreamRelayOptions): Uint8Array | undefined {
  options.onChunk?.(event.chunk);
  const usage = event.chunk.usage;
  if (usage && typeof usage === 'object') {
    options.onUsage?.(usage as Record<string, unknown>);
    if (!options.clientWantsUsage) {
      const choices = event.chunk.choices;
      if (!Array.isArray(choices) || choices.length === 0) return undefined;
      const { usage: _dropped, ...rest } = event.chunk;
      return encodeSseData(rest);
    }
  }
  return event.raw !== undefined ? encoder.encode(`data: ${event.raw}\n\n`) : encodeSseData(event.chunk);
}

function beforeCommitFailure(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (isIdleTimeout(error)) return new GatewayError(408, 'request_timeout', 'The provider sent no data within the stream idle timeout', { cause: error, upstream: true });
  return new GatewayError(502, 'upstream_stream_interrupted', 'The provider connection failed before the stream started', { type: 'upstream_error', cause: error, upstream: true });
}

function afterCommitFailure(error: unknown) {
  if (isIdleTimeout(error)) return errorPayload('stream_idle_timeout', 'The provider sent no data within the stream idle timeout');
  return errorPayload('upstream_stream_interrupted', 'The provider connection failed in the middle of the stream');
}

function errorPayload(code: string, message: string, providerError?: unknown) {
  const error: Record<string, unknown> = { message, type: 'upstream_error', code, param: null };
  if (providerError !== undefined) error.provider_error = providerError;
  return { error, status: 'failure' };
}

function concat(parts: Uint8Array[]): Uint8Array {
  let size = 0;
  for (const part of parts) size += part.length;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
