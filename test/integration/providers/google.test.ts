import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { fixtureJson, geminiMockHandler, readSse } from '../../fixtures/google/mock-gemini.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream } from '../../support/mock-upstream.js';

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(geminiMockHandler(), (started) => ({ gateway, upstream } = started));

const API_KEY = 'AIzaSy-test-secret-key';
const viaMock = (provider = 'google') => ({ 'x-gw-provider': provider, 'x-gw-custom-host': `${upstream.url}/v1beta`, authorization: `Bearer ${API_KEY}` });
const chat = { model: 'gemini-2.5-flash', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Explain Occam’s razor' }] };

function expectKeyOnlyInHeader(): void {
  const seen = upstream.requests.at(-1)!;
  expect(seen.headers['x-goog-api-key']).toBe(API_KEY);
  expect(seen.headers.authorization).toBeUndefined();
  expect(seen.headers['x-gw-api-key']).toBeUndefined();
  expect(seen.query.toString()).not.toContain(API_KEY);
  expect(seen.path).not.toContain(API_KEY);
}

async function expectError(response: Response, status: number, code: string, param?: string | null) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { message: string; type: string; code: string; param: string | null; provider_error?: unknown }; status: string };
  expect(body.status).toBe('failure');
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(typeof body.error.type).toBe('string');
  if (param !== undefined) expect(body.error.param).toBe(param);
  return body;
}

describe('Google Gemini through the gateway', () => {
  it('translates a chat call to generateContent and the answer back to chat.completion', async () => {
    upstream.setHandler(geminiMockHandler());
    const response = await gateway.post('/v1/chat/completions', chat, viaMock());
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-provider')).toBe('google');
    const body = (await response.json()) as { object: string; choices: Array<{ message: { content: string; reasoning_content: string } }>; usage: { total_tokens: number } };
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0].message.content).toMatch(/^Occam's razor says/);
    expect(body.choices[0].message.reasoning_content).toContain('Weighing the options');
    expect(body.usage.total_tokens).toBe(131);
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(seen.json).toEqual({ systemInstruction: { parts: [{ text: 'Be brief.' }] }, contents: [{ role: 'user', parts: [{ text: 'Explain Occam’s razor' }] }] });
    expectKeyOnlyInHeader();
  });

  it('accepts the gemini alias', async () => {
    upstream.setHandler(geminiMockHandler());
    const response = await gateway.post('/v1/chat/completions', chat, viaMock('gemini'));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-provider')).toBe('google');
  });

  it('streams a Gemini SSE body cut mid-UTF-8 and mid-event as OpenAI chunks, with usage when asked and [DONE] last', async () => {
    upstream.setHandler(geminiMockHandler({ streamFixture: 'stream-text.sse' }));
    const response = await gateway.post('/v1/chat/completions', { ...chat, stream: true, stream_options: { include_usage: true } }, viaMock());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = await readSse(response);
    expect(events.at(-1)).toEqual({ data: '[DONE]' });
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as { id: string; choices: Array<{ delta: { content?: string; reasoning_content?: string }; finish_reason: string | null }>; usage?: { total_tokens: number } });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Grüß dich! 👋 Schön, dass du da bist — wie kann ich helfen? 你好！');
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.reasoning_content ?? '').join('')).toContain('Planning a greeting');
    expect(chunks.filter((chunk) => chunk.choices[0]?.finish_reason === 'stop')).toHaveLength(1);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 59, total_tokens: 68 } });
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    expect(seen.query.get('alt')).toBe('sse');
    expectKeyOnlyInHeader();
  });

  it('leaves the usage chunk out when the client did not ask for it', async () => {
    upstream.setHandler(geminiMockHandler({ streamFixture: 'stream-text.sse' }));
    const events = await readSse(await gateway.post('/v1/chat/completions', { ...chat, stream: true }, viaMock()));
    expect(events.at(-1)).toEqual({ data: '[DONE]' });
    expect(events.slice(0, -1).some((event) => 'usage' in (JSON.parse(event.data) as object))).toBe(false);
  });

  it('ends the stream with an SSE error event when Gemini sends an error object after content', async () => {
    upstream.setHandler(geminiMockHandler({ streamFixture: 'stream-error-after-content.sse' }));
    const response = await gateway.post('/v1/chat/completions', { ...chat, stream: true }, viaMock());
    expect(response.status).toBe(200);
    const events = await readSse(response);
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({ error: { code: 'unavailable', message: 'The model is overloaded. Please try again later.', provider_error: { error: { status: 'UNAVAILABLE' } } }, status: 'failure' });
    expect(events.some((event) => event.data === '[DONE]')).toBe(false);
  });

  it('answers with the HTTP status when the in-stream error comes before any content', async () => {
    upstream.setHandler(() => ({ chunks: ['data: {"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}\r\n\r\n'] }));
    const body = await expectError(await gateway.post('/v1/chat/completions', { ...chat, stream: true }, viaMock()), 429, 'resource_exhausted');
    expect(body.error.provider_error).toEqual({ error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } });
  });

  it('passes a Google error status through, normalised, with the original body under provider_error', async () => {
    upstream.setHandler(() => ({ status: 429, headers: { 'retry-after': '21' }, json: fixtureJson('error-resource-exhausted.json') }));
    const response = await gateway.post('/v1/chat/completions', chat, viaMock());
    expect(response.headers.get('retry-after')).toBe('21');
    const body = await expectError(response, 429, 'resource_exhausted');
    expect(body.error.type).toBe('upstream_error');
    expect(body.error.message).toContain('exceeded your current quota');
    expect(body.error.provider_error).toEqual(fixtureJson('error-resource-exhausted.json'));
    expect(JSON.stringify(body)).not.toContain(API_KEY);
  });

  it('refuses an unsupported parameter with a 400 before calling Gemini, and drops it on request', async () => {
    upstream.setHandler(geminiMockHandler());
    const before = upstream.requests.length;
    await expectError(await gateway.post('/v1/chat/completions', { ...chat, logit_bias: { '42': 5 } }, viaMock()), 400, 'unsupported_parameter', 'logit_bias');
    expect(upstream.requests.length).toBe(before);
    const dropped = await gateway.post('/v1/chat/completions', { ...chat, logit_bias: { '42': 5 }, temperature: 0.2 }, { ...viaMock(), 'x-gw-drop-unsupported-params': 'true' });
    expect(dropped.status).toBe(200);
    expect(upstream.requests.at(-1)!.json).toMatchObject({ generationConfig: { temperature: 0.2 } });
    expect(upstream.requests.at(-1)!.body).not.toContain('logit_bias');
  });

  it('refuses a malformed tool history with a 400 naming the field', async () => {
    const body = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'nope', content: '1' }] };
    await expectError(await gateway.post('/v1/chat/completions', body, viaMock()), 400, 'invalid_message', 'messages[1].tool_call_id');
  });

  it('embeds through batchEmbedContents', async () => {
    upstream.setHandler(geminiMockHandler());
    const response = await gateway.post('/v1/embeddings', { model: 'gemini-embedding-001', input: ['first', 'second'] }, viaMock());
    expect(response.status).toBe(200);
    const body = (await response.json()) as { object: string; data: Array<{ index: number; embedding: number[] }> };
    expect(body.object).toBe('list');
    expect(body.data.map((entry) => [entry.index, entry.embedding.length])).toEqual([
      [0, 4],
      [1, 4],
    ]);
    expect(upstream.requests.at(-1)!.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expectKeyOnlyInHeader();
  });

  it('refuses the legacy completions endpoint with a 400', async () => {
    await expectError(await gateway.post('/v1/completions', { model: 'gemini-2.5-flash', prompt: 'x' }, viaMock()), 400, 'unsupported_endpoint');
  });
});

