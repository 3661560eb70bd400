import { beforeEach, describe, expect, it } from 'vitest';
import { fixtureJson } from '../../fixtures/google/mock-gemini.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream, RecordedRequest, ScriptedResponse } from '../../support/mock-upstream.js';

/** Nothing a client sends is silently lost: the exact body Bedrock and Gemini receive. */
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream((request) => answerFor(request), (started) => ({ gateway, upstream } = started));
beforeEach(() => {
  upstream.requests.length = 0;
});

function answerFor(request: RecordedRequest): ScriptedResponse {
  if (request.path.includes('/model/')) {
    return { json: { output: { message: { role: 'assistant', content: [{ text: 'ok' }] } }, stopReason: 'end_turn', usage: { inputTokens: 5, outputTokens: 1, totalTokens: 6 } } };
  }
  return { json: fixtureJson('generate-content-text.json') };
}

const bedrock = () => ({
  'x-gw-provider': 'bedrock',
  'x-gw-custom-host': upstream.url,
  'x-gw-aws-access-key-id': 'AKIDEXAMPLE',
  'x-gw-aws-secret-access-key': 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  'x-gw-aws-region': 'us-east-1',
});
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const ephemeral = { type: 'ephemeral' };
const tool = (name: string, extra: Record<string, unknown> = {}) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } }, ...extra });
const screenshotTurns = [
  { role: 'user', content: 'Take a screenshot' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'Here it is' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }] },
];

describe('Bedrock', () => {
  it('cache_control on system, message parts and tools → cachePoint blocks after them', async () => {
    const body = {
      model: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Long rules', cache_control: ephemeral }] },
        { role: 'user', content: [{ type: 'text', text: 'Big document', cache_control: ephemeral }, { type: 'text', text: 'Question?' }] },
      ],
      tools: [tool('a'), tool('b', { cache_control: ephemeral })],
    };
    const response = await gateway.post('/v1/chat/completions', body, bedrock());
    expect(response.status).toBe(200);
    const schema = { json: { type: 'object', properties: {} } };
    expect(upstream.requests[0].json).toEqual({
      system: [{ text: 'Long rules' }, { cachePoint: { type: 'default' } }],
      messages: [{ role: 'user', content: [{ text: 'Big document' }, { cachePoint: { type: 'default' } }, { text: 'Question?' }] }],
      toolConfig: { tools: [{ toolSpec: { name: 'a', inputSchema: schema } }, { toolSpec: { name: 'b', inputSchema: schema } }, { cachePoint: { type: 'default' } }] },
    });
  });

  it('top_k → additionalModelRequestFields (top_k for Claude, inferenceConfig.topK for Nova)', async () => {
    await gateway.post('/v1/chat/completions', { model: 'anthropic.claude-3-5-sonnet-20240620-v1:0', messages: [{ role: 'user', content: 'Hi' }], top_k: 40 }, bedrock());
    expect((upstream.requests[0].json as Record<string, unknown>).additionalModelRequestFields).toEqual({ top_k: 40 });
    await gateway.post('/v1/chat/completions', { model: 'amazon.nova-pro-v1:0', messages: [{ role: 'user', content: 'Hi' }], top_k: 40 }, bedrock());
    expect((upstream.requests[1].json as Record<string, unknown>).additionalModelRequestFields).toEqual({ inferenceConfig: { topK: 40 } });
  });

  it('a bad top_k is a 400 naming it', async () => {
    const response = await gateway.post('/v1/chat/completions', { model: 'amazon.nova-pro-v1:0', messages: [{ role: 'user', content: 'Hi' }], top_k: 'many' }, bedrock());
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string; code: string } }).error).toMatchObject({ param: 'top_k', code: 'invalid_parameter' });
  });

  it('a PDF file part → a document block (named from the filename); a file_id is a 400 naming the part', async () => {
    const pdf = 'JVBERi0xLjQKJcfsj6IK';
    const content = [{ type: 'text', text: 'Summarise' }, { type: 'file', file: { filename: 'Q3 report (final).pdf', file_data: `data:application/pdf;base64,${pdf}` } }];
    const response = await gateway.post('/v1/chat/completions', { model: 'anthropic.claude-3-5-sonnet-20240620-v1:0', messages: [{ role: 'user', content }] }, bedrock());
    expect(response.status).toBe(200);
    expect(upstream.requests[0].json).toEqual({
      messages: [{ role: 'user', content: [{ text: 'Summarise' }, { document: { format: 'pdf', name: 'Q3 report (final) 2', source: { bytes: pdf } } }] }],
    });
    const byId = await gateway.post('/v1/chat/completions', { model: 'anthropic.claude-3-5-sonnet-20240620-v1:0', messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }] }, bedrock());
    expect(byId.status).toBe(400);
    expect(((await byId.json()) as { error: { param: string } }).error.param).toBe('messages[0].content[0].file.file_data');
    expect(upstream.requests).toHaveLength(1);
  });

  it('an image inside a tool result is kept as an image block of the toolResult', async () => {
    const response = await gateway.post('/v1/chat/completions', { model: 'anthropic.claude-3-5-sonnet-20240620-v1:0', messages: screenshotTurns, tools: [tool('screenshot')] }, bedrock());
    expect(response.status).toBe(200);
    const sent = upstream.requests[0].json as { messages: Array<{ role: string; content: unknown[] }> };
    expect(sent.messages[2]).toEqual({
      role: 'user',
      content: [{ toolResult: { toolUseId: 'call_1', content: [{ text: 'Here it is' }, { image: { format: 'png', source: { bytes: PNG } } }] } }],
    });
  });
});

describe.each([
  ['google', () => ({ 'x-gw-provider': 'google', 'x-gw-custom-host': `${upstream.url}/v1beta`, authorization: 'Bearer AIzaSy-test-secret-key' })],
  ['vertex-ai', () => ({ 'x-gw-provider': 'vertex-ai', 'x-gw-vertex-project-id': 'my-project', 'x-gw-vertex-region': 'us-central1', 'x-gw-custom-host': upstream.url, authorization: 'Bearer ya29.test-token' })],
] as const)('%s (Gemini)', (_name, headers) => {
  it('an image inside a tool result follows the functionResponse in the same user turn', async () => {
    const response = await gateway.post('/v1/chat/completions', { model: 'gemini-2.5-flash', messages: screenshotTurns, tools: [tool('screenshot')] }, headers());
    expect(response.status).toBe(200);
    const sent = upstream.requests[0].json as { contents: Array<{ role: string; parts: unknown[] }> };
    expect(sent.contents[2]).toEqual({
      role: 'user',
      parts: [{ functionResponse: { name: 'screenshot', response: { result: 'Here it is' } } }, { inlineData: { mimeType: 'image/png', data: PNG } }],
    });
  });
});
