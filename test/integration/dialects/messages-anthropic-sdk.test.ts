import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventMessage } from '../../fixtures/bedrock/event-stream.js';
import { ANTHROPIC_MOCK_TEXT, anthropicMockHandler, MOCK_RATE_LIMIT_HEADERS } from '../../support/mock-anthropic.js';
import { OPENAI_MOCK_TEXT } from '../../support/mock-openai-dialects.js';
import { startMockUpstream, type MockUpstream, type ScriptedResponse } from '../../support/mock-upstream.js';
import { fallbackConfig, targetHeaders, useDialectRig, type DialectRig } from './dialect-setup.js';

let rig: DialectRig;
useDialectRig((started) => (rig = started));

const MODEL = 'claude-mock-1';
type Target = 'anthropic' | 'openai';

/** The official Anthropic SDK pointed at gw: the gw key as a default header, the provider key as the SDK's key. */
function client(target: Target, extra: Record<string, string> = {}): Anthropic {
  return new Anthropic({
    baseURL: rig.gateway.url,
    apiKey: 'sk-provider-key',
    maxRetries: 0,
    defaultHeaders: { 'x-gw-api-key': rig.gateway.apiKey, ...targetHeaders(target, target === 'anthropic' ? rig.anthropic : rig.openai), ...extra },
  });
}

const weatherTool = { name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object' as const, properties: { location: { type: 'string' } }, required: ['location'] } };
const expectedText = (target: Target) => (target === 'anthropic' ? ANTHROPIC_MOCK_TEXT : OPENAI_MOCK_TEXT);

describe.each<Target>(['anthropic', 'openai'])('POST /v1/messages with the Anthropic SDK, %s target', (target) => {
  it('messages.create answers an Anthropic Message with usage', async () => {
    const message = await client(target).messages.create({ model: MODEL, max_tokens: 256, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: expectedText(target) }], stop_reason: 'end_turn' });
    expect(message.id).toMatch(/^msg_/);
    // Anthropic's input_tokens exclude cache reads (25 + 5 cached upstream on Anthropic; 20 prompt incl. 4 cached on OpenAI).
    expect(message.usage).toMatchObject(target === 'anthropic' ? { input_tokens: 25, output_tokens: 15, cache_read_input_tokens: 5 } : { input_tokens: 16, output_tokens: 10, cache_read_input_tokens: 4 });
  });

  it('messages.stream delivers the events the SDK accumulates into finalMessage()', async () => {
    const stream = client(target).messages.stream({ model: MODEL, max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }] });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: expectedText(target) }]);
    expect(message.stop_reason).toBe('end_turn');
    // The usage of message_delta: the Anthropic mock's own, or the OpenAI mock's stream usage (12 completion tokens).
    expect(message.usage.output_tokens).toBe(target === 'anthropic' ? 15 : 12);
    const withoutPing = types.filter((type) => type !== 'ping');
    expect(withoutPing[0]).toBe('message_start');
    expect(withoutPing[1]).toBe('content_block_start');
    expect(withoutPing.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(withoutPing.filter((type) => type === 'content_block_delta').length).toBeGreaterThan(1);
  });

  it('runs a tool-use round trip: tool_use, then the tool_result answered with text', async () => {
    const anthropic = client(target);
    const first = await anthropic.messages.create({ model: MODEL, max_tokens: 256, tools: [weatherTool], messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    expect(first.stop_reason).toBe('tool_use');
    const call = first.content.find((block) => block.type === 'tool_use');
    expect(call).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { location: 'Paris' } });
    const second = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 256,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call!.type === 'tool_use' ? call!.id : '', content: '21°C and sunny' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: expectedText(target) }]);
    if (target === 'openai') {
      // Translated: the tool result became a `tool` message right after the assistant's tool call.
      const sent = rig.openai.requests.at(-1)!.json as { messages: Array<Record<string, unknown>> };
      expect(sent.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
      expect(sent.messages[2]).toMatchObject({ role: 'tool', content: '21°C and sunny' });
    }
  });

  it('streams a tool call as input_json_delta events the SDK assembles', async () => {
    const message = await client(target).messages.stream({ model: MODEL, max_tokens: 256, tools: [weatherTool], messages: [{ role: 'user', content: 'Weather?' }] }).finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.find((block) => block.type === 'tool_use')).toMatchObject({ name: 'get_weather', input: { location: 'Paris' } });
  });

  it('countTokens counts natively on Anthropic and with gpt-tokenizer elsewhere', async () => {
    const anthropic = client(target);
    const { data, response } = await anthropic.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'How many tokens is this sentence?' }] }).withResponse();
    if (target === 'anthropic') {
      expect(data.input_tokens).toBe(42);
      expect(response.headers.get('x-gw-token-count-source')).toBe('anthropic');
      expect(rig.anthropic.requests.at(-1)!.path).toBe('/messages/count_tokens');
    } else {
      expect(data.input_tokens).toBeGreaterThan(5);
      expect(data.input_tokens).toBeLessThan(20);
      expect(response.headers.get('x-gw-token-count-source')).toBe('gpt-tokenizer/o200k_base');
    }
  });

  it('falls back from a failing target to this one', async () => {
    const anthropic = new Anthropic({
      baseURL: rig.gateway.url,
      apiKey: 'unused',
      maxRetries: 0,
      defaultHeaders: { 'x-gw-api-key': rig.gateway.apiKey, 'x-gw-config': fallbackConfig(target === 'anthropic' ? 'openai' : 'anthropic', rig, target) },
    });
    const { data, response } = await anthropic.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    expect(data.content).toEqual([{ type: 'text', text: expectedText(target) }]);
    expect(response.headers.get('x-gw-provider')).toBe(target);
    expect(response.headers.get('x-gw-last-used-option-index')).toBe('config.targets[1]');
  });
});