describe('tool calling end to end with the openai SDK', () => {
  it('reassembles two parallel streamed Gemini function calls into valid JSON arguments', async () => {
    upstream.setHandler(geminiMockHandler({ streamFixture: 'stream-parallel-tool-calls.sse' }));
    const client = new OpenAI({ apiKey: API_KEY, baseURL: `${gateway.url}/v1`, defaultHeaders: { 'x-gw-api-key': gateway.apiKey, 'x-gw-provider': 'google', 'x-gw-custom-host': `${upstream.url}/v1beta` } });
    const stream = client.chat.completions.stream({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Weather and local time in São Paulo?' }],
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['location'] } } },
        { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { timezone: { type: 'string' }, format: { type: 'string' } } } } },
      ],
    });
    const completion = await stream.finalChatCompletion();
    const choice = completion.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    const calls = choice.message.tool_calls ?? [];
    expect(calls.map((call) => (call.type === 'function' ? [call.function.name, JSON.parse(call.function.arguments)] : null))).toEqual([
      ['get_weather', { location: 'São Paulo', unit: 'celsius' }],
      ['get_time', { timezone: 'America/Sao_Paulo', format: '24h' }],
    ]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    // The thought signature survives the SDK, so the next turn can send it back.
    expect((calls[0] as unknown as { extra_content?: unknown }).extra_content).toEqual({ google: { thought_signature: 'Cs0BAdHtim+s1gn4tur3' } });
    const sent = upstream.requests.at(-1)!.json as { tools: Array<{ functionDeclarations: Array<{ name: string }> }> };
    expect(sent.tools[0].functionDeclarations.map((declaration) => declaration.name)).toEqual(['get_weather', 'get_time']);
    expectKeyOnlyInHeader();
  });

  it('sends the thought signature back on the next turn', async () => {
    upstream.setHandler(geminiMockHandler());
    const response = await gateway.post(
      '/v1/chat/completions',
      {
        model: 'gemini-3-pro-preview',
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Rome"}' }, extra_content: { google: { thought_signature: 'c2ln' } } }] },
          { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":25}' },
        ],
      },
      viaMock(),
    );
    expect(response.status).toBe(200);
    expect((upstream.requests.at(-1)!.json as { contents: unknown[] }).contents[1]).toEqual({
      role: 'model',
      parts: [{ functionCall: { name: 'get_weather', args: { location: 'Rome' } }, thoughtSignature: 'c2ln' }],
    });
  });
});
