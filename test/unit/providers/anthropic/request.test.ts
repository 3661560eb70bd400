import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../../../shared/providers/anthropic/adapter.js';
import { JSON_OBJECT_INSTRUCTION } from '../../../../shared/providers/anthropic/constants.js';
import { toAnthropicMessagesBody } from '../../../../shared/providers/anthropic/messages-codec.js';
import { anthropicJsonFixture } from '../../../fixtures/anthropic/index.js';
import { adapterInput, gatewayErrorOf, MODEL } from './helpers.js';

const hello = [{ role: 'user', content: 'Hello' }];
const weatherTool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } };

describe('Anthropic request translation', () => {
  it('translates a recorded agent turn (system, images, parallel tool calls and results, tools) into the documented Messages body', () => {
    const openai = anthropicJsonFixture('request-agent-turn.openai');
    expect(toAnthropicMessagesBody(adapterInput(openai))).toEqual(anthropicJsonFixture('request-agent-turn.anthropic'));
  });

  it('fills in what Anthropic requires for the smallest request: max_tokens 4096, model and stream', () => {
    expect(toAnthropicMessagesBody(adapterInput({ messages: hello }))).toEqual({ model: MODEL, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4096, stream: false });
  });

  it('prefers max_completion_tokens over the deprecated max_tokens', () => {
    const body = toAnthropicMessagesBody(adapterInput({ messages: hello, max_tokens: 100, max_completion_tokens: 200 }));
    expect(body.max_tokens).toBe(200);
  });

  it('hoists system and developer messages from anywhere into one system string when it is a single text', () => {
    const body = toAnthropicMessagesBody(adapterInput({ messages: [{ role: 'user', content: 'Hi' }, { role: 'system', content: 'Be brief.' }] }));
    expect(body.system).toBe('Be brief.');
    expect(body.messages).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('sends stream: true and asks for an event stream when the client streams', () => {
    const input = adapterInput({ messages: hello, stream: true, stream_options: { include_usage: true } });
    const call = anthropicAdapter.buildCall(input) as { body: string; headers: Record<string, string> };
    expect(JSON.parse(call.body)).toMatchObject({ stream: true });
    expect(JSON.parse(call.body)).not.toHaveProperty('stream_options');
    expect(call.headers.accept).toBe('text/event-stream');
  });

  it('maps user and safety_identifier to metadata.user_id', () => {
    expect(toAnthropicMessagesBody(adapterInput({ messages: hello, user: 'u-1' })).metadata).toEqual({ user_id: 'u-1' });
    expect(toAnthropicMessagesBody(adapterInput({ messages: hello, safety_identifier: 'hash-9' })).metadata).toEqual({ user_id: 'hash-9' });
  });

  it('turns stop arrays into stop_sequences and passes top_k through', () => {
    const body = toAnthropicMessagesBody(adapterInput({ messages: hello, stop: ['END', '', '###'], top_k: 40 }));
    expect(body.stop_sequences).toEqual(['END', '###']);
    expect(body.top_k).toBe(40);
  });

  it('translates PDF and plain-text files into document blocks', () => {
    const pdf = Buffer.from('%PDF-1.4 minimal').toString('base64');
    const text = Buffer.from('Meeting notes: ship on Friday.').toString('base64');
    const body = toAnthropicMessagesBody(
      adapterInput({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'file', file: { filename: 'report.pdf', file_data: `data:application/pdf;base64,${pdf}` } },
              { type: 'file', file: { file_data: `data:text/plain;base64,${text}` } },
              { type: 'text', text: 'Summarise both.' },
            ],
          },
        ],
      }),
    );
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf }, title: 'report.pdf' },
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Meeting notes: ship on Friday.' } },
          { type: 'text', text: 'Summarise both.' },
        ],
      },
    ]);
  });
});

