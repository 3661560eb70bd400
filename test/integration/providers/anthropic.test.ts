import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { anthropicJsonFixture, anthropicSseFixture } from '../../fixtures/anthropic/index.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { type MockUpstream, type ScriptedResponse } from '../../support/mock-upstream.js';
import { readSseEvents, type ReceivedEvent } from '../../support/sse-client.js';

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(() => ({ json: anthropicJsonFixture('message-text') }), (started) => ({ gateway, upstream } = started));

const MODEL = 'claude-sonnet-4-5-20250929';
const chat = { model: MODEL, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] };
const viaMock = (extra: Record<string, string> = {}) => ({ 'x-gw-provider': 'anthropic', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-ant-provider-secret', ...extra });
const weatherTools = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string' } } } } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { timezone: { type: 'string' } } } } },
] as const;

/** Streams `bytes` cut at the given offsets, a few milliseconds apart so each cut reaches gw as its own read. */
function streamedIn(bytes: Buffer, cuts: number[]): ScriptedResponse {
  const points = [...cuts].sort((a, b) => a - b);
  const chunks = [...points, bytes.length].map((end, index) => bytes.subarray(index === 0 ? 0 : points[index - 1], end));
  return { chunks, chunkDelayMs: 3 };
}

function chunksOf(events: ReceivedEvent[]): Array<{ choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>; usage?: unknown }> {
  return events.filter((event) => event.event === undefined && event.data !== '[DONE]').map((event) => JSON.parse(event.data));
}

/** Anthropic's overloaded error in gw's shape, whether it ends a stream or answers before any content. */
const OVERLOADED_ERROR = {
  error: {
    message: 'Overloaded',
    type: 'upstream_error',
    code: 'overloaded_error',
    param: null,
    provider_error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
  },
  status: 'failure',
};

describe('Anthropic through the gateway: requests and responses', () => {
  it('calls the Messages endpoint with x-api-key and anthropic-version and answers in OpenAI’s format', async () => {
    upstream.setHandler(() => ({ json: anthropicJsonFixture('message-text') }));
    const response = await gateway.post('/v1/chat/completions', chat, viaMock({ 'anthropic-beta': 'prompt-caching-2024-07-31' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-provider')).toBe('anthropic');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      object: 'chat.completion',
      model: MODEL,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! How can I help you today?' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 11, total_tokens: 23 },
    });
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe('/messages');
    expect(seen.headers['x-api-key']).toBe('sk-ant-provider-secret');
    expect(seen.headers['anthropic-version']).toBe('2023-06-01');
    expect(seen.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers['x-gw-api-key']).toBeUndefined();
    expect(seen.json).toEqual({ model: MODEL, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4096, stream: false });
  });

  it('returns tool calls of a non-streamed answer with JSON-string arguments', async () => {
    upstream.setHandler(() => ({ json: anthropicJsonFixture('message-tool-use') }));
    const response = await gateway.post('/v1/chat/completions', { ...chat, tools: weatherTools }, viaMock());
    const body = (await response.json()) as { choices: Array<{ message: { tool_calls: Array<{ function: { arguments: string } }> }; finish_reason: string }> };
    expect(body.choices[0].finish_reason).toBe('tool_calls');
    expect(body.choices[0].message.tool_calls.map((call) => JSON.parse(call.function.arguments))).toEqual([
      { location: 'San Francisco, CA', unit: 'celsius' },
      { location: 'Paris, France', unit: 'celsius' },
    ]);
  });

  it('refuses the embeddings endpoint for Anthropic with a 400', async () => {
    const response = await gateway.post('/v1/embeddings', { model: MODEL, input: 'hello' }, viaMock());
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'unsupported_endpoint', type: 'invalid_request_error' }, status: 'failure' });
  });
});

