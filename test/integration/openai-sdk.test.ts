import OpenAI, { APIError } from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../support/gateway.js';
import { useGatewayWithUpstream } from '../support/harness.js';
import { chatStream, openAIMockHandler } from '../support/mock-openai.js';
import type { MockUpstream } from '../support/mock-upstream.js';

let gateway: TestGateway;
let upstream: MockUpstream;
let client: OpenAI;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));
beforeAll(async () => {
  client = new OpenAI({
    apiKey: 'sk-provider-token',
    baseURL: `${gateway.url}/v1`,
    maxRetries: 0,
    defaultHeaders: { 'x-gw-api-key': gateway.apiKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url },
  });
});

describe('the real openai SDK against gw', () => {
  it('makes a plain chat completion', async () => {
    upstream.setHandler(openAIMockHandler());
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0].message.content).toBe('Hello from the mock provider!');
    expect(completion.usage?.total_tokens).toBe(21);
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer sk-provider-token');
  });

  it('streams: the first delta reaches the SDK while the upstream still holds back the rest', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The mock sends the role chunk and the first word, then waits until the SDK has seen that word.
    upstream.setHandler(() => ({ chunks: chatStream('gpt-4o-mini', 'alpha beta gamma'), holdAfter: { count: 2, until: held } }));
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta?.content ?? '';
      // Had gw buffered the stream, this point would never be reached before release(): the test would time out.
      if (delta === 'alpha ') release();
      text += delta;
    }
    expect(text).toBe('alpha beta gamma');
  });

  it('surfaces a provider error as APIError with the status', async () => {
    upstream.setHandler(() => ({ status: 401, json: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key', param: null } } }));
    const failure = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIError);
    const apiError = failure as APIError;
    expect(apiError.status).toBe(401);
    expect(apiError.code).toBe('invalid_api_key');
    expect(apiError.message).toContain('Incorrect API key provided');
    expect(apiError.headers?.get('x-gw-trace-id')).toBeTruthy();
  });

  it('surfaces a gw validation error as APIError 400', async () => {
    const failure = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).status).toBe(400);
    expect((failure as APIError).code).toBe('missing_messages');
  });
});