describe('Anthropic tools and tool_choice', () => {
  const withTools = (extra: Record<string, unknown>) => toAnthropicMessagesBody(adapterInput({ messages: hello, tools: [weatherTool], ...extra }));

  it.each([
    ['auto', { type: 'auto' }],
    ['none', { type: 'none' }],
    ['required', { type: 'any' }],
    [{ type: 'function', function: { name: 'get_weather' } }, { type: 'tool', name: 'get_weather' }],
  ])('maps tool_choice %j to %j', (choice, expected) => {
    expect(withTools({ tool_choice: choice }).tool_choice).toEqual(expected);
  });

  it('turns parallel_tool_calls: false into disable_parallel_tool_use, with auto when no tool_choice was given', () => {
    expect(withTools({ parallel_tool_calls: false }).tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(withTools({ parallel_tool_calls: false, tool_choice: 'none' }).tool_choice).toEqual({ type: 'none' });
    expect(withTools({ parallel_tool_calls: true })).not.toHaveProperty('tool_choice');
  });

  it('translates the legacy functions API, pairing each function result with its call', () => {
    const body = toAnthropicMessagesBody(
      adapterInput({
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"location":"Oslo"}' } },
          { role: 'function', name: 'get_weather', content: '-3 degrees, snow' },
        ],
        functions: [{ name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } }],
        function_call: { name: 'get_weather' },
      }),
    );
    expect(body.tools).toEqual([{ name: 'get_weather', description: 'Current weather', input_schema: { type: 'object', properties: { location: { type: 'string' } } } }]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'get_weather', disable_parallel_tool_use: true });
    const messages = body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    const toolUse = messages[1].content[0];
    expect(toolUse).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { location: 'Oslo' } });
    expect(messages[2].content).toEqual([{ type: 'tool_result', tool_use_id: toolUse.id, content: '-3 degrees, snow' }]);
  });

  it('keeps assistant text before its tool calls and treats empty arguments as an empty input', () => {
    const body = toAnthropicMessagesBody(
      adapterInput({
        messages: [
          { role: 'user', content: 'What time is it?' },
          { role: 'assistant', content: 'Let me check.', tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 'get_time', arguments: '' } }] },
          { role: 'tool', tool_call_id: 'toolu_01', content: '12:00' },
        ],
      }),
    );
    expect((body.messages as unknown[])[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'toolu_01', name: 'get_time', input: {} },
      ],
    });
  });
});

describe('Anthropic response_format and thinking', () => {
  it('maps json_schema to structured outputs (output_config.format)', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const body = toAnthropicMessagesBody(adapterInput({ messages: hello, response_format: { type: 'json_schema', json_schema: { name: 'city', strict: true, schema } } }));
    expect(body.output_config).toEqual({ format: { type: 'json_schema', schema } });
  });

  it('maps json_object to a system instruction appended after the caller’s own system text', () => {
    const body = toAnthropicMessagesBody(adapterInput({ messages: [{ role: 'system', content: 'You extract contacts.' }, ...hello], response_format: { type: 'json_object' } }));
    expect(body.system).toEqual([
      { type: 'text', text: 'You extract contacts.' },
      { type: 'text', text: JSON_OBJECT_INSTRUCTION },
    ]);
    expect(body).not.toHaveProperty('output_config');
  });

  it('passes thinking through and makes the default max_tokens exceed the thinking budget', () => {
    const body = toAnthropicMessagesBody(adapterInput({ messages: hello, thinking: { type: 'enabled', budget_tokens: 10_000 } }));
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 10_000 });
    expect(body.max_tokens).toBe(14_096);
  });

  it('replays signed thinking_blocks before the assistant text and drops unsigned reasoning_content', () => {
    const body = toAnthropicMessagesBody(
      adapterInput({
        messages: [
          { role: 'user', content: 'Weather in Rome?' },
          {
            role: 'assistant',
            content: null,
            reasoning_content: 'I should call the weather tool.',
            thinking_blocks: [{ type: 'thinking', thinking: 'I should call the weather tool.', signature: 'sig-abc' }],
            tool_calls: [{ id: 'toolu_02', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Rome"}' } }],
          },
          { role: 'tool', tool_call_id: 'toolu_02', content: '24 degrees' },
          { role: 'assistant', content: 'It is 24 degrees.', reasoning_content: 'unsigned text' },
          { role: 'user', content: 'Thanks' },
        ],
        thinking: { type: 'enabled', budget_tokens: 2048 },
      }),
    );
    const messages = body.messages as Array<{ content: unknown }>;
    expect(messages[1].content).toEqual([
      { type: 'thinking', thinking: 'I should call the weather tool.', signature: 'sig-abc' },
      { type: 'tool_use', id: 'toolu_02', name: 'get_weather', input: { location: 'Rome' } },
    ]);
    expect(messages[3].content).toBe('It is 24 degrees.');
  });
});