describe('POST /v1/messages: native pass-through to Anthropic', () => {
  it('sends the body as it is (cache_control, thinking) and relays rate-limit headers and the request id', async () => {
    const body = {
      model: MODEL,
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      system: [{ type: 'text', text: 'Long cached context', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] }],
    };
    const response = await rig.gateway.post('/v1/messages', body, { ...targetHeaders('anthropic', rig.anthropic), 'x-api-key': 'sk-provider-key', 'anthropic-beta': 'interleaved-thinking-2025-05-14' });
    expect(response.status).toBe(200);
    const seen = rig.anthropic.requests.at(-1)!;
    expect(seen.json).toEqual({ ...body, stream: false });
    expect(seen.headers['x-api-key']).toBe('sk-provider-key');
    expect(seen.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    expect(response.headers.get('anthropic-ratelimit-requests-remaining')).toBe(MOCK_RATE_LIMIT_HEADERS['anthropic-ratelimit-requests-remaining']);
    expect(response.headers.get('x-gw-upstream-request-id')).toBe('req_anthropic_mock');
    const message = (await response.json()) as { content: Array<Record<string, unknown>> };
    expect(message.content[0]).toEqual({ type: 'thinking', thinking: 'Let me think.', signature: 'sig_mock' });
  });

  it('streams thinking_delta and signature_delta through unchanged', async () => {
    const stream = client('anthropic').messages.stream({ model: MODEL, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Hi' }] });
    const deltas: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta') deltas.push(event.delta.type);
    });
    const message = await stream.finalMessage();
    expect(deltas.slice(0, 2)).toEqual(['thinking_delta', 'signature_delta']);
    expect(message.content[0]).toEqual({ type: 'thinking', thinking: 'Let me think.', signature: 'sig_mock' });
  });

  it('sends Claude on Vertex AI the Messages body natively at rawPredict / streamRawPredict', async () => {
    const vertex = { 'x-gw-provider': 'vertex-ai', 'x-gw-vertex-project-id': 'proj', 'x-gw-vertex-region': 'us-east5', 'x-gw-custom-host': rig.anthropic.url };
    const anthropic = new Anthropic({ baseURL: rig.gateway.url, authToken: 'ya29.google-token', apiKey: null, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': rig.gateway.apiKey, ...vertex } });
    const tools = [{ ...weatherTool, cache_control: { type: 'ephemeral' as const } }];
    const message = await anthropic.messages.create({ model: 'claude-sonnet-4-5@20250929', max_tokens: 64, tools, messages: [{ role: 'user', content: 'Weather?' }] });
    expect(message.content[0]).toMatchObject({ type: 'tool_use', input: { location: 'Paris' } });
    const seen = rig.anthropic.requests.at(-1)!;
    expect(seen.path).toBe('/v1/projects/proj/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict');
    expect(seen.headers.authorization).toBe('Bearer ya29.google-token');
    expect(seen.json).toEqual({ max_tokens: 64, tools, messages: [{ role: 'user', content: 'Weather?' }], anthropic_version: 'vertex-2023-10-16', stream: false });
    const streamed = await anthropic.messages.stream({ model: 'claude-sonnet-4-5@20250929', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage();
    expect(streamed.content).toEqual([{ type: 'text', text: ANTHROPIC_MOCK_TEXT }]);
    expect(rig.anthropic.requests.at(-1)!.path).toMatch(/:streamRawPredict$/);
  });

  it('refuses an Anthropic server tool on a non-Anthropic target, naming it', async () => {
    const response = await rig.gateway.post(
      '/v1/messages',
      { model: MODEL, max_tokens: 64, tools: [{ type: 'web_search_20250305', name: 'web_search' }], messages: [{ role: 'user', content: 'Hi' }] },
      targetHeaders('openai', rig.openai),
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toContain('web_search_20250305');
  });
});

describe('POST /v1/messages: Claude on Bedrock natively through InvokeModel', () => {
  let bedrock: MockUpstream;
  const claude = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
  beforeAll(async () => {
    bedrock = await startMockUpstream((request) => {
      const anthropic = anthropicMockHandler()({ ...request, json: { ...(request.json as object), model: claude, stream: request.path.endsWith('-stream') } }) as ScriptedResponse;
      if (!request.path.endsWith('-stream')) return { json: anthropic.json };
      // Each Anthropic SSE event becomes one `chunk` event-stream message with the event JSON base64-encoded.
      const events = (anthropic.chunks as string[]).map((chunk) => chunk.split('data: ')[1].trim());
      return { headers: { 'content-type': 'application/vnd.amazon.eventstream' }, chunks: events.map((data) => eventMessage('chunk', { bytes: Buffer.from(data).toString('base64') })) };
    });
  });
  afterAll(() => bedrock.close());

  const viaBedrock = () => ({ 'x-gw-provider': 'bedrock', 'x-gw-aws-region': 'us-east-1', 'x-gw-custom-host': bedrock.url });

  it('sends the Messages body to invoke and answers Bedrock’s Message as it is', async () => {
    const anthropic = new Anthropic({ baseURL: rig.gateway.url, authToken: 'bedrock-api-key', apiKey: null, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': rig.gateway.apiKey, ...viaBedrock() } });
    const body = { model: claude, max_tokens: 64, system: [{ type: 'text' as const, text: 'ctx', cache_control: { type: 'ephemeral' as const } }], messages: [{ role: 'user' as const, content: 'Hi' }] };
    const message = await anthropic.messages.create(body);
    expect(message.content).toEqual([{ type: 'text', text: ANTHROPIC_MOCK_TEXT }]);
    const seen = bedrock.requests.at(-1)!;
    expect(seen.path).toBe(`/model/${encodeURIComponent(claude)}/invoke`);
    expect(seen.headers.authorization).toBe('Bearer bedrock-api-key');
    expect(seen.json).toEqual({ max_tokens: 64, system: body.system, messages: body.messages, anthropic_version: 'bedrock-2023-05-31' });
  });

  it('relays invoke-with-response-stream chunks as Anthropic events the SDK accumulates', async () => {
    const anthropic = new Anthropic({ baseURL: rig.gateway.url, authToken: 'bedrock-api-key', apiKey: null, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': rig.gateway.apiKey, ...viaBedrock() } });
    const message = await anthropic.messages.stream({ model: claude, max_tokens: 64, tools: [weatherTool], messages: [{ role: 'user', content: 'Weather?' }] }).finalMessage();
    expect(message.content.find((block) => block.type === 'tool_use')).toMatchObject({ name: 'get_weather', input: { location: 'Paris' } });
    expect(message.usage).toMatchObject({ input_tokens: 25, output_tokens: 15 });
    expect(bedrock.requests.at(-1)!.path).toBe(`/model/${encodeURIComponent(claude)}/invoke-with-response-stream`);
  });
});

describe('POST /v1/messages: errors in Anthropic’s shape', () => {
  it('a body without max_tokens is a 400 the SDK raises as BadRequestError', async () => {
    const error = await client('anthropic')
      .messages.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] } as unknown as Anthropic.MessageCreateParamsNonStreaming)
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it('a wrong gw key is a 401 authentication_error', async () => {
    const response = await rig.gateway.post('/v1/messages', { model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }, { 'x-gw-api-key': 'gwk_wrong' });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });

  it('an upstream overload keeps its status and Anthropic error type', async () => {
    const overloaded = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    rig.anthropic.setHandler(() => ({ status: 529, json: overloaded }));
    try {
      const error = await client('anthropic').messages.create({ model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(Anthropic.APIError);
      expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
      expect((error as InstanceType<typeof Anthropic.APIError>).error).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    } finally {
      rig.anthropic.setHandler(anthropicMockHandler());
    }
  });

  it('an error after the stream started ends it with an Anthropic error event', async () => {
    rig.anthropic.setHandler(() => ({
      chunks: [
        `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_x', type: 'message', role: 'assistant', model: MODEL, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } })}\n\n`,
        `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n`,
        `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } })}\n\n`,
        `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`,
      ],
      chunkDelayMs: 5,
    }));
    try {
      const stream = client('anthropic').messages.stream({ model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] });
      const error = await stream.finalMessage().catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(Anthropic.APIError);
      expect(String((error as Error).message)).toContain('overloaded_error');
    } finally {
      rig.anthropic.setHandler(anthropicMockHandler());
    }
  });
});
