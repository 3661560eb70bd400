import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { anthropicJsonFixture, anthropicSseFixture } from '../../fixtures/anthropic/index.js';
import { concatBytes, encodeEvents, loadRecordedStream } from '../../fixtures/bedrock/event-stream.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream, RecordedRequest, ScriptedResponse } from '../../support/mock-upstream.js';
import { readSseEvents } from '../../support/sse-client.js';

/**
 * `reasoning_effort` → Claude extended thinking on every target that serves Claude by translation, and the
 * thinking (with its signature) back as `reasoning_content` / `thinking_blocks`, through real HTTP.
 */
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream((request) => answerFor(request), (started) => ({ gateway, upstream } = started));
beforeEach(() => {
  upstream.requests.length = 0;
});

const bedrockFixture = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/bedrock/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

function answerFor(request: RecordedRequest): ScriptedResponse {
  const streamed = request.path.endsWith('converse-stream') || request.path.endsWith(':streamRawPredict') || (request.json as { stream?: unknown } | undefined)?.stream === true;
  if (request.path.includes('/model/')) {
    if (streamed) return { headers: { 'content-type': 'application/vnd.amazon.eventstream' }, chunks: [concatBytes(encodeEvents(loadRecordedStream('converse-stream-reasoning.json')))] };
    return { json: bedrockFixture('converse-response-reasoning.json') };
  }
  if (streamed) return { headers: { 'content-type': 'text/event-stream' }, chunks: [anthropicSseFixture('stream-thinking')] };
  return { json: anthropicJsonFixture('message-thinking') };
}

