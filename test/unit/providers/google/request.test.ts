import { describe, expect, it } from 'vitest';
import { googleAdapter } from '../../../../shared/providers/google/adapter.js';
import { toGenerateContentBody } from '../../../../shared/providers/google/request.js';
import { adapterInput, gatewayErrorOf } from './helpers.js';

const toGemini = (body: Record<string, unknown>, drop = false) => toGenerateContentBody(adapterInput(body, { drop }), 'Google Gemini');

describe('OpenAI chat body → Gemini generateContent body', () => {
  it('puts system and developer messages in systemInstruction and maps assistant to the model role', () => {
    const body = toGemini({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in German.' }] },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hallo!' },
        { role: 'user', content: 'How are you?' },
      ],
    });
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'You are terse.' }, { text: 'Answer in German.' }] });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Hi' }] },
      { role: 'model', parts: [{ text: 'Hallo!' }] },
      { role: 'user', parts: [{ text: 'How are you?' }] },
    ]);
  });

  it('sends base64 data URLs inline and http(s) image URLs as fileData with a MIME type from the extension', () => {
    const body = toGemini({
      model: 'gemini-2.5-flash',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/photos/cat.webp?size=large' } },
            { type: 'image_url', image_url: { url: 'https://example.com/render?id=7' } },
            { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'report.pdf' } },
          ],
        },
      ],
    });
    expect(body.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'Compare these' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/photos/cat.webp?size=large' } },
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/render?id=7' } },
          { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } },
          { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
        ],
      },
    ]);
  });

  it('turns assistant tool calls into functionCall parts and tool results into functionResponse parts named by tool_call_id', () => {
    const body = toGemini({
      model: 'gemini-3-pro-preview',
      messages: [
        { role: 'user', content: 'Weather and time in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_a',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
              extra_content: { google: { thought_signature: 'c2lnbmF0dXJl' } },
            },
            { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '{"temperature":21}' },
        { role: 'tool', tool_call_id: 'call_b', content: '14:05' },
      ],
    });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { location: 'Paris' } }, thoughtSignature: 'c2lnbmF0dXJl' },
          { functionCall: { name: 'get_time', args: { timezone: 'Europe/Paris' } } },
        ],
      },
      {
        // Parallel results are merged into one user turn, as Gemini expects.
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { temperature: 21 } } },
          { functionResponse: { name: 'get_time', response: { result: '14:05' } } },
        ],
      },
    ]);
  });

  it('maps legacy function_call / function messages too', () => {
    const body = toGemini({
      model: 'gemini-2.0-flash',
      messages: [
        { role: 'user', content: 'Time?' },
        { role: 'assistant', content: null, function_call: { name: 'get_time', arguments: '{}' } },
        { role: 'function', name: 'get_time', content: '"noon"' },
      ],
      functions: [{ name: 'get_time', parameters: { type: 'object', properties: {} } }],
      function_call: { name: 'get_time' },
    });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Time?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_time', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_time', response: { result: 'noon' } } }] },
    ]);
    expect(body.tools).toEqual([{ functionDeclarations: [{ name: 'get_time' }] }]);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_time'] } });
  });

  it('declares tools with Gemini-style schemas and maps every tool_choice form', () => {
    const tools = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather for a city',
          strict: true,
          parameters: {
            $schema: 'http://json-schema.org/draft-07/schema#',
            type: 'object',
            additionalProperties: false,
            properties: { location: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['celsius', 'fahrenheit', null] } },
            required: ['location'],
          },
        },
      },
    ];
    const messages = [{ role: 'user', content: 'Weather?' }];
    const auto = toGemini({ model: 'gemini-2.5-flash', messages, tools, tool_choice: 'auto' });
    expect(auto.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Weather for a city',
            parameters: {
              type: 'OBJECT',
              properties: { location: { type: 'STRING' }, unit: { type: 'STRING', nullable: true, enum: ['celsius', 'fahrenheit'] } },
              required: ['location'],
            },
          },
        ],
      },
    ]);
    expect(auto.toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(toGemini({ model: 'g', messages, tools, tool_choice: 'none' }).toolConfig).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    expect(toGemini({ model: 'g', messages, tools, tool_choice: 'required' }).toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(toGemini({ model: 'g', messages, tools, tool_choice: { type: 'function', function: { name: 'get_weather' } } }).toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
    });
  });

  it('maps sampling parameters, stop, n, seed, penalties and the token limit to generationConfig', () => {
    const body = toGemini({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: 0.3,
      top_p: 0.9,
      max_completion_tokens: 256,
      max_tokens: 999,
      n: 2,
      seed: 7,
      stop: 'END',
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
      user: 'alice',
      stream_options: { include_usage: true },
    });
    expect(body.generationConfig).toEqual({
      temperature: 0.3,
      topP: 0.9,
      candidateCount: 2,
      seed: 7,
      presencePenalty: 0.5,
      frequencyPenalty: 0.25,
      maxOutputTokens: 256,
      stopSequences: ['END'],
    });
  });

  it('maps response_format json_object and json_schema', () => {
    const messages = [{ role: 'user', content: 'List two colours' }];
    expect(toGemini({ model: 'g', messages, response_format: { type: 'json_object' } }).generationConfig).toEqual({ responseMimeType: 'application/json' });
    const schema = toGemini({
      model: 'g',
      messages,
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'colours',
          strict: true,
          schema: {
            type: 'object',
            properties: { colours: { type: 'array', items: { $ref: '#/$defs/colour' } } },
            required: ['colours'],
            additionalProperties: false,
            $defs: { colour: { type: 'object', properties: { name: { type: 'string' }, hex: { type: 'string', format: 'uri' } } } },
          },
        },
      },
    });
    expect(schema.generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseSchema: {
        type: 'OBJECT',
        properties: { colours: { type: 'ARRAY', items: { type: 'OBJECT', properties: { name: { type: 'STRING' }, hex: { type: 'STRING' } } } } },
        required: ['colours'],
      },
    });
  });

  it('maps thinking budget_tokens to thinkingConfig with thought summaries, and reasoning_effort by model generation', () => {
    const messages = [{ role: 'user', content: 'Prove it' }];
    expect(toGemini({ model: 'gemini-2.5-pro', messages, thinking: { type: 'enabled', budget_tokens: 2048 } }).generationConfig).toEqual({
      thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
    });
    expect(toGemini({ model: 'gemini-2.5-flash', messages, thinking: { type: 'disabled' } }).generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 0 } });
    expect(toGemini({ model: 'gemini-2.5-flash', messages, reasoning_effort: 'medium' }).generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 8192 } });
    expect(toGemini({ model: 'gemini-3-pro-preview', messages, reasoning_effort: 'low' }).generationConfig).toEqual({ thinkingConfig: { thinkingLevel: 'low' } });
  });
});

