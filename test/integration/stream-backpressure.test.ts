import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import { localLambdaContext } from '../../infra/local/api-gateway-event.js';
import { apiGatewayEvent } from '../support/lambda.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { stalled, startPacedUpstream, type PacedUpstream } from '../support/paced-upstream.js';

/**
 * Issue #42, backpressure all the way to the provider, seen from the provider's side: a client that takes nothing
 * after the response headers must stop the provider too, on every streaming path. What the provider still manages to
 * write is gw's bounded buffer (the client socket's high-water mark, 16 KiB on Node 20 and 64 KiB on Node 22+, plus
 * the upstream body's, plus the chunk in hand) and the operating system's socket buffers on both legs (on Linux
 * loopback they grow to a few MiB: measured 7.2 MiB here). A relay that read ahead of its client would let the
 * provider write the whole 64 MiB stream.
 */
const STREAM_BYTES = 64 * 1024 * 1024;
const AT_MOST_AHEAD = 24 * 1024 * 1024;

let gw: TestGateway;
let upstream: PacedUpstream;

beforeAll(async () => {
  upstream = await startPacedUpstream({ bytes: STREAM_BYTES });
  gw = await startTestGateway({ GW_SHUTDOWN_DRAIN_TIMEOUT_MS: '2000' });
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

interface Route {
  name: string;
  path: string;
  provider: string;
  body: Record<string, unknown>;
}

const chat = { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Hi' }] };
const ROUTES: Route[] = [
  { name: 'chat completions, OpenAI (relayed chunk by chunk)', path: '/v1/chat/completions', provider: 'openai', body: chat },
  { name: 'chat completions, Anthropic (translated)', path: '/v1/chat/completions', provider: 'anthropic', body: { ...chat, model: 'claude-3-5-haiku-latest', max_tokens: 100 } },
  { name: 'Responses, OpenAI (native)', path: '/v1/responses', provider: 'openai', body: { model: 'gpt-4o-mini', stream: true, input: 'Hi' } },
  { name: 'Messages, Anthropic (native)', path: '/v1/messages', provider: 'anthropic', body: { model: 'claude-3-5-haiku-latest', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Hi' }] } },
  { name: 'Messages, OpenAI (translated)', path: '/v1/messages', provider: 'openai', body: { model: 'gpt-4o-mini', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Hi' }] } },
  { name: 'pass-through audio/speech (bytes as they arrive)', path: '/v1/audio/speech', provider: 'openai', body: { model: 'tts-1', input: 'Hi', voice: 'alloy' } },
];

/** Sends the request and resolves with the response once its headers arrived; the body is left unread. */
function openUnread(route: Route): Promise<{ call: ClientRequest; response: IncomingMessage }> {
  const url = new URL(route.path, gw.url);
  return new Promise((resolve, reject) => {
    const call = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gw-api-key': gw.apiKey, 'x-gw-provider': route.provider, 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-x', 'x-api-key': 'sk-ant-x' },
      },
      (response) => {
        response.pause();
        resolve({ call, response });
      },
    );
    call.on('error', reject);
    call.end(JSON.stringify(route.body));
  });
}

describe('backpressure from the client socket to the provider (the provider’s view)', () => {
  for (const route of ROUTES) {
    it(`a client that reads nothing stops the provider: ${route.name}`, async () => {
      const before = upstream.streams.length;
      const { call, response } = await openUnread(route);
      try {
        expect(response.statusCode).toBe(200);
        const stream = upstream.streams[before];
        const written = await stalled(stream);
        expect(stream.done).toBe(false);
        expect(written).toBeLessThan(AT_MOST_AHEAD);
        console.log(`${route.name} (provider path ${stream.path}): the provider wrote ${(written / 2 ** 20).toFixed(1)} MiB before the unread client stopped it`);
      } finally {
        call.destroy();
      }
    }, 120_000);
  }
});

/**
 * The Lambda edge's response stream as the runtime gives it: a writable with a 16 KiB high-water mark, here one that
 * takes nothing (the client behind API Gateway reads nothing). Its write() says false and the handler must wait.
 */
class StalledResponseStream extends Writable {
  constructor() {
    super({ highWaterMark: 16 * 1024 });
  }
  override _write(_chunk: Buffer, _encoding: BufferEncoding, _callback: () => void): void {
    // Never calls back: nothing more is taken until the test destroys the stream.
  }
}

describe('backpressure on the Lambda edge (the response stream’s write() result)', () => {
  it('a response stream that takes nothing stops the provider', async () => {
    type StreamingLambda = (event: unknown, stream: Writable, context: unknown) => Promise<void>;
    const handler = (await import('../../functions/gateway/handler.js')).handler as unknown as StreamingLambda;
    const before = upstream.streams.length;
    const sink = new StalledResponseStream();
    const event = apiGatewayEvent('/v1/chat/completions', chat, { 'X-GW-API-Key': gw.apiKey, 'X-GW-Provider': 'openai', 'X-GW-Custom-Host': upstream.url, Authorization: 'Bearer sk-x' });
    const handled = handler(event, sink, localLambdaContext('gw-gateway'));
    while (upstream.streams.length === before) await new Promise((resolve) => setTimeout(resolve, 20));
    const stream = upstream.streams[before];
    const written = await stalled(stream);
    expect(stream.done).toBe(false);
    // Only the provider → gw leg's kernel buffers are in between here.
    expect(written).toBeLessThan(AT_MOST_AHEAD);
    console.log(`Lambda edge: the provider wrote ${(written / 2 ** 20).toFixed(1)} MiB before the stalled response stream stopped it`);
    sink.destroy();
    await handled;
  }, 120_000);
});