const anthropic = () => ({ 'x-gw-provider': 'anthropic', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-ant-provider-secret' });
const bedrock = () => ({
  'x-gw-provider': 'bedrock',
  'x-gw-custom-host': upstream.url,
  'x-gw-aws-access-key-id': 'AKIDEXAMPLE',
  'x-gw-aws-secret-access-key': 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  'x-gw-aws-region': 'us-east-1',
});
const vertex = () => ({
  'x-gw-provider': 'vertex-ai',
  'x-gw-vertex-project-id': 'my-project',
  'x-gw-vertex-region': 'us-central1',
  'x-gw-custom-host': upstream.url,
  authorization: 'Bearer ya29.test-token',
});

const CLAUDE = 'claude-sonnet-4-5-20250929';
const BEDROCK_CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const VERTEX_CLAUDE = 'claude-sonnet-4-5@20250929';
const ask = [{ role: 'user', content: 'What is 27 * 453?' }];

describe('reasoning_effort → Claude extended thinking: the body each provider receives', () => {
  it.each([
    ['low', 1024],
    ['medium', 4096],
    ['high', 16384],
  ])('Anthropic: %s is a %i-token budget with max_tokens raised to budget + requested output', async (effort, budget) => {
    const response = await gateway.post('/v1/chat/completions', { model: CLAUDE, messages: ask, reasoning_effort: effort, max_completion_tokens: 500 }, anthropic());
    expect(response.status).toBe(200);
    expect(upstream.requests[0].json).toEqual({
      model: CLAUDE,
      messages: [{ role: 'user', content: 'What is 27 * 453?' }],
      max_tokens: budget + 500,
      thinking: { type: 'enabled', budget_tokens: budget },
      stream: false,
    });
  });

  it.each(['none', 'minimal'])('Anthropic: %s switches thinking off (no thinking field, default max_tokens)', async (effort) => {
    const response = await gateway.post('/v1/chat/completions', { model: CLAUDE, messages: ask, reasoning_effort: effort }, anthropic());
    expect(response.status).toBe(200);
    expect(upstream.requests[0].json).toEqual({ model: CLAUDE, messages: [{ role: 'user', content: 'What is 27 * 453?' }], max_tokens: 4096, stream: false });
  });

  it('Bedrock Claude: thinking in additionalModelRequestFields and maxTokens above the budget', async () => {
    const response = await gateway.post('/v1/chat/completions', { model: BEDROCK_CLAUDE, messages: ask, reasoning_effort: 'medium', temperature: 1 }, bedrock());
    expect(response.status).toBe(200);
    expect(upstream.requests[0].path).toBe(`/model/${encodeURIComponent(BEDROCK_CLAUDE)}/converse`);
    expect(upstream.requests[0].json).toEqual({
      messages: [{ role: 'user', content: [{ text: 'What is 27 * 453?' }] }],
      inferenceConfig: { maxTokens: 4096 + 4096, temperature: 1 },
      additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 4096 } },
    });
  });

  it('Vertex AI Claude: the Messages body carries the thinking and the raised max_tokens', async () => {
    const response = await gateway.post('/v1/chat/completions', { model: VERTEX_CLAUDE, messages: ask, reasoning_effort: 'high', max_tokens: 1000 }, vertex());
    expect(response.status).toBe(200);
    expect(upstream.requests[0].path).toMatch(/\/anthropic\/models\/claude-sonnet-4-5@20250929:rawPredict$/);
    expect(upstream.requests[0].json).toEqual({
      messages: [{ role: 'user', content: 'What is 27 * 453?' }],
      max_tokens: 16384 + 1000,
      thinking: { type: 'enabled', budget_tokens: 16384 },
      stream: false,
      anthropic_version: 'vertex-2023-10-16',
    });
  });

  it("the Responses dialect's reasoning.effort reaches Anthropic as thinking", async () => {
    const response = await gateway.post('/v1/responses', { model: CLAUDE, input: 'What is 27 * 453?', reasoning: { effort: 'low' }, max_output_tokens: 300 }, anthropic());
    expect(response.status).toBe(200);
    expect(upstream.requests[0].json).toMatchObject({ max_tokens: 1024 + 300, thinking: { type: 'enabled', budget_tokens: 1024 } });
  });

  it('a non-Claude Bedrock model refuses reasoning_effort by name, or drops it on request and says so', async () => {
    const model = 'amazon.nova-pro-v1:0';
    const refused = await gateway.post('/v1/chat/completions', { model, messages: ask, reasoning_effort: 'low' }, bedrock());
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: { message: expect.stringContaining('`reasoning_effort`'), type: 'invalid_request_error', code: 'unsupported_parameter', param: 'reasoning_effort' },
      status: 'failure',
    });
    const dropped = await gateway.post('/v1/chat/completions', { model, messages: ask, reasoning_effort: 'low' }, { ...bedrock(), 'x-gw-drop-unsupported-params': 'true' });
    expect(dropped.status).toBe(200);
    expect(dropped.headers.get('x-gw-dropped-params')).toBe('reasoning_effort');
    expect(upstream.requests.at(-1)!.json).toEqual({ messages: [{ role: 'user', content: [{ text: 'What is 27 * 453?' }] }] });
  });

  it('an unknown effort is a 400 naming reasoning_effort and nothing reaches the provider', async () => {
    const response = await gateway.post('/v1/chat/completions', { model: CLAUDE, messages: ask, reasoning_effort: 'extreme' }, anthropic());
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { message: expect.stringContaining('none, minimal, low, medium, high'), type: 'invalid_request_error', code: 'invalid_parameter', param: 'reasoning_effort' },
      status: 'failure',
    });
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('sampling parameters Claude refuses while thinking', () => {
  it.each([
    ['anthropic', anthropic, CLAUDE],
    ['bedrock', bedrock, BEDROCK_CLAUDE],
    ['vertex-ai', vertex, VERTEX_CLAUDE],
  ] as const)('%s: temperature and top_k are a 400 naming them; dropped on request and listed in x-gw-dropped-params', async (_name, headers, model) => {
    const body = { model, messages: ask, reasoning_effort: 'low', temperature: 0.2, top_k: 5, top_p: 0.99 };
    const refused = await gateway.post('/v1/chat/completions', body, headers());
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: { message: expect.stringContaining('`temperature`, `top_k`'), type: 'invalid_request_error', code: 'unsupported_parameter', param: 'temperature' },
      status: 'failure',
    });
    expect(upstream.requests).toHaveLength(0);

    const dropped = await gateway.post('/v1/chat/completions', body, { ...headers(), 'x-gw-drop-unsupported-params': 'true' });
    expect(dropped.status).toBe(200);
    expect(dropped.headers.get('x-gw-dropped-params')).toBe('temperature,top_k');
    const sent = JSON.stringify(upstream.requests[0].json);
    expect(sent).not.toContain('temperature');
    expect(sent).not.toMatch(/top_?k/i);
    expect(sent).toMatch(/"top_?[pP]":0.99/);
  });

  it('a forced tool choice with thinking is refused by name', async () => {
    const tools = [{ type: 'function', function: { name: 'calc', parameters: { type: 'object', properties: {} } } }];
    const response = await gateway.post('/v1/chat/completions', { model: CLAUDE, messages: ask, reasoning_effort: 'low', tools, tool_choice: 'required' }, anthropic());
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe('tool_choice');
  });
});