describe('refused Gemini requests', () => {
  const messages = [{ role: 'user', content: 'Hi' }];

  it('refuses an unsupported parameter with a 400 naming it', () => {
    const error = gatewayErrorOf(() => toGemini({ model: 'g', messages, logit_bias: { '50256': -100 } }));
    expect(error.status).toBe(400);
    expect(error.code).toBe('unsupported_parameter');
    expect(error.param).toBe('logit_bias');
    expect(error.message).toContain('x-gw-drop-unsupported-params');
  });

  it('drops unsupported parameters when the caller opted out, and never objects to harmless values', () => {
    const body = toGemini({ model: 'g', messages, logit_bias: { '1': 1 }, top_logprobs: 2, temperature: 1 }, true);
    expect(body.generationConfig).toEqual({ temperature: 1 });
    expect(toGemini({ model: 'g', messages, logprobs: false, top_logprobs: 0, logit_bias: {}, parallel_tool_calls: true }).contents).toHaveLength(1);
    expect(gatewayErrorOf(() => toGemini({ model: 'g', messages, parallel_tool_calls: false })).param).toBe('parallel_tool_calls');
  });

  it.each([
    [{ messages: [{ role: 'tool', tool_call_id: 'call_unknown', content: 'x' }] }, 'messages[0].tool_call_id'],
    [{ messages: [{ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{not json' } }] }] }, 'messages[0].tool_calls[0].function.arguments'],
    [{ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } }] }] }, 'messages[0].content[0].image_url.url'],
    [{ messages: [{ role: 'user', content: [{ type: 'video_url', video_url: 'x' }] }] }, 'messages[0].content[0].type'],
    [{ messages: [{ role: 'system', content: 'only a system prompt' }] }, 'messages'],
    [{ messages, tools: [{ type: 'code_interpreter' }] }, 'tools[0].type'],
    [{ messages, tool_choice: 'required' }, 'tool_choice'],
    [{ messages, response_format: { type: 'xml' } }, 'response_format.type'],
    [{ messages, reasoning_effort: 'extreme' }, 'reasoning_effort'],
    [{ messages, stop: [1, 2] }, 'stop'],
    [{ messages, response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { $ref: 'https://example.com/s.json' } } } }, 'response_format.json_schema.schema'],
  ])('refuses %j with a 400 naming %s', (body, param) => {
    const error = gatewayErrorOf(() => toGemini({ model: 'gemini-2.5-flash', ...body }));
    expect(error.status).toBe(400);
    expect(error.param).toBe(param);
    expect(error.message.length).toBeGreaterThan(10);
  });
});

describe('Gemini API upstream call', () => {
  it('sends the key in x-goog-api-key, never in the URL, to the model method URL', () => {
    const call = googleAdapter.buildCall(adapterInput({ model: 'models/gemini-2.5-flash', messages: [{ role: 'user', content: 'Hi' }] }, { target: { apiKey: 'AIza-secret' } }));
    if (call instanceof Promise) throw new Error('the Gemini call is built synchronously');
    expect(call.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent');
    expect(call.headers['x-goog-api-key']).toBe('AIza-secret');
    expect(call.headers.authorization).toBeUndefined();
    expect(call.url).not.toContain('AIza-secret');
  });

  it('streams from streamGenerateContent?alt=sse and embeds with batchEmbedContents on a custom host', () => {
    const stream = googleAdapter.buildCall(adapterInput({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Hi' }], stream: true }, { target: { customHost: 'http://127.0.0.1:9/v1beta/' } }));
    const embed = googleAdapter.buildCall(adapterInput({ model: 'gemini-embedding-001', input: 'x' }, { endpoint: 'embeddings', target: { customHost: 'http://127.0.0.1:9/v1beta' } }));
    if (stream instanceof Promise || embed instanceof Promise) throw new Error('the Gemini call is built synchronously');
    expect(stream.url).toBe('http://127.0.0.1:9/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(stream.headers.accept).toBe('text/event-stream');
    expect(embed.url).toBe('http://127.0.0.1:9/v1beta/models/gemini-embedding-001:batchEmbedContents');
  });

  it.each(['../../admin', 'gemini/../../x', 'gemini-2.5-flash?key=x', ''])('refuses the model %j that would change the URL path', (model) => {
    const error = gatewayErrorOf(() => googleAdapter.buildCall(adapterInput({ model, messages: [{ role: 'user', content: 'Hi' }] })));
    expect(error.status).toBe(400);
    expect(error.param).toBe('model');
  });
});
