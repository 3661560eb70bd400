import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startMockUpstream, type MockUpstream, type RecordedRequest } from '../../support/mock-upstream.js';
import { api } from '../control-plane/identities-support.js';
import { logOfTrace } from '../observability/observability-support.js';

/**
 * A provider that quotes the key back inside a stream (an SSE error event as the first event of a 200, or after
 * content has already gone to the client) must not get it to the client: every stream kind gw relays (chat,
 * Responses and Messages; native and translated) masks the request's credentials in the error event it sends.
 * The keys have no recognisable shape, so only redaction by value can catch them.
 */

let gateway: TestGateway;
let provider: MockUpstream;
/** Where the mock's error event goes: first in the stream, or after a content event. */
let errorAt: 'first' | 'after content' = 'first';

function presentedKey(request: RecordedRequest): string {
  const header = request.headers.authorization ?? request.headers['x-api-key'] ?? request.headers['api-key'];
  return String(header ?? '').replace(/^Bearer\s+/i, '');
}

const sse = (event: string | undefined, data: unknown) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

/** A 200 stream in the wire format of the path asked for, whose error event quotes the presented key. */
function streamFor(request: RecordedRequest): string[] {
  const quoted = `Incorrect API key provided: ${presentedKey(request)}.`;
  if (request.path.endsWith('/messages')) {
    const content = [
      sse('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-3-5-haiku', content: [], usage: { input_tokens: 1, output_tokens: 0 } } }),
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } }),
    ];
    const error = sse('error', { type: 'error', error: { type: 'authentication_error', message: quoted } });
    return errorAt === 'first' ? [error] : [...content, error];
  }
  if (request.path.endsWith('/responses')) {
    const content = [
      sse('response.created', { type: 'response.created', response: { id: 'resp_1', object: 'response', status: 'in_progress', model: 'gpt-4o-mini', output: [] } }),
      sse('response.output_text.delta', { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hel' }),
    ];
    const error = sse('error', { type: 'error', code: 'invalid_api_key', message: quoted, param: null });
    return errorAt === 'first' ? [error] : [...content, error];
  }
  const content = [sse(undefined, { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }] })];
  const error = sse(undefined, { error: { message: quoted, type: 'invalid_request_error', code: 'invalid_api_key' } });
  return errorAt === 'first' ? [error] : [...content, error];
}

beforeAll(async () => {
  provider = await startMockUpstream((request) => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, chunks: streamFor(request) }));
  gateway = await startTestGateway({ GW_VIRTUAL_KEY_CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  await gateway?.close();
  await provider?.close();
});

const bodies: Record<string, Record<string, unknown>> = {
  '/v1/chat/completions': { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Hi' }] },
  '/v1/responses': { model: 'gpt-4o-mini', stream: true, input: 'Hi' },
  '/v1/messages': { model: 'claude-3-5-haiku', stream: true, max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] },
};

/** A virtual key of `providerSlug` holding `secret`, stored with the mock as its host. */
async function virtualKey(providerSlug: string, secret: string): Promise<string> {
  const reply = await api<{ id: string }>(gateway, 'POST', '/v1/virtual-keys', { body: { provider: providerSlug, credential: secret, custom_host: provider.url } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id;
}

const routes: Array<{ path: string; provider: string; how: string }> = [
  { path: '/v1/chat/completions', provider: 'openai', how: 'native' },
  { path: '/v1/chat/completions', provider: 'anthropic', how: 'translated' },
  { path: '/v1/responses', provider: 'openai', how: 'native' },
  { path: '/v1/responses', provider: 'anthropic', how: 'translated' },
  { path: '/v1/messages', provider: 'anthropic', how: 'native' },
  { path: '/v1/messages', provider: 'openai', how: 'translated' },
];

describe('a credential a provider quotes back in a stream error', () => {
  for (const at of ['first', 'after content'] as const) {
    for (const route of routes) {
      it(`is masked on ${route.path} (${route.how}, ${route.provider}), error ${at}`, async () => {
        errorAt = at;
        const secret = `stream-${randomUUID().replaceAll('-', '')}`;
        const traceId = `stream-echo-${randomUUID()}`;
        const response = await fetch(`${gateway.url}${route.path}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-gw-api-key': gateway.apiKey,
            'x-gw-trace-id': traceId,
            'x-gw-virtual-key': await virtualKey(route.provider, secret),
            'anthropic-version': '2023-06-01',
          },
          body: JSON.stringify(bodies[route.path]),
        });
        const text = await response.text();
        // The provider did quote it (otherwise this test proves nothing), and its error reached the client.
        expect(presentedKey(provider.requests.at(-1)!)).toBe(secret);
        if (at === 'after content') expect(response.status, text).toBe(200);
        expect(text).toContain('Incorrect API key provided: [REDACTED]');
        expect(text).not.toContain(secret);
        expect(JSON.stringify(await logOfTrace(gateway, traceId))).not.toContain(secret);
      });
    }
  }
});