describe('Anthropic through the gateway: streams', () => {
  it('reassembles text split mid-UTF-8 character and mid-event, and strips usage the client did not ask for', async () => {
    const bytes = anthropicSseFixture('stream-text');
    const inside = (text: string, byte: number) => bytes.indexOf(text) + byte;
    const cuts = [
      inside('à', 1), // between the two bytes of à
      inside('🌤', 2), // inside a four-byte emoji
      inside('東', 1), // inside a three-byte character
      inside('event: content_block_delta', 9), // mid event name
      inside('"text_delta"', 5), // mid JSON
      inside('\n\nevent: message_delta', 1), // between the two newlines that end an event
    ];
    upstream.setHandler(() => streamedIn(bytes, cuts));
    const response = await gateway.post('/v1/chat/completions', { ...chat, stream: true }, viaMock());
    expect(response.status).toBe(200);
    const events = await readSseEvents(response);
    const chunks = chunksOf(events);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Voilà — il fait 18 °C à Paris 🌤️, 東京は晴れです。');
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe('stop');
    expect(chunks.some((chunk) => chunk.usage !== undefined)).toBe(false);
    expect(events.at(-1)!.data).toBe('[DONE]');
    expect((upstream.requests.at(-1)!.json as { stream: boolean }).stream).toBe(true);
  });

  it('ends with the usage chunk when the client asked for it', async () => {
    upstream.setHandler(() => streamedIn(anthropicSseFixture('stream-text'), []));
    const response = await gateway.post('/v1/chat/completions', { ...chat, stream: true, stream_options: { include_usage: true } }, viaMock());
    const chunks = chunksOf(await readSseEvents(response));
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 35, completion_tokens: 15, total_tokens: 50, prompt_tokens_details: { cached_tokens: 10 } } });
  });

  it('turns an error event in the middle of the stream into an SSE error event after the content', async () => {
    upstream.setHandler(() => streamedIn(anthropicSseFixture('stream-error-midway'), [40, 400]));
    const response = await gateway.post('/v1/chat/completions', { ...chat, stream: true }, viaMock());
    expect(response.status).toBe(200);
    const events = await readSseEvents(response);
    expect(chunksOf(events).map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Once upon a time');
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toEqual(OVERLOADED_ERROR);
  });

  it('answers an error event that comes before any content with its HTTP status, so nothing half-done reaches the client', async () => {
    upstream.setHandler(() => streamedIn(anthropicSseFixture('stream-error-at-start'), [100]));
    const response = await gateway.post('/v1/chat/completions', { ...chat, stream: true }, viaMock());
    expect(response.status).toBe(529);
    expect(await response.json()).toEqual(OVERLOADED_ERROR);
  });

  it('streams two parallel tool calls that the openai SDK reassembles into valid JSON arguments with their ids and names', async () => {
    const bytes = anthropicSseFixture('stream-parallel-tools');
    // Cut inside the partial JSON of each tool and inside the multi-byte label.
    upstream.setHandler(() => streamedIn(bytes, [bytes.indexOf('San Fra') + 4, bytes.indexOf('ürich') + 1, bytes.indexOf('✈') + 2]));
    const client = new OpenAI({ apiKey: 'sk-ant-provider-secret', baseURL: `${gateway.url}/v1`, defaultHeaders: { 'x-gw-api-key': gateway.apiKey, 'x-gw-provider': 'anthropic', 'x-gw-custom-host': upstream.url }, maxRetries: 0 });
    const stream = client.chat.completions.stream({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in San Francisco, and the time in Paris?' }],
      tools: weatherTools.map((tool) => ({ type: 'function' as const, function: { ...tool.function, parameters: { ...tool.function.parameters } } })),
    });
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0].message;
    expect(completion.id).toBe('msg_014p7gG3wDgGV9EUtLvnow3U');
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(message.content).toBe("I'll look up the weather in both cities.");
    const calls = (message.tool_calls ?? []).map((call) => (call.type === 'function' ? { id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments) } : call));
    expect(calls).toEqual([
      { id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather', args: { location: 'San Francisco, CA', unit: 'fahrenheit' } },
      { id: 'toolu_01Vq8mZ3hT5xB9kR2nW4cJ7e', name: 'get_time', args: { timezone: 'Europe/Paris', label: 'Zürich–Paris ✈' } },
    ]);
    const sent = upstream.requests.at(-1)!;
    expect(sent.headers['x-api-key']).toBe('sk-ant-provider-secret');
    expect((sent.json as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual(['get_weather', 'get_time']);
  });
});

describe('Anthropic through the gateway: errors', () => {
  it.each([
    ['error-invalid-request', 400, 'invalid_request_error', {}],
    ['error-rate-limit', 429, 'rate_limit_error', { 'retry-after': '17' }],
    ['error-overloaded', 529, 'overloaded_error', {}],
  ])('keeps the status of %s and Anthropic’s body under error.provider_error', async (fixture, status, code, headers: Record<string, string>) => {
    const providerBody = anthropicJsonFixture(fixture) as { error: { message: string } };
    upstream.setHandler(() => ({ status, json: providerBody, headers }));
    const response = await gateway.post('/v1/chat/completions', chat, viaMock());
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual({
      error: { message: providerBody.error.message, type: 'upstream_error', code, param: null, provider_error: providerBody },
      status: 'failure',
    });
    if (headers['retry-after']) expect(response.headers.get('retry-after')).toBe('17');
  });

  it('answers 400 for a parameter Anthropic cannot honour, without calling Anthropic', async () => {
    const before = upstream.requests.length;
    const response = await gateway.post('/v1/chat/completions', { ...chat, seed: 42 }, viaMock());
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body).toMatchObject({ error: { type: 'invalid_request_error', code: 'unsupported_parameter', param: 'seed' }, status: 'failure' });
    expect(body.error.message).toContain('x-gw-drop-unsupported-params');
    expect(upstream.requests.length).toBe(before);
  });

  it('drops the unsupported parameter when the caller sends x-gw-drop-unsupported-params: true', async () => {
    upstream.setHandler(() => ({ json: anthropicJsonFixture('message-text') }));
    const response = await gateway.post('/v1/chat/completions', { ...chat, seed: 42, n: 3 }, viaMock({ 'x-gw-drop-unsupported-params': 'true' }));
    expect(response.status).toBe(200);
    const sent = upstream.requests.at(-1)!.json as Record<string, unknown>;
    expect(sent).not.toHaveProperty('seed');
    expect(sent).not.toHaveProperty('n');
  });

  it('answers 400 with the failing path for tool-call arguments that are not JSON', async () => {
    const messages = [{ role: 'user', content: 'Hi' }, { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":' } }] }];
    const response = await gateway.post('/v1/chat/completions', { model: MODEL, messages }, viaMock());
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { type: 'invalid_request_error', code: 'invalid_tool_arguments', param: 'messages[1].tool_calls[0].function.arguments' },
      status: 'failure',
    });
  });
});
