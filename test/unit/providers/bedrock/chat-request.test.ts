import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bedrockInput, converseBody, expectBuildError } from './helpers.js';

const fixture = JSON.parse(readFileSync(new URL('../../../fixtures/bedrock/chat-request-tools.json', import.meta.url), 'utf8')) as {
  openai: Record<string, unknown>;
  converse: Record<string, unknown>;
};

const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const user = (content: unknown) => ({ role: 'user', content });
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** A conversation that already holds a tool call and its result. */
const toolHistory = [
  user('Weather in Paris?'),
  { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
  { role: 'tool', tool_call_id: 'call_1', content: '18°C' },
];
const weatherTool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

describe('OpenAI chat → Converse request', () => {
  it('translates a multi-turn tool conversation exactly (system, toolUse, merged toolResults, toolConfig, inferenceConfig)', async () => {
    expect(await converseBody(fixture.openai)).toEqual(fixture.converse);
  });

  it('sends a base64 data-URL image as image bytes with its format', async () => {
    const body = await converseBody({
      model: MODEL,
      messages: [user([{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}`, detail: 'low' } }])],
    });
    expect(body.messages).toEqual([{ role: 'user', content: [{ text: 'What is this?' }, { image: { format: 'png', source: { bytes: PNG_BASE64 } } }] }]);
  });

  it('refuses an http image URL with a 400 that says to send a data URL', async () => {
    const messages = [user([{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }])];
    await expectBuildError(bedrockInput({ model: MODEL, messages }), {
      code: 'unsupported_image_url',
      param: 'messages[0].content[1].image_url.url',
      message: 'base64 data URL',
    });
  });

  it('refuses an image format Bedrock cannot read', async () => {
    await expectBuildError(bedrockInput({ model: MODEL, messages: [user([{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,Qk0=' } }])] }), {
      code: 'unsupported_image_format',
      param: 'messages[0].content[0].image_url.url',
      message: 'image/bmp',
    });
  });

  it('refuses content parts other than text and images', async () => {
    await expectBuildError(bedrockInput({ model: MODEL, messages: [user([{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }])] }), {
      code: 'unsupported_content',
      param: 'messages[0].content[0].type',
      message: "type 'input_audio'",
    });
  });

  it('maps tool_choice required and a named function to any and tool', async () => {
    const required = await converseBody({ model: MODEL, messages: [user('Hi')], tools: [weatherTool], tool_choice: 'required' });
    expect((required.toolConfig as { toolChoice: unknown }).toolChoice).toEqual({ any: {} });
    const named = await converseBody({ model: MODEL, messages: [user('Hi')], tools: [weatherTool], tool_choice: { type: 'function', function: { name: 'get_weather' } } });
    expect((named.toolConfig as { toolChoice: unknown }).toolChoice).toEqual({ tool: { name: 'get_weather' } });
  });

  it('refuses a tool_choice naming a tool that was not given', async () => {
    await expectBuildError(
      bedrockInput({ model: MODEL, messages: [user('Hi')], tools: [weatherTool], tool_choice: { type: 'function', function: { name: 'get_time' } } }),
      { code: 'invalid_tool_choice', param: 'tool_choice', message: "names 'get_time'" },
    );
  });

  it('honours tool_choice none by leaving the tools out when the conversation holds no tool calls', async () => {
    const body = await converseBody({ model: MODEL, messages: [user('Hi')], tools: [weatherTool], tool_choice: 'none' });
    expect(body.toolConfig).toBeUndefined();
  });

  it('refuses tool_choice none once the conversation holds tool calls, and drops it on request', async () => {
    const request = { model: MODEL, messages: toolHistory, tools: [weatherTool], tool_choice: 'none' };
    await expectBuildError(bedrockInput(request), { code: 'unsupported_parameter', param: 'tool_choice', message: 'x-gw-drop-unsupported-params: true' });
    const dropped = await converseBody(request, { drop: true });
    expect(dropped.toolConfig).toEqual({ tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: weatherTool.function.parameters } } }] });
  });

  it('maps legacy functions and function_call, and answers a function message with the invented tool id', async () => {
    const body = await converseBody({
      model: MODEL,
      messages: [
        user('Weather in Paris?'),
        { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { role: 'function', name: 'get_weather', content: '18°C' },
      ],
      functions: [{ name: 'get_weather', description: 'Weather', parameters: weatherTool.function.parameters }],
      function_call: { name: 'get_weather' },
    });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'Weather in Paris?' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'call_fn_1', name: 'get_weather', input: { city: 'Paris' } } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'call_fn_1', content: [{ text: '18°C' }] } }] },
    ]);
    expect(body.toolConfig).toEqual({
      tools: [{ toolSpec: { name: 'get_weather', description: 'Weather', inputSchema: { json: weatherTool.function.parameters } } }],
      toolChoice: { tool: { name: 'get_weather' } },
    });
  });

  it('refuses a function message that answers no earlier function call', async () => {
    await expectBuildError(bedrockInput({ model: MODEL, messages: [user('Hi'), { role: 'function', name: 'get_weather', content: '18°C' }] }), {
      code: 'invalid_message',
      param: 'messages[1].name',
      message: "no earlier assistant message called function 'get_weather'",
    });
  });

  it('refuses tool-call arguments that are not a JSON object', async () => {
    const messages = [user('Hi'), { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }];
    await expectBuildError(bedrockInput({ model: MODEL, messages }), {
      code: 'invalid_tool_arguments',
      param: 'messages[1].tool_calls[0].function.arguments',
      message: 'not valid JSON',
    });
  });

  it('turns response_format json_schema into Converse structured output', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const body = await converseBody({
      model: MODEL,
      messages: [user('Where is the Eiffel tower?')],
      response_format: { type: 'json_schema', json_schema: { name: 'place', description: 'A place', schema, strict: true } },
    });
    expect(body.outputConfig).toEqual({
      textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: JSON.stringify(schema), name: 'place', description: 'A place' } } },
    });
  });

  it('refuses response_format json_object (Converse has no schema-less JSON mode) unless dropping is asked for', async () => {
    const request = { model: MODEL, messages: [user('Hi')], response_format: { type: 'json_object' } };
    await expectBuildError(bedrockInput(request), { code: 'unsupported_parameter', param: 'response_format', message: 'json_schema' });
    expect((await converseBody(request, { drop: true })).outputConfig).toBeUndefined();
  });

  it('prefers max_completion_tokens and accepts stop as a single string', async () => {
    const body = await converseBody({ model: MODEL, messages: [user('Hi')], max_tokens: 10, max_completion_tokens: 20, stop: 'END' });
    expect(body.inferenceConfig).toEqual({ maxTokens: 20, stopSequences: ['END'] });
  });

  it('passes thinking to the model through additionalModelRequestFields', async () => {
    const body = await converseBody({ model: 'us.anthropic.claude-3-7-sonnet-20250219-v1:0', messages: [user('2+2?')], thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(body.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 2048 } });
    const disabled = await converseBody({ model: MODEL, messages: [user('2+2?')], thinking: { type: 'disabled' } });
    expect(disabled.additionalModelRequestFields).toBeUndefined();
  });

  it('replays thinking_blocks as signed reasoningContent before the text and tool calls', async () => {
    const body = await converseBody({
      model: MODEL,
      messages: [
        user('Weather in Paris?'),
        {
          role: 'assistant',
          content: 'Checking.',
          reasoning_content: 'Need the weather tool.',
          thinking_blocks: [
            { type: 'thinking', thinking: 'Need the weather tool.', signature: 'c2lnbmF0dXJl' },
            { type: 'redacted_thinking', data: 'ZW5jcnlwdGVk' },
          ],
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18°C' },
      ],
      tools: [weatherTool],
      thinking: { type: 'enabled', budget_tokens: 1024 },
    });
    expect((body.messages as Array<{ content: unknown }>)[1].content).toEqual([
      { reasoningContent: { reasoningText: { text: 'Need the weather tool.', signature: 'c2lnbmF0dXJl' } } },
      { reasoningContent: { redactedContent: 'ZW5jcnlwdGVk' } },
      { text: 'Checking.' },
      { toolUse: { toolUseId: 'call_1', name: 'get_weather', input: { city: 'Paris' } } },
    ]);
  });

  it('refuses a thinking block without its signature', async () => {
    const messages = [user('Hi'), { role: 'assistant', content: 'Hello', thinking_blocks: [{ type: 'thinking', thinking: 'unsigned' }] }];
    await expectBuildError(bedrockInput({ model: MODEL, messages }), { code: 'invalid_message', param: 'messages[1].thinking_blocks[0]', message: '"redacted_thinking"' });
  });

  it('refuses enabled thinking without a budget', async () => {
    await expectBuildError(bedrockInput({ model: MODEL, messages: [user('Hi')], thinking: { type: 'enabled' } }), {
      code: 'invalid_parameter',
      param: 'thinking.budget_tokens',
      message: 'budget_tokens',
    });
  });

  it('refuses parameters Converse cannot honour, naming them', async () => {
    await expectBuildError(bedrockInput({ model: MODEL, messages: [user('Hi')], seed: 7, logprobs: true, n: 2 }), {
      code: 'unsupported_parameter',
      param: 'n',
      message: 'does not support `n`, `logprobs`, `seed`',
    });
  });

  it('drops unsupported parameters when asked, and accepts values that ask for nothing', async () => {
    const dropped = await converseBody({ model: MODEL, messages: [user('Hi')], seed: 7, frequency_penalty: 0.5, temperature: 0.1 }, { drop: true });
    expect(dropped).toEqual({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }], inferenceConfig: { temperature: 0.1 } });
    const defaults = await converseBody({ model: MODEL, messages: [user('Hi')], n: 1, logprobs: false, presence_penalty: 0, parallel_tool_calls: true, user: 'alice', stream_options: { include_usage: true } });
    expect(defaults).toEqual({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }] });
  });

  it('refuses a user message with no content', async () => {
    await expectBuildError(bedrockInput({ model: MODEL, messages: [user('')] }), { code: 'invalid_message', param: 'messages[0].content', message: 'has no content' });
  });

  it('refuses images in a system message', async () => {
    const messages = [{ role: 'system', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } }] }, user('Hi')];
    await expectBuildError(bedrockInput({ model: MODEL, messages }), { code: 'invalid_message', param: 'messages[0].content[0]', message: 'takes only text' });
  });
});