describe('Anthropic parameters it cannot honour', () => {
  it('answers 400 naming every unsupported parameter', () => {
    const error = gatewayErrorOf(() => toAnthropicMessagesBody(adapterInput({ messages: hello, n: 2, seed: 7, logit_bias: { '50256': -100 } })));
    expect(error.status).toBe(400);
    expect(error.code).toBe('unsupported_parameter');
    expect(error.param).toBe('n');
    expect(error.message).toContain('`n`, `seed`, `logit_bias`');
    expect(error.message).toContain('x-gw-drop-unsupported-params');
  });

  it('drops them when the caller opted out with x-gw-drop-unsupported-params', () => {
    const body = toAnthropicMessagesBody(adapterInput({ messages: hello, n: 2, seed: 7, frequency_penalty: 0.5, logprobs: true }, { dropUnsupportedParams: true }));
    expect(body).toEqual({ model: MODEL, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4096, stream: false });
  });

  it('accepts the values that ask for nothing (n: 1, zero penalties, logprobs: false, empty logit_bias)', () => {
    const body = toAnthropicMessagesBody(
      adapterInput({ messages: hello, n: 1, presence_penalty: 0, frequency_penalty: 0, logprobs: false, logit_bias: {}, store: false, modalities: ['text'], service_tier: 'auto' }),
    );
    expect(body).toEqual({ model: MODEL, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4096, stream: false });
  });
});

