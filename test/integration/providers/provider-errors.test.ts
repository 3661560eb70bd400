import { beforeEach, describe, expect, it } from 'vitest';
import { eventMessage } from '../../fixtures/bedrock/event-stream.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream, RecordedRequest, ScriptedResponse } from '../../support/mock-upstream.js';
import { readSseEvents } from '../../support/sse-client.js';

/**
 * What a provider says is not misread: Bedrock's error type decides the status, Gemini's RetryInfo becomes
 * `retry-after`, and a malformed tool call is an explicit error, never a silent `stop` with empty content.
 */
let gateway: TestGateway;
let upstream: MockUpstream;
let answer: (request: RecordedRequest) => ScriptedResponse;
useGatewayWithUpstream((request) => answer(request), (started) => ({ gateway, upstream } = started));
beforeEach(() => {
  upstream.requests.length = 0;
});

const bedrock = () => ({
  'x-gw-provider': 'bedrock',
  'x-gw-custom-host': upstream.url,
  'x-gw-aws-access-key-id': 'AKIDEXAMPLE',
  'x-gw-aws-secret-access-key': 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  'x-gw-aws-region': 'us-east-1',
});
const google = () => ({ 'x-gw-provider': 'google', 'x-gw-custom-host': `${upstream.url}/v1beta`, authorization: 'Bearer AIzaSy-test-secret-key' });
const anthropic = () => ({ 'x-gw-provider': 'anthropic', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-ant-provider-secret' });
const ask = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content: 'Weather in Paris?' }], ...extra });
const BEDROCK_MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];

describe('Bedrock: x-amzn-errortype decides the error class', () => {
  it.each([
    [400, 'ServiceQuotaExceededException:http://internal.amazon.com/coral/com.amazon.bedrock/', 429, 'ServiceQuotaExceededException', 'rate_limit_error'],
    [400, 'ThrottlingException', 429, 'ThrottlingException', 'rate_limit_error'],
    [429, 'ModelNotReadyException:http://internal.amazon.com/coral/com.amazon.bedrock/', 503, 'ModelNotReadyException', 'api_error'],
    [400, 'ValidationException', 400, 'ValidationException', 'invalid_request_error'],
  ])('HTTP %i with %s is a %i coded by the error type', async (status, errorType, expected, code) => {
    answer = () => ({ status, headers: { 'x-amzn-errortype': errorType }, json: { message: 'Too many tokens, please wait before trying again.' } });
    const response = await gateway.post('/v1/chat/completions', ask(BEDROCK_MODEL), bedrock());
    expect(response.status).toBe(expected);
    expect(await response.json()).toEqual({
      error: {
        message: 'Too many tokens, please wait before trying again.',
        type: 'upstream_error',
        code,
        param: null,
        provider_error: { message: 'Too many tokens, please wait before trying again.' },
      },
      status: 'failure',
    });
  });

  it('a quota error is retried like any 429 when the caller asks for retries', async () => {
    let calls = 0;
    answer = () => (++calls === 1 ? { status: 400, headers: { 'x-amzn-errortype': 'ServiceQuotaExceededException', 'retry-after': '0' }, json: { message: 'quota' } } : { json: converseAnswer('end_turn', [{ text: 'Sunny.' }]) });
    const response = await gateway.post('/v1/chat/completions', ask(BEDROCK_MODEL), { ...bedrock(), 'x-gw-config': JSON.stringify({ retry: { attempts: 1 } }) });
    expect(response.status).toBe(200);
    expect(upstream.requests).toHaveLength(2);
  });
});

describe('Gemini: RetryInfo.retryDelay becomes retry-after', () => {
  it('a RESOURCE_EXHAUSTED with retryDelay "36.4s" answers 429 with retry-after: 37', async () => {
    const body = {
      error: {
        code: 429,
        message: 'Resource has been exhausted (e.g. check quota).',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests' }] },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '36.4s' },
        ],
      },
    };
    answer = () => ({ status: 429, json: body });
    const response = await gateway.post('/v1/chat/completions', ask('gemini-2.5-flash'), google());
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('37');
    expect(await response.json()).toEqual({
      error: { message: 'Resource has been exhausted (e.g. check quota).', type: 'upstream_error', code: 'resource_exhausted', param: null, provider_error: body },
      status: 'failure',
    });
  });

  it('a provider retry-after header is kept over the body', async () => {
    answer = () => ({ status: 429, headers: { 'retry-after': '5' }, json: { error: { code: 429, message: 'slow down', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '60s' }] } } });
    const response = await gateway.post('/v1/chat/completions', ask('gemini-2.5-flash'), google());
    expect(response.headers.get('retry-after')).toBe('5');
  });
});

