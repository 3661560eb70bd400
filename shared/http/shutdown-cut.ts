import { encodeSseEvent } from './sse.js';

/**
 * Why a request's signal aborted when the process that served it shut down before it was over (the local
 * runtime's drain timeout): the edge aborts the request's signal with this reason, the after-path logs the request
 * as cut at shutdown (not as a client that left), and a stream that already sent its status gets `cutAtShutdownEvent`.
 */
export class ShutdownCut extends Error {
  constructor() {
    super('gw shut down before the request was over (drain timeout)');
    this.name = 'ShutdownCut';
  }
}

export const CUT_AT_SHUTDOWN = 'cut_at_shutdown';

export function isShutdownCut(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && signal.reason instanceof ShutdownCut;
}

/** The error body of a request cut at shutdown: OpenAI's shape, with Anthropic's `type: error` beside it. */
export function cutAtShutdownError(): Record<string, unknown> {
  return {
    type: 'error',
    error: { message: 'gw shut down before the request was over (drain timeout); retry it', type: 'api_error', code: CUT_AT_SHUTDOWN, param: null },
    status: 'failure',
  };
}

/** The explicit SSE error event that ends a stream cut at shutdown, so no client mistakes the cut for an end. */
export function cutAtShutdownEvent(): Uint8Array {
  return encodeSseEvent('error', cutAtShutdownError());
}