describe('Anthropic request validation', () => {
  it.each([
    ['tool-call arguments that are not JSON', { messages: [hello[0], { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":' } }] }] }, 'invalid_tool_arguments', 'messages[1].tool_calls[0].function.arguments'],
    ['tool-call arguments that are not an object', { messages: [hello[0], { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '[1,2]' } }] }] }, 'invalid_tool_arguments', 'messages[1].tool_calls[0].function.arguments'],
    ['an audio content part', { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }] }, 'unsupported_content', 'messages[0].content[0]'],
    ['an image type Anthropic does not read', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,Qk0=' } }] }] }, 'unsupported_image_type', 'messages[0].content[0].image_url.url'],
    ['an image URL that is neither http(s) nor data', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } }] }] }, 'invalid_image_url', 'messages[0].content[0].image_url.url'],
    ['a file given only by id', { messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }] }, 'unsupported_content', 'messages[0].content[0].file'],
    ['an unknown role', { messages: [{ role: 'narrator', content: 'Once' }] }, 'invalid_message', 'messages[0].role'],
    ['a tool result without tool_call_id', { messages: [hello[0], { role: 'tool', content: 'x' }] }, 'invalid_message', 'messages[1].tool_call_id'],
    ['a function result that answers no call', { messages: [hello[0], { role: 'function', name: 'f', content: 'x' }] }, 'invalid_message', 'messages[1].name'],
    ['an image in a system message', { messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }, hello[0]] }, 'unsupported_content', 'messages[0].content'],
    ['a thinking block without signature', { messages: [hello[0], { role: 'assistant', content: 'x', thinking_blocks: [{ type: 'thinking', thinking: 'hmm' }] }] }, 'invalid_message', 'messages[1].thinking_blocks[0]'],
    ['a non-function tool', { messages: hello, tools: [{ type: 'web_search' }] }, 'unsupported_tool_type', 'tools[0].type'],
    ['both tools and functions', { messages: hello, tools: [weatherTool], functions: [{ name: 'f' }] }, 'invalid_tools', 'functions'],
    ['tool_choice required without tools', { messages: hello, tool_choice: 'required' }, 'invalid_tool_choice', 'tool_choice'],
    ['an unknown tool_choice', { messages: hello, tools: [weatherTool], tool_choice: 'sometimes' }, 'invalid_tool_choice', 'tool_choice'],
    ['a text temperature', { messages: hello, temperature: 'hot' }, 'invalid_parameter', 'temperature'],
    ['max_tokens of zero', { messages: hello, max_tokens: 0 }, 'invalid_parameter', 'max_tokens'],
    ['a numeric stop', { messages: hello, stop: 42 }, 'invalid_parameter', 'stop'],
    ['thinking without a budget', { messages: hello, thinking: { type: 'enabled' } }, 'invalid_parameter', 'thinking.budget_tokens'],
    ['an unknown thinking type', { messages: hello, thinking: { type: 'deep' } }, 'invalid_parameter', 'thinking.type'],
    ['json_schema without a schema', { messages: hello, response_format: { type: 'json_schema', json_schema: { name: 'x' } } }, 'invalid_response_format', 'response_format.json_schema.schema'],
    ['an unknown response_format', { messages: hello, response_format: { type: 'xml' } }, 'invalid_response_format', 'response_format.type'],
  ])('answers 400 for %s', (_label, body, code, param) => {
    const error = gatewayErrorOf(() => toAnthropicMessagesBody(adapterInput(body)));
    expect({ status: error.status, code: error.code, param: error.param }).toEqual({ status: 400, code, param });
    expect(error.message.length).toBeGreaterThan(10);
  });
});

describe('Anthropic upstream call', () => {
  it('posts to the public Messages endpoint with the token as x-api-key and the default anthropic-version', () => {
    const call = anthropicAdapter.buildCall(adapterInput({ messages: hello })) as { url: string; headers: Record<string, string> };
    expect(call.url).toBe('https://api.anthropic.com/v1/messages');
    expect(call.headers).toEqual({ 'content-type': 'application/json', 'x-api-key': 'sk-ant-test-key', 'anthropic-version': '2023-06-01' });
  });

  it('uses the custom host, the target’s version and betas, and keeps forwarded headers without letting them replace gw’s', () => {
    const input = adapterInput(
      { messages: hello },
      {
        target: { provider: 'anthropic', apiKey: 'sk-ant-2', customHost: 'https://claude-proxy.internal/v1/', anthropicVersion: '2023-01-01', anthropicBeta: 'prompt-caching-2024-07-31,output-128k-2025-02-19' },
        forwardHeaders: { 'x-team': 'search', 'anthropic-version': '1999-01-01' },
      },
    );
    const call = anthropicAdapter.buildCall(input) as { url: string; headers: Record<string, string> };
    expect(call.url).toBe('https://claude-proxy.internal/v1/messages');
    expect(call.headers).toEqual({
      'x-team': 'search',
      'content-type': 'application/json',
      'x-api-key': 'sk-ant-2',
      'anthropic-version': '2023-01-01',
      'anthropic-beta': 'prompt-caching-2024-07-31,output-128k-2025-02-19',
    });
  });

  it('takes anthropic-version from a forwarded header when the target names none', () => {
    const call = anthropicAdapter.buildCall(adapterInput({ messages: hello }, { forwardHeaders: { 'anthropic-version': '2023-01-01' } })) as { headers: Record<string, string> };
    expect(call.headers['anthropic-version']).toBe('2023-01-01');
  });

  it('offers chat only', () => {
    expect(anthropicAdapter.endpoints).toEqual(['chat']);
  });
});
