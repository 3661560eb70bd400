import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { sse, startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';

// Issue #47: recorded answers written from the providers' documented examples, served by a mock provider over real
// HTTP (x-gw-custom-host), through the real local gw: the request gw builds and the answer (JSON, stream, error) it maps.

let gateway: TestGateway;
let upstream: MockUpstream;

beforeAll(async () => {
  upstream = await startMockUpstream(() => ({ status: 500, json: {} }));
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const CHAT = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };

function via(provider: string, extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-gw-provider': provider, 'x-gw-custom-host': `${upstream.url}/v1`, authorization: 'Bearer provider-token', ...extra };
}

describe('hosted OpenAI-compatible providers through gw (recorded fixtures)', () => {
  it('DashScope JSON: the answer with cached prompt tokens is relayed with its usage details', async () => {
    upstream.setHandler(() => ({
      json: {
        id: 'chatcmpl-1', object: 'chat.completion', created: 1735120033, model: 'qwen-plus',
        choices: [{ index: 0, message: { role: 'assistant', content: 'I am Qwen.' }, finish_reason: 'stop', logprobs: null }],
        usage: { prompt_tokens: 3019, completion_tokens: 104, total_tokens: 3123, prompt_tokens_details: { cached_tokens: 2048 } },
      },
    }));
    const response = await gateway.post('/v1/chat/completions', { ...CHAT, model: 'qwen-plus' }, via('qwen'));
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }>; usage: { prompt_tokens_details: { cached_tokens: number } } };
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-provider')).toBe('dashscope');
    expect(body.choices[0].message.content).toBe('I am Qwen.');
    expect(body.usage.prompt_tokens_details.cached_tokens).toBe(2048);
    expect(upstream.requests.at(-1)!.path).toBe('/v1/chat/completions');
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer provider-token');
  });

  it('Zhipu stream: the usage its last chunk carries on its own reaches a client that asked for it', async () => {
    const base = { id: '2024', created: 1, model: 'glm-4.6' };
    upstream.setHandler(() => ({
      chunks: sse(
        { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' } }] },
        { ...base, choices: [{ index: 0, delta: { content: 'lo' } }] },
        { ...base, choices: [{ index: 0, finish_reason: 'stop', delta: { content: '' } }], usage: { prompt_tokens: 8, completion_tokens: 2, total_tokens: 10 } },
        '[DONE]',
      ),
    }));
    const response = await gateway.post('/v1/chat/completions', { ...CHAT, stream: true, stream_options: { include_usage: true } }, via('glm'));
    const text = await response.text();
    expect(response.status).toBe(200);
    expect((upstream.requests.at(-1)!.json as Record<string, unknown>).stream_options).toEqual({ include_usage: true });
    expect(text).toContain('"content":"Hel"');
    expect(text).toContain('"total_tokens":10');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
  });

  it('Zhipu stream without include_usage: gw adds no stream_options of its own, the provider is sent the body as it was', async () => {
    upstream.setHandler(() => ({ chunks: sse({ id: '1', created: 1, model: 'glm', choices: [{ index: 0, finish_reason: 'stop', delta: { content: 'x' } }] }, '[DONE]') }));
    const response = await gateway.post('/v1/chat/completions', { ...CHAT, stream: true }, via('zhipu'));
    await response.text();
    expect((upstream.requests.at(-1)!.json as Record<string, unknown>).stream_options).toBeUndefined();
  });

  it('error shape: Zhipu\'s {error:{code,message}} 429 becomes gw\'s error with the provider body kept', async () => {
    upstream.setHandler(() => ({ status: 429, json: { error: { code: '1302', message: 'High concurrency usage of this API' } } }));
    const response = await gateway.post('/v1/chat/completions', CHAT, via('zhipu', { 'x-gw-config': JSON.stringify({ retry: { attempts: 0 } }) }));
    const body = (await response.json()) as { error: { message: string; code: string; provider_error: unknown } };
    expect(response.status).toBe(429);
    expect(body.error.message).toContain('High concurrency');
    expect(body.error.provider_error).toEqual({ error: { code: '1302', message: 'High concurrency usage of this API' } });
  });

  it('Azure AI Inference: the key goes out as api-key with api-version, and embeddings answer in OpenAI form', async () => {
    upstream.setHandler(() => ({ json: { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], model: 'cohere-embed-v3-english', usage: { prompt_tokens: 2, total_tokens: 2 } } }));
    const response = await gateway.post('/v1/embeddings', { model: 'cohere-embed-v3-english', input: 'hi' }, via('azure-ai'));
    expect(response.status).toBe(200);
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe('/v1/embeddings');
    expect(seen.query.get('api-version')).toBe('2024-05-01-preview');
    expect(seen.headers['api-key']).toBe('provider-token');
    expect(seen.headers.authorization).toBeUndefined();
  });

  it('header validation through gw: a Databricks workspace outside Databricks\' domains is a 400 in gw\'s error shape', async () => {
    const response = await gateway.post('/v1/chat/completions', CHAT, { 'x-gw-provider': 'databricks', 'x-gw-databricks-workspace': '169.254.169.254', authorization: 'Bearer t' });
    const body = (await response.json()) as { error: { param: string; type: string } };
    expect(response.status).toBe(400);
    expect(body.error.param).toBe('x-gw-databricks-workspace');
  });
});
