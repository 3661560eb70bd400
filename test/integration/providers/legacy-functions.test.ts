import { beforeEach, describe, expect, it } from 'vitest';
import { fixtureBytes, fixtureJson } from '../../fixtures/google/mock-gemini.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream, RecordedRequest, ScriptedResponse } from '../../support/mock-upstream.js';
import { readSseEvents } from '../../support/sse-client.js';

/**
 * A request made with the legacy `functions` / `function_call` API is answered in that form on Gemini and
 * Vertex AI Gemini: `message.function_call`, `finish_reason: "function_call"`, streamed `delta.function_call`.
 * (Anthropic and Bedrock: test/unit/providers/{anthropic,bedrock}/ response and stream tests.)
 */
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream((request) => answerFor(request), (started) => ({ gateway, upstream } = started));
beforeEach(() => {
  upstream.requests.length = 0;
});

function answerFor(request: RecordedRequest): ScriptedResponse {
  if (request.path.includes(':streamGenerateContent')) return { headers: { 'content-type': 'text/event-stream' }, chunks: [fixtureBytes('stream-tool-calls.sse')] };
  return { json: fixtureJson('generate-content-function-calls.json') };
}

const targets = [
  ['google', () => ({ 'x-gw-provider': 'google', 'x-gw-custom-host': `${upstream.url}/v1beta`, authorization: 'Bearer AIzaSy-test-secret-key' })],
  [
    'vertex-ai',
    () => ({ 'x-gw-provider': 'vertex-ai', 'x-gw-vertex-project-id': 'my-project', 'x-gw-vertex-region': 'us-central1', 'x-gw-custom-host': upstream.url, authorization: 'Bearer ya29.test-token' }),
  ],
] as const;
const functions = [
  { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
  { name: 'get_time', parameters: { type: 'object', properties: { timezone: { type: 'string' } } } },
];
const legacy = (extra: Record<string, unknown> = {}) => ({ model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'Weather and time in Paris?' }], functions, function_call: 'auto', ...extra });

describe.each(targets)('%s: legacy functions', (_name, headers) => {
  it('not streamed: message.function_call (the first call) and finish_reason function_call, no tool_calls', async () => {
    const response = await gateway.post('/v1/chat/completions', legacy(), headers());
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: Array<{ message: Record<string, unknown>; finish_reason: string }> };
    expect(body.choices[0].finish_reason).toBe('function_call');
    expect(body.choices[0].message).toEqual({
      role: 'assistant',
      content: null,
      refusal: null,
      function_call: { name: 'get_weather', arguments: '{"location":"Paris","unit":"celsius"}' },
    });
    expect(upstream.requests[0].json).toMatchObject({
      tools: [{ functionDeclarations: [{ name: 'get_weather' }, { name: 'get_time' }] }],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    });
  });

  it('streamed: delta.function_call name then arguments, finish_reason function_call', async () => {
    const response = await gateway.post('/v1/chat/completions', legacy({ stream: true }), headers());
    expect(response.status).toBe(200);
    const chunks = (await readSseEvents(response))
      .filter((event) => event.event === undefined && event.data !== '[DONE]')
      .map((event) => JSON.parse(event.data) as { choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }> });
    const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta));
    expect(deltas.some((delta) => delta.tool_calls !== undefined)).toBe(false);
    const calls = deltas.filter((delta) => delta.function_call).map((delta) => delta.function_call as { name?: string; arguments: string });
    expect(calls[0]).toEqual({ name: 'get_weather', arguments: '' });
    expect(JSON.parse(calls.map((call) => call.arguments).join(''))).toEqual({ location: 'Zürich', unit: 'celsius', days: [1, 2] });
    expect(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual(['function_call']);
  });

  it('with tools (not legacy) the same answer is tool_calls', async () => {
    const tools = functions.map((fn) => ({ type: 'function', function: fn }));
    const response = await gateway.post('/v1/chat/completions', { model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'Hi' }], tools }, headers());
    const body = (await response.json()) as { choices: Array<{ message: Record<string, unknown>; finish_reason: string }> };
    expect(body.choices[0].finish_reason).toBe('tool_calls');
    expect(body.choices[0].message.function_call).toBeUndefined();
    expect(body.choices[0].message.tool_calls).toHaveLength(2);
  });
});