const malformedGemini = { candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'MALFORMED_FUNCTION_CALL', finishMessage: 'Malformed function call: print(get_weather(city=Paris' }], usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 } };

describe('malformed tool calls end in an explicit error', () => {
  it('Gemini MALFORMED_FUNCTION_CALL, not streamed: 502 malformed_function_call with Gemini’s explanation', async () => {
    answer = () => ({ json: malformedGemini });
    const response = await gateway.post('/v1/chat/completions', ask('gemini-2.5-flash', { tools }), google());
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      error: {
        message: expect.stringContaining('Malformed function call: print(get_weather(city=Paris'),
        type: 'upstream_error',
        code: 'malformed_function_call',
        param: null,
        provider_error: malformedGemini,
      },
      status: 'failure',
    });
  });

  it('Gemini MALFORMED_FUNCTION_CALL, streamed after some text: an error event ends the stream, no finish_reason stop', async () => {
    const first = { candidates: [{ content: { role: 'model', parts: [{ text: 'Let me check.' }] } }] };
    answer = () => ({ headers: { 'content-type': 'text/event-stream' }, chunks: [`data: ${JSON.stringify(first)}\r\n\r\n`, `data: ${JSON.stringify(malformedGemini)}\r\n\r\n`], chunkDelayMs: 2 });
    const response = await gateway.post('/v1/chat/completions', ask('gemini-2.5-flash', { tools, stream: true }), google());
    expect(response.status).toBe(200);
    const events = await readSseEvents(response);
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({ error: { code: 'malformed_function_call', type: 'upstream_error' }, status: 'failure' });
    expect(events.some((event) => event.data.includes('"finish_reason":"stop"'))).toBe(false);
  });

  it('Bedrock malformed_tool_use, not streamed: 502 naming it', async () => {
    answer = () => ({ json: converseAnswer('malformed_tool_use', []) });
    const response = await gateway.post('/v1/chat/completions', ask(BEDROCK_MODEL, { tools }), bedrock());
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'malformed_tool_use', message: expect.stringContaining('could not be parsed') });
  });

  it('Bedrock malformed_tool_use, streamed after some text: an error event, no stop', async () => {
    const parts = [
      eventMessage('messageStart', { role: 'assistant' }),
      eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Checking.' } }),
      eventMessage('contentBlockStop', { contentBlockIndex: 0 }),
      eventMessage('messageStop', { stopReason: 'malformed_tool_use' }),
    ];
    answer = () => ({ headers: { 'content-type': 'application/vnd.amazon.eventstream' }, chunks: parts, chunkDelayMs: 2 });
    const response = await gateway.post('/v1/chat/completions', ask(BEDROCK_MODEL, { tools, stream: true }), bedrock());
    expect(response.status).toBe(200);
    const events = await readSseEvents(response);
    expect(events.at(-1)!.event).toBe('error');
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ error: { code: 'malformed_tool_use' } });
    expect(events.some((event) => event.data.includes('"finish_reason":"stop"'))).toBe(false);
  });

  it('Anthropic, streamed: tool input that is not JSON at a tool_use stop is an error event, not tool_calls', async () => {
    const sse = [
      ['message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude-sonnet-4-5', usage: { input_tokens: 5, output_tokens: 1 } } }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"city": "Par' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }],
      ['message_stop', { type: 'message_stop' }],
    ]
      .map(([name, data]) => `event: ${name as string}\ndata: ${JSON.stringify(data)}\n\n`)
      .join('');
    answer = () => ({ headers: { 'content-type': 'text/event-stream' }, chunks: [sse] });
    const response = await gateway.post('/v1/chat/completions', ask('claude-sonnet-4-5', { tools, stream: true }), anthropic());
    expect(response.status).toBe(200);
    const events = await readSseEvents(response);
    expect(events.at(-1)!.event).toBe('error');
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ error: { code: 'malformed_tool_use', message: expect.stringContaining("'get_weather'") } });
    expect(events.some((event) => event.data.includes('"finish_reason":"tool_calls"'))).toBe(false);
  });
});

function converseAnswer(stopReason: string, content: unknown[]): Record<string, unknown> {
  return { output: { message: { role: 'assistant', content } }, stopReason, usage: { inputTokens: 5, outputTokens: 3, totalTokens: 8 }, metrics: { latencyMs: 10 } };
}
