import { describe, expect, it } from 'vitest';
import { createStreamingHandler } from '../../../functions/lib/streaming-handler.js';
import { localLambdaContext } from '../../../infra/local/api-gateway-event.js';
import { installLambdaShim } from '../../../infra/local/lambda-shim.js';
import type { NeutralRequest, NeutralResponse } from '../../../shared/http/types.js';
import { runInBackground } from '../../../shared/observability/background.js';
import { logger } from '../../../shared/observability/logger.js';
import { apiGatewayEvent, RecordingResponseStream } from '../../support/lambda.js';

/**
 * The lean streaming Lambda edge (functions/lib/streaming-handler.ts) around small cores, driven with API Gateway
 * events and a recording response stream as the runtime would; the real gateway through it is covered by
 * test/integration/lambda-handler.test.ts.
 */
installLambdaShim();

type Core = (request: NeutralRequest) => Promise<NeutralResponse>;
const context = () => localLambdaContext('gw-gateway') as unknown as Parameters<ReturnType<typeof createStreamingHandler>>[2];
const event = () => apiGatewayEvent('/v1/chat/completions', { model: 'm' }, { 'X-GW-Trace-Id': 'edge-test' });

function sse(events: string[]): AsyncIterable<Uint8Array> {
  return (async function* () {
    for (const data of events) {
      yield Buffer.from(`data: ${data}\n\n`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  })();
}

describe('the lean streaming Lambda handler', () => {
  it('writes the prelude, then each streamed chunk as its own write', async () => {
    const handler = createStreamingHandler(async () => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: sse(['1', '2', '[DONE]']) }), { drainAfterResponse: false });
    const stream = new RecordingResponseStream();
    await handler(event(), stream, context());
    const { prelude, body, bodyWrites } = stream.decoded();
    expect(prelude).toEqual({ statusCode: 200, headers: { 'content-type': 'text/event-stream' } });
    expect(bodyWrites).toEqual(['data: 1\n\n', 'data: 2\n\n', 'data: [DONE]\n\n']);
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(stream.writableEnded).toBe(true);
  });

  it('ends the stream before it waits for the background work, and waits for it before returning', async () => {
    const order: string[] = [];
    const core: Core = async () => {
      runInBackground('slow request log', async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        order.push('log written');
      });
      return { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
    };
    const handler = createStreamingHandler(core, { drainAfterResponse: true });
    const stream = new RecordingResponseStream();
    stream.on('finish', () => order.push('stream ended'));
    await handler(event(), stream, context());
    order.push('handler returned');
    expect(order).toEqual(['stream ended', 'log written', 'handler returned']);
    expect(JSON.parse(stream.decoded().body)).toEqual({ ok: true });
  });

  it('answers a core that throws with the one error shape and status 500, without the error’s text', async () => {
    const level = logger.getLevelName();
    logger.setLogLevel('SILENT');
    try {
      const handler = createStreamingHandler(
        async () => {
          throw new Error('boom at /var/task/index.mjs:1');
        },
        { drainAfterResponse: false },
      );
      const stream = new RecordingResponseStream();
      await handler(event(), stream, context());
      const { prelude, body } = stream.decoded();
      expect(prelude.statusCode).toBe(500);
      expect(JSON.parse(body)).toMatchObject({ status: 'failure', error: { code: 'internal_error', type: 'api_error' } });
      expect(body).not.toContain('boom');
    } finally {
      logger.setLogLevel(level);
    }
  });

  it('hands the core the request and an abort signal that fires when the response stream closes early', async () => {
    let seen: NeutralRequest | undefined;
    let bodyClosed!: () => void;
    const closed = new Promise<void>((resolve) => (bodyClosed = resolve));
    const stream = new RecordingResponseStream();
    const handler = createStreamingHandler(
      async (request) => {
        seen = request;
        return {
          status: 200,
          headers: { 'content-type': 'text/event-stream' },
          body: (async function* () {
            try {
              yield Buffer.from('data: first\n\n');
              // The client goes away after the first chunk.
              stream.destroy();
              await new Promise((resolve) => setTimeout(resolve, 5));
              yield Buffer.from('data: never\n\n');
            } finally {
              bodyClosed();
            }
          })(),
        };
      },
      { drainAfterResponse: false },
    );
    await handler(event(), stream, context());
    await closed;
    expect(seen).toMatchObject({ method: 'POST', path: '/v1/chat/completions', sourceIp: '203.0.113.9', headers: { 'x-gw-trace-id': 'edge-test', 'content-type': 'application/json' } });
    expect(seen!.signal?.aborted).toBe(true);
    expect(Buffer.concat(stream.writes).toString()).not.toContain('never');
  });
});
