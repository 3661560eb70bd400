import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import { SseDecoder } from '../../../shared/http/sse.js';
import {
  concatBytes,
  encodeEvents,
  eventMessage,
  exceptionMessage,
  indexOfUtf8,
  loadRecordedStream,
  splitAt,
} from '../../fixtures/bedrock/event-stream.js';
import { verifySigV4 } from '../../fixtures/bedrock/sigv4-verifier.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { type MockUpstream, type RecordedRequest, type ScriptedResponse } from '../../support/mock-upstream.js';

const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const SESSION_TOKEN = 'IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKEN';
const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const EVENT_STREAM = { 'content-type': 'application/vnd.amazon.eventstream' };

let gateway: TestGateway;
let upstream: MockUpstream;
let answer: (request: RecordedRequest) => ScriptedResponse;
useGatewayWithUpstream((request) => answer(request), (started) => ({ gateway, upstream } = started));
beforeEach(() => {
  upstream.requests.length = 0;
});

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/bedrock/${name}`, import.meta.url), 'utf8')) as unknown;
const bedrockHeaders = (extra: Record<string, string> = {}) => ({
  'x-gw-provider': 'bedrock',
  'x-gw-custom-host': upstream.url,
  'x-gw-aws-access-key-id': 'AKIDEXAMPLE',
  'x-gw-aws-secret-access-key': SECRET,
  'x-gw-aws-session-token': SESSION_TOKEN,
  'x-gw-aws-region': 'us-east-1',
  ...extra,
});
const chat = (extra: Record<string, unknown> = {}) => ({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], ...extra });

/** What the mock received, checked with the independent SigV4 implementation. */
function signatureOf(request: RecordedRequest) {
  return verifySigV4({ method: request.method, rawPath: request.path, query: request.query, headers: request.headers, body: request.body }, SECRET);
}

interface SseEvent {
  event?: string;
  data: string;
}

async function readSse(response: Response): Promise<SseEvent[]> {
  const decoder = new SseDecoder();
  const events: SseEvent[] = decoder.push(new Uint8Array(await response.arrayBuffer()));
  return [...events, ...decoder.end()];
}

function streamedAnswer(events: SseEvent[]) {
  let content = '';
  let usage: unknown;
  const finishReasons: string[] = [];
  for (const event of events) {
    if (event.event !== undefined || event.data === '[DONE]') continue;
    const chunk = JSON.parse(event.data) as { usage?: unknown; choices: Array<{ delta: { content?: string }; finish_reason: string | null }> };
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      content += choice.delta.content ?? '';
      if (choice.finish_reason) finishReasons.push(choice.finish_reason);
    }
  }
  return { content, usage, finishReasons };
}

describe('Bedrock chat through the gateway', () => {
  it('signs the Converse call (session token included) and translates the answer', async () => {
    answer = () => ({ json: fixture('converse-response-tools.json'), headers: { 'x-amzn-requestid': 'req-1' } });
    const response = await gateway.post('/v1/chat/completions', chat(), bedrockHeaders());
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-provider')).toBe('bedrock');
    const body = (await response.json()) as { choices: Array<{ message: { tool_calls: Array<{ function: { arguments: string } }> }; finish_reason: string }> };
    expect(body.choices[0].finish_reason).toBe('tool_calls');
    expect(JSON.parse(body.choices[0].message.tool_calls[1].function.arguments)).toEqual({ city: 'Tōkyō', unit: 'celsius' });

    const seen = upstream.requests[0];
    expect(seen.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    expect(seen.json).toEqual({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }] });
    expect(seen.headers['x-amz-security-token']).toBe(SESSION_TOKEN);
    expect(seen.headers['x-gw-api-key']).toBeUndefined();
    const signature = signatureOf(seen);
    expect(signature).toMatchObject({ valid: true, accessKeyId: 'AKIDEXAMPLE' });
    expect(signature.scope).toMatch(/^\d{8}\/us-east-1\/bedrock\/aws4_request$/);
    expect(signature.signedHeaders).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'x-amz-security-token', 'x-amz-content-sha256']));
    expect(seen.headers['x-amz-content-sha256']).toBe(createHash('sha256').update(seen.body).digest('hex'));
  });

  it("accepts the spec's cloudc provider slug and x-gw-cloudc-* credential headers", async () => {
    answer = () => ({ json: fixture('converse-response-reasoning.json') });
    const response = await gateway.post('/v1/chat/completions', chat(), {
      'x-gw-provider': 'cloudc',
      'x-gw-custom-host': upstream.url,
      'x-gw-cloudc-access-key-id': 'AKIDEXAMPLE',
      'x-gw-cloudc-secret-access-key': SECRET,
      'x-gw-cloudc-region': 'eu-west-1',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-provider')).toBe('bedrock');
    const body = (await response.json()) as { choices: Array<{ message: { content: string; reasoning_content: string } }> };
    expect(body.choices[0].message).toMatchObject({ content: 'The capital of France is Paris.', reasoning_content: expect.stringContaining('Paris') });
    const signature = signatureOf(upstream.requests[0]);
    expect(signature.valid).toBe(true);
    expect(signature.scope).toMatch(/\/eu-west-1\/bedrock\/aws4_request$/);
    expect(upstream.requests[0].headers['x-amz-security-token']).toBeUndefined();
  });

  it('answers 400 naming the header when AWS credentials or the region are missing', async () => {
    const withoutKeys = await gateway.post('/v1/chat/completions', chat(), { 'x-gw-provider': 'bedrock', 'x-gw-aws-region': 'us-east-1' });
    expect(withoutKeys.status).toBe(400);
    expect(await withoutKeys.json()).toEqual({
      error: { message: expect.stringContaining('x-gw-aws-access-key-id'), type: 'invalid_request_error', code: 'missing_aws_credentials', param: 'x-gw-aws-access-key-id' },
      status: 'failure',
    });
    const headers = bedrockHeaders();
    delete (headers as Record<string, string>)['x-gw-aws-region'];
    const withoutRegion = await gateway.post('/v1/chat/completions', chat(), headers);
    expect(withoutRegion.status).toBe(400);
    expect(await withoutRegion.json()).toEqual({
      error: { message: expect.stringContaining('x-gw-aws-region'), type: 'invalid_request_error', code: 'missing_aws_region', param: 'x-gw-aws-region' },
      status: 'failure',
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers 400 for a parameter Bedrock cannot honour, and drops it when the caller opts out', async () => {
    answer = () => ({ json: fixture('converse-response-reasoning.json') });
    const refused = await gateway.post('/v1/chat/completions', chat({ seed: 42, temperature: 0.3 }), bedrockHeaders());
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: { message: expect.stringContaining('does not support `seed`'), type: 'invalid_request_error', code: 'unsupported_parameter', param: 'seed' },
      status: 'failure',
    });
    expect(upstream.requests).toHaveLength(0);

    const dropped = await gateway.post('/v1/chat/completions', chat({ seed: 42, temperature: 0.3 }), bedrockHeaders({ 'x-gw-drop-unsupported-params': 'true' }));
    expect(dropped.status).toBe(200);
    expect(upstream.requests[0].json).toEqual({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }], inferenceConfig: { temperature: 0.3 } });
  });

  it('answers 400 for an image link gw does not fetch (not http or https)', async () => {
    const messages = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }] }];
    const response = await gateway.post('/v1/chat/completions', chat({ messages }), bedrockHeaders());
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { message: expect.stringContaining('base64 data URL'), type: 'invalid_request_error', code: 'unsupported_image_url', param: 'messages[0].content[0].image_url.url' },
      status: 'failure',
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('normalises a Bedrock error answer, keeping its status and body', async () => {
    const providerBody = { message: 'The provided model identifier is invalid.' };
    answer = () => ({ status: 400, json: providerBody, headers: { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' } });
    const response = await gateway.post('/v1/chat/completions', chat(), bedrockHeaders());
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { message: 'The provided model identifier is invalid.', type: 'upstream_error', code: 'ValidationException', param: null, provider_error: providerBody },
      status: 'failure',
    });

    answer = () => ({ status: 429, json: { message: 'Too many requests, please wait before trying again.' }, headers: { 'retry-after': '2' } });
    const throttled = await gateway.post('/v1/chat/completions', chat(), bedrockHeaders());
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('2');
    expect(((await throttled.json()) as { error: { code: string } }).error.code).toBe('ThrottlingException');
  });
});

describe('Bedrock streaming through the gateway', () => {
  const toolStream = concatBytes(encodeEvents(loadRecordedStream('converse-stream-tools.json')));

  it('relays an event stream cut mid-message and mid-character, with the usage chunk when asked', async () => {
    const emoji = indexOfUtf8(toolStream, '🌍');
    const parts = splitAt(toolStream, [3, 50, emoji + 2, indexOfUtf8(toolStream, 'ō') + 1, toolStream.length - 7]);
    answer = () => ({ headers: EVENT_STREAM, chunks: parts, chunkDelayMs: 2 });
    const response = await gateway.post('/v1/chat/completions', chat({ stream: true, stream_options: { include_usage: true } }), bedrockHeaders());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = await readSse(response);
    expect(events.at(-1)?.data).toBe('[DONE]');
    const result = streamedAnswer(events);
    expect(result.content).toBe('Checking Paris and Tōkyō 🌍 now.');
    expect(result.finishReasons).toEqual(['tool_calls']);
    expect(result.usage).toEqual({ prompt_tokens: 412, completion_tokens: 97, total_tokens: 509 });

    const seen = upstream.requests[0];
    expect(seen.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream');
    expect(seen.headers.accept).toBe('application/vnd.amazon.eventstream');
    expect(signatureOf(seen).valid).toBe(true);
    expect(seen.headers['x-amz-security-token']).toBe(SESSION_TOKEN);
  });

  it('leaves the usage chunk out when the client did not ask for it', async () => {
    answer = () => ({ headers: EVENT_STREAM, chunks: [toolStream] });
    const events = await readSse(await gateway.post('/v1/chat/completions', chat({ stream: true }), bedrockHeaders()));
    expect(streamedAnswer(events).usage).toBeUndefined();
    expect(events.at(-1)?.data).toBe('[DONE]');
  });

  it('ends with an SSE error event when Bedrock sends an exception mid-stream', async () => {
    answer = () => ({
      headers: EVENT_STREAM,
      chunks: [
        eventMessage('messageStart', { role: 'assistant' }),
        eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'The answer is' } }),
        exceptionMessage('modelStreamErrorException', 'The model stream failed.'),
      ],
      chunkDelayMs: 2,
    });
    const response = await gateway.post('/v1/chat/completions', chat({ stream: true }), bedrockHeaders());
    expect(response.status).toBe(200);
    const events = await readSse(response);
    expect(streamedAnswer(events).content).toBe('The answer is');
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toEqual({
      error: { message: 'The model stream failed.', type: 'upstream_error', code: 'modelStreamErrorException', param: null, provider_error: { message: 'The model stream failed.' } },
      status: 'failure',
    });
    expect(events.some((event) => event.data === '[DONE]')).toBe(false);
  });

  it('fails with the exception status when Bedrock throttles before any content', async () => {
    answer = () => ({
      headers: EVENT_STREAM,
      chunks: [eventMessage('messageStart', { role: 'assistant' }), exceptionMessage('throttlingException', 'Too many tokens, please wait.')],
    });
    const response = await gateway.post('/v1/chat/completions', chat({ stream: true }), bedrockHeaders());
    expect(response.status).toBe(429);
    expect(await response.json()).toEqual({
      error: { message: 'Too many tokens, please wait.', type: 'upstream_error', code: 'throttlingException', param: null, provider_error: { message: 'Too many tokens, please wait.' } },
      status: 'failure',
    });
  });

  it('streams two parallel tool calls that the openai SDK reassembles into valid JSON arguments', async () => {
    answer = () => ({ headers: EVENT_STREAM, chunks: splitAt(toolStream, [17, 400, 401, 777]), chunkDelayMs: 1 });
    const client = new OpenAI({ apiKey: 'not-used-by-bedrock', baseURL: `${gateway.url}/v1`, defaultHeaders: { 'x-gw-api-key': gateway.apiKey, ...bedrockHeaders() } });
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } } } } },
      { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { timezone: { type: 'string' } } } } },
    ];
    const stream = client.chat.completions.stream({ model: MODEL, messages: [{ role: 'user', content: 'Weather in Paris, time in Tokyo?' }], tools });
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0].message;
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(message.content).toBe('Checking Paris and Tōkyō 🌍 now.');
    const calls = (message.tool_calls ?? []).map((call) => (call.type === 'function' ? { id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments) as unknown } : undefined));
    expect(calls).toEqual([
      { id: 'tooluse_weather_paris', name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } },
      { id: 'tooluse_time_tokyo', name: 'get_time', args: { timezone: 'Asia/Tōkyō' } },
    ]);
    const sent = upstream.requests[0].json as { toolConfig: { tools: Array<{ toolSpec: { name: string } }> } };
    expect(sent.toolConfig.tools.map((tool) => tool.toolSpec.name)).toEqual(['get_weather', 'get_time']);
  });
});

describe('Bedrock embeddings through the gateway', () => {
  it('embeds with Titan through the openai SDK (base64 by default) and signs the InvokeModel call', async () => {
    answer = () => ({ json: { embedding: [0.5, -0.25, 0.125], inputTextTokenCount: 3, embeddingsByType: { float: [0.5, -0.25, 0.125] } } });
    const client = new OpenAI({ apiKey: 'not-used-by-bedrock', baseURL: `${gateway.url}/v1`, defaultHeaders: { 'x-gw-api-key': gateway.apiKey, ...bedrockHeaders() } });
    const result = await client.embeddings.create({ model: 'amazon.titan-embed-text-v2:0', input: 'hello world' });
    expect(result.data).toEqual([{ object: 'embedding', index: 0, embedding: [0.5, -0.25, 0.125] }]);
    expect(result.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    const seen = upstream.requests[0];
    expect(seen.path).toBe('/model/amazon.titan-embed-text-v2%3A0/invoke');
    expect(seen.json).toEqual({ inputText: 'hello world' });
    expect(signatureOf(seen).valid).toBe(true);
  });

  it('embeds several texts with Cohere in one call, estimating the tokens Cohere does not report (o200k_base: 1 each)', async () => {
    answer = () => ({ json: { id: 'emb-1', response_type: 'embeddings_floats', texts: ['a', 'b'], embeddings: [[0.5, 0.25], [0.125, 1]] } });
    const response = await gateway.post('/v1/embeddings', { model: 'cohere.embed-multilingual-v3', input: ['a', 'b'], input_type: 'search_query' }, bedrockHeaders());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.5, 0.25] },
        { object: 'embedding', index: 1, embedding: [0.125, 1] },
      ],
      model: 'cohere.embed-multilingual-v3',
      usage: { prompt_tokens: 2, total_tokens: 2 },
    });
    expect(upstream.requests[0].json).toEqual({ texts: ['a', 'b'], input_type: 'search_query' });
  });

  it('answers 400 when Titan is given more texts than OpenAI allows in one request (2048)', async () => {
    const response = await gateway.post('/v1/embeddings', { model: 'amazon.titan-embed-text-v1', input: Array.from({ length: 2049 }, () => 'a') }, bedrockHeaders());
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { message: expect.stringContaining('at most 2048'), type: 'invalid_request_error', code: 'invalid_input', param: 'input' },
      status: 'failure',
    });
    expect(upstream.requests).toHaveLength(0);
  });
});
