import type { Writable } from 'node:stream';

/**
 * The two parts of the Lambda Node.js runtime that streaming handlers use: `awslambda.streamifyResponse` and
 * `awslambda.HttpResponseStream.from`. Installed before any handler module loads (the gateway handler calls
 * streamifyResponse at import time). `from` writes what the real runtime writes: the JSON prelude, then eight
 * NUL bytes, then the body, so tests that drive the Lambda handler see exactly the bytes a Lambda would send.
 * The local server's request path does not use it (node-edge.ts calls the cores directly).
 */
export const STREAMING_HANDLER = Symbol.for('gw.local.streamingHandler');
export const PRELUDE_DELIMITER = new Uint8Array(8);

export type StreamingHandler = ((event: unknown, responseStream: Writable, context: unknown) => Promise<void>) & {
  [STREAMING_HANDLER]?: true;
};

interface AwsLambdaGlobal {
  streamifyResponse(handler: StreamingHandler): StreamingHandler;
  HttpResponseStream: { from(stream: Writable, prelude: Record<string, unknown>): Writable };
}

export function installLambdaShim(): void {
  // The AWS SDK's invoke store may already have created `awslambda` (as an empty holder): extend it, never replace it.
  const global = globalThis as unknown as { awslambda?: Partial<AwsLambdaGlobal> };
  const awslambda = (global.awslambda ??= {});
  awslambda.streamifyResponse ??= (handler) => {
    handler[STREAMING_HANDLER] = true;
    return handler;
  };
  awslambda.HttpResponseStream ??= {
    from(stream, prelude) {
      stream.write(JSON.stringify(prelude));
      stream.write(PRELUDE_DELIMITER);
      return stream;
    },
  };
}

export function isStreamingHandler(handler: unknown): handler is StreamingHandler {
  return typeof handler === 'function' && (handler as StreamingHandler)[STREAMING_HANDLER] === true;
}
