import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startMockUpstream, type MockUpstream, type ScriptedResponse } from '../../support/mock-upstream.js';

// Replicate's predictions API through gw's HTTP server, against a mock Replicate (x-gw-custom-host). Fixtures follow
// Replicate's documented prediction objects.
const fixture = (name: string) => JSON.parse(readFileSync(fileURLToPath(new URL(`../../fixtures/replicate/${name}`, import.meta.url)), 'utf8')) as unknown;
const VERSION = 'f'.repeat(64);

let gateway: TestGateway;
let upstream: MockUpstream;

beforeAll(async () => {
  upstream = await startMockUpstream((request): ScriptedResponse => {
    const prompt = (request.json as { input?: { prompt?: string } }).input?.prompt ?? '';
    if (request.path === '/v1/predictions') return { status: 422, json: fixture('error.json') };
    if (prompt.includes('long story')) return { status: 201, json: fixture('prediction-processing.json') };
    return { status: 201, json: fixture('prediction.json') };
  });
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const chat = (body: Record<string, unknown>) =>
  fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'x-gw-provider': 'replicate', 'x-gw-custom-host': upstream.url, authorization: 'Bearer r8_test' },
    body: JSON.stringify(body),
  });
const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string; param: string | null } }).error;

describe('Replicate', () => {
  it('chat → an official model’s prediction with Prefer: wait; output pieces joined, token metrics as usage', async () => {
    const response = await chat({ model: 'meta/meta-llama-3-70b-instruct', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello' }], max_completion_tokens: 64, stop: ['\n\n'] });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      object: 'chat.completion',
      model: 'meta/meta-llama-3-70b-instruct',
      choices: [{ message: { role: 'assistant', content: 'Hello! How can I help?' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
    });
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe('/v1/models/meta/meta-llama-3-70b-instruct/predictions');
    expect(sent.headers.prefer).toBe('wait=60');
    expect(sent.headers.authorization).toBe('Bearer r8_test');
    expect(sent.json).toEqual({ input: { prompt: 'Say hello', system_prompt: 'Be brief.', max_tokens: 64, stop_sequences: '\n\n' } });
  });

  it('stream: the prediction comes back as chat.completion.chunk events with usage and [DONE]', async () => {
    const response = await chat({ model: 'meta/meta-llama-3-70b-instruct', messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }, { role: 'user', content: 'Say hello' }], stream: true, stream_options: { include_usage: true } });
    expect(response.status).toBe(200);
    const text = await response.text();
    const chunks = text.split('\n').filter((line) => line.startsWith('data: {')).map((line) => JSON.parse(line.slice(6)) as { choices: Array<{ delta: { content?: string } }>; usage?: unknown });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Hello! How can I help?');
    expect(chunks.find((chunk) => chunk.usage)?.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7 });
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect((upstream.requests.at(-1)!.json as { input: { prompt: string } }).input.prompt).toBe('User: Hi\n\nAssistant: Hello\n\nUser: Say hello\n\nAssistant:');
  });

  it('a prediction still running when the wait ends is a 504 naming it, never an empty reply', async () => {
    const response = await chat({ model: 'meta/meta-llama-3-70b-instruct', messages: [{ role: 'user', content: 'Write a long story' }] });
    expect(response.status).toBe(504);
    const error = await errorOf(response);
    expect(error.code).toBe('prediction_pending');
    expect(error.message).toContain('ufawqhfynnddngldkgtslldrkq');
  });

  it('provider error shape: a pinned version goes to /v1/predictions; problem details keep the status, title as code', async () => {
    const response = await chat({ model: `acme/llm:${VERSION}`, messages: [{ role: 'user', content: 'Hi' }] });
    expect(response.status).toBe(422);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid_version_or_not_permitted', message: expect.stringContaining('does not exist') });
    expect(upstream.requests.at(-1)!.json).toMatchObject({ version: VERSION, input: { prompt: 'Hi' } });
  });

  it('unsupported parameter: tools and a model that is not owner/name are 400s before any call', async () => {
    const count = upstream.requests.length;
    expect((await errorOf(await chat({ model: 'meta/meta-llama-3-70b-instruct', messages: [{ role: 'user', content: 'Hi' }], tools: [{ type: 'function', function: { name: 'f' } }] }))).param).toBe('tools');
    expect((await errorOf(await chat({ model: 'llama', messages: [{ role: 'user', content: 'Hi' }] }))).param).toBe('model');
    expect(upstream.requests.length).toBe(count);
  });
});
