import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../support/gateway.js';
import { useGatewayWithUpstream } from '../support/harness.js';
import { openAIMockHandler } from '../support/mock-openai.js';
import type { MockUpstream } from '../support/mock-upstream.js';

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };
const viaMock = () => ({ 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-provider-secret' });

describe('POST /v1/chat/completions pass-through', () => {
  it('forwards the body and the bearer token and returns the provider answer with gw headers', async () => {
    const response = await gateway.post('/v1/chat/completions', chat, { ...viaMock(), 'x-gw-trace-id': 'trace-123' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-trace-id')).toBe('trace-123');
    expect(response.headers.get('x-gw-provider')).toBe('openai');
    expect(response.headers.get('x-gw-cache-status')).toBe('DISABLED');
    expect(response.headers.get('x-gw-retry-attempt-count')).toBe('0');
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0].message.content).toBe('Hello from the mock provider!');
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe('/chat/completions');
    expect(seen.headers.authorization).toBe('Bearer sk-provider-secret');
    expect(seen.headers['x-gw-api-key']).toBeUndefined();
    expect(seen.json).toEqual(chat);
  });
});
