import { beforeEach, describe, expect, it } from 'vitest';
import { geminiMockHandler, readSse } from '../../fixtures/google/mock-gemini.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream } from '../../support/mock-upstream.js';

/**
 * One rule on every translating provider: a parameter the target cannot honour is a 400 naming it, or — with
 * `x-gw-drop-unsupported-params: true` — dropped and listed in `x-gw-dropped-params`, streamed or not.
 */
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(geminiMockHandler(), (started) => ({ gateway, upstream } = started));
beforeEach(() => {
  upstream.requests.length = 0;
});

const google = () => ({ 'x-gw-provider': 'google', 'x-gw-custom-host': `${upstream.url}/v1beta`, authorization: 'Bearer AIzaSy-test-secret-key' });
const vertex = () => ({
  'x-gw-provider': 'vertex-ai',
  'x-gw-vertex-project-id': 'my-project',
  'x-gw-vertex-region': 'us-central1',
  'x-gw-custom-host': upstream.url,
  authorization: 'Bearer ya29.test-token',
});
const targets = [
  ['google', google],
  ['vertex-ai (Gemini)', vertex],
] as const;
const chat = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Hi' }] };

const NOT_HONOURED = {
  modalities: ['text', 'audio'],
  store: true,
  metadata: { team: 'search' },
  service_tier: 'flex',
  verbosity: 'low',
  prompt_cache_key: 'tenant-7',
} as const;

describe.each(targets)('%s: parameters Gemini cannot honour', (_name, headers) => {
  it.each(Object.entries(NOT_HONOURED))('%s is a 400 naming it, and nothing reaches the provider', async (param, value) => {
    const response = await gateway.post('/v1/chat/completions', { ...chat, [param]: value }, headers());
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { message: expect.stringContaining(`\`${param}\``), type: 'invalid_request_error', code: 'unsupported_parameter', param },
      status: 'failure',
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('with x-gw-drop-unsupported-params they are dropped and listed in x-gw-dropped-params', async () => {
    const response = await gateway.post('/v1/chat/completions', { ...chat, ...NOT_HONOURED, temperature: 0.3 }, { ...headers(), 'x-gw-drop-unsupported-params': 'true' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-dropped-params')).toBe('modalities,store,metadata,service_tier,verbosity,prompt_cache_key');
    expect(upstream.requests[0].json).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], generationConfig: { temperature: 0.3 } });
  });

  it('streamed: the same header on the event stream', async () => {
    const response = await gateway.post('/v1/chat/completions', { ...chat, stream: true, store: true, verbosity: 'high' }, { ...headers(), 'x-gw-drop-unsupported-params': 'true' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('x-gw-dropped-params')).toBe('store,verbosity');
    expect((await readSse(response)).at(-1)?.data).toBe('[DONE]');
    expect(upstream.requests[0].json).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
  });

  it("values that ask for nothing (store false, service_tier auto, modalities ['text']) are accepted without a header", async () => {
    const response = await gateway.post('/v1/chat/completions', { ...chat, store: false, service_tier: 'auto', modalities: ['text'] }, headers());
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-dropped-params')).toBeNull();
  });
});

it('without anything dropped there is no x-gw-dropped-params header, even with the drop header sent', async () => {
  const response = await gateway.post('/v1/chat/completions', chat, { ...google(), 'x-gw-drop-unsupported-params': 'true' });
  expect(response.status).toBe(200);
  expect(response.headers.get('x-gw-dropped-params')).toBeNull();
});
