import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
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