describe('thinking back to the client and round-tripped with its signature', () => {
  it('Anthropic, not streamed: reasoning_content plus signed thinking_blocks', async () => {
    const response = await gateway.post('/v1/chat/completions', { model: CLAUDE, messages: ask, reasoning_effort: 'low' }, anthropic());
    const message = ((await response.json()) as { choices: Array<{ message: Record<string, unknown> }> }).choices[0].message;
    expect(message.reasoning_content).toBe('Let me analyze this step by step. 27 * 453 = 27 * 400 + 27 * 53 = 10800 + 1431 = 12231.');
    expect(message.thinking_blocks).toEqual([
      { type: 'thinking', thinking: message.reasoning_content, signature: 'WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB8URj2pLmZNf8t5Zgx' },
    ]);
  });

  it('Anthropic, streamed: reasoning_content deltas and the signature in a thinking_blocks delta', async () => {
    const response = await gateway.post('/v1/chat/completions', { model: CLAUDE, messages: ask, reasoning_effort: 'low', stream: true }, anthropic());
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(upstream.requests[0].json).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 1024 + 4096, stream: true });
    const deltas = (await readSseEvents(response))
      .filter((event) => event.data !== '[DONE]')
      .map((event) => (JSON.parse(event.data) as { choices: Array<{ delta: Record<string, unknown> }> }).choices[0]?.delta ?? {});
    expect(deltas.map((delta) => delta.reasoning_content ?? '').join('')).toContain('453 = 400 + 50 + 3');
    expect(deltas.find((delta) => delta.thinking_blocks)?.thinking_blocks).toEqual([
      { type: 'thinking', thinking: expect.stringContaining('break down 27 * 453'), signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
    ]);
  });

  it.each([
    ['anthropic', anthropic, CLAUDE],
    ['bedrock', bedrock, BEDROCK_CLAUDE],
  ] as const)('%s: the assistant turn sent back with thinking_blocks reaches the model as signed thinking before the tool call', async (name, headers, model) => {
    const tools = [{ type: 'function', function: { name: 'calc', parameters: { type: 'object', properties: { x: { type: 'string' } } } } }];
    const messages = [
      ...ask,
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'Use the calculator.',
        thinking_blocks: [{ type: 'thinking', thinking: 'Use the calculator.', signature: 'c2lnLTE=' }],
        tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'calc', arguments: '{"x":"27*453"}' } }],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: '12231' },
    ];
    const response = await gateway.post('/v1/chat/completions', { model, messages, tools, reasoning_effort: 'low' }, headers());
    expect(response.status).toBe(200);
    const sent = upstream.requests[0].json as { messages: Array<{ role: string; content: unknown[] }> };
    if (name === 'anthropic') {
      expect(sent.messages[1]).toEqual({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Use the calculator.', signature: 'c2lnLTE=' },
          { type: 'tool_use', id: 'toolu_1', name: 'calc', input: { x: '27*453' } },
        ],
      });
    } else {
      expect(sent.messages[1]).toEqual({
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: 'Use the calculator.', signature: 'c2lnLTE=' } } },
          { toolUse: { toolUseId: 'toolu_1', name: 'calc', input: { x: '27*453' } } },
        ],
      });
    }
  });
});
