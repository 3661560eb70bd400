import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cohereAdapter } from '../../../../shared/providers/cohere/adapter.js';
import { coherePassthrough } from '../../../../shared/providers/cohere/passthrough.js';
import { CohereStreamTranslator } from '../../../../shared/providers/cohere/stream.js';
import type { StreamEvent } from '../../../../shared/providers/types.js';
import { adapterInput, gatewayErrorOf, reassemble } from '../google/helpers.js';

// Fixtures are written from Cohere's API reference examples (v2 chat, chat stream, embed, rerank).
const FIXTURES = fileURLToPath(new URL('../../../fixtures/cohere/', import.meta.url));
const fixture = (name: string) => readFileSync(FIXTURES + name);
const cohere = (body: Record<string, unknown>, options: Parameters<typeof adapterInput>[1] = {}) =>
  adapterInput(body, { ...options, target: { provider: 'cohere', apiKey: 'co-key', ...options.target } });

function translate(bytes: Uint8Array, cutEvery = 7): StreamEvent[] {
  const translator = new CohereStreamTranslator('command-a-03-2025', 'chatcmpl-test');
  const events: StreamEvent[] = [];
  for (let start = 0; start < bytes.length; start += cutEvery) events.push(...translator.push(bytes.subarray(start, start + cutEvery)));
  events.push(...translator.end());
  return events;
}

describe('Cohere v2 chat request', () => {
  it('builds /v2/chat with Bearer auth, renamed sampling parameters, tools, tool results and a JSON schema', () => {
    const call = cohereAdapter.buildCall(
      cohere({
        model: 'command-a-03-2025',
        messages: [
          { role: 'developer', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'Weather in Toronto?' }] },
          { role: 'assistant', content: 'Looking it up.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Toronto"}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' },
        ],
        tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }],
        tool_choice: 'required',
        max_completion_tokens: 300,
        top_p: 0.9,
        stop: 'END',
        response_format: { type: 'json_schema', json_schema: { name: 'w', schema: { type: 'object' } } },
      }),
    ) as { url: string; headers: Record<string, string>; body: string };
    expect(call.url).toBe('https://api.cohere.com/v2/chat');
    expect(call.headers.authorization).toBe('Bearer co-key');
    expect(JSON.parse(call.body)).toEqual({
      model: 'command-a-03-2025',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Toronto?' }] },
        { role: 'assistant', tool_plan: 'Looking it up.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Toronto"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }],
      tool_choice: 'REQUIRED',
      max_tokens: 300,
      p: 0.9,
      stop_sequences: ['END'],
      response_format: { type: 'json_object', json_schema: { type: 'object' } },
    });
  });

  it('unsupported parameter: n > 1 and a named tool_choice are refused with a 400 naming them, or dropped on request', () => {
    const error = gatewayErrorOf(() => cohereAdapter.buildCall(cohere({ model: 'command-r', messages: [{ role: 'user', content: 'hi' }], n: 2 })));
    expect(error.status).toBe(400);
    expect(error.param).toBe('n');
    const named = { model: 'command-r', messages: [{ role: 'user', content: 'hi' }], tool_choice: { type: 'function', function: { name: 'f' } } };
    expect(gatewayErrorOf(() => cohereAdapter.buildCall(cohere(named))).param).toBe('tool_choice');
    const dropped = cohereAdapter.buildCall(cohere(named, { drop: true })) as { body: string };
    expect(JSON.parse(dropped.body).tool_choice).toBeUndefined();
  });

  it('a strict tool turns on Cohere strict_tools', () => {
    const strict = { type: 'function', function: { name: 'f', parameters: { type: 'object' }, strict: true } };
    const call = cohereAdapter.buildCall(cohere({ model: 'command-a-03-2025', messages: [{ role: 'user', content: 'hi' }], tools: [strict] })) as { body: string };
    expect(JSON.parse(call.body)).toMatchObject({ strict_tools: true, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] });
  });

  it('streams with stream: true and an SSE accept header; a custom host with or without /v2 is honoured', () => {
    const call = cohereAdapter.buildCall(cohere({ model: 'command-r', messages: [{ role: 'user', content: 'hi' }], stream: true }, { target: { customHost: 'http://127.0.0.1:9/v2/' } })) as {
      url: string;
      headers: Record<string, string>;
      body: string;
    };
    expect(call.url).toBe('http://127.0.0.1:9/v2/chat');
    expect(call.headers.accept).toBe('text/event-stream');
    expect(JSON.parse(call.body).stream).toBe(true);
  });
});

describe('Cohere v2 chat answers', () => {
  it('maps text, finish reason and billed units (cached tokens when reported)', () => {
    const input = cohere({ model: 'command-a-03-2025', messages: [] });
    const answer = cohereAdapter.toOpenAIResponse!(input, JSON.parse(fixture('chat-text.json').toString()));
    expect(answer).toMatchObject({
      id: '5a50480a-cf52-46f0-af01-53d18539bd31',
      object: 'chat.completion',
      model: 'command-a-03-2025',
      choices: [{ index: 0, message: { role: 'assistant', content: 'LLMs stand for Large Language Models.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 17, completion_tokens: 12, total_tokens: 29, prompt_tokens_details: { cached_tokens: 0 } },
    });
  });

  it('maps tool calls, with the tool plan as the text before them', () => {
    const answer = cohereAdapter.toOpenAIResponse!(cohere({ model: 'command-a-03-2025', messages: [] }), JSON.parse(fixture('chat-tool-call.json').toString()));
    expect(answer).toMatchObject({
      choices: [
        {
          message: { content: 'I will look up the weather in Toronto.', tool_calls: [{ id: 'get_weather_1byjy32y4hvq', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Toronto"}' } }] },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 37, completion_tokens: 19 },
    });
  });

  it('maps the error body {id, message} to gw parts with a status-derived code', () => {
    expect(cohereAdapter.toOpenAIError(429, { id: 'x', message: 'You are using a Trial key, which is limited to 10 API calls / minute.' })).toEqual({
      message: 'You are using a Trial key, which is limited to 10 API calls / minute.',
      code: 'rate_limit_exceeded',
      param: null,
    });
    expect(cohereAdapter.toOpenAIError(502, 'bad gateway').message).toBe('bad gateway');
  });
});

describe('Cohere v2 chat stream → OpenAI chunks', () => {
  it('streams text, then finish, usage and done from message-end, whatever the byte cuts', () => {
    for (const cut of [1, 5, 64, 10_000]) {
      const events = translate(fixture('stream-text.sse'), cut);
      const message = reassemble(events);
      expect(message).toMatchObject({ role: 'assistant', content: 'Grüß dich! 你好', finishReason: 'stop', done: true, errors: [] });
      expect(message.usage).toEqual({ prompt_tokens: 5, completion_tokens: 4, total_tokens: 9, prompt_tokens_details: { cached_tokens: 2 } });
      expect(events.at(-1)).toEqual({ type: 'done' });
    }
  });

  it('streams the tool plan as content and a tool call as start plus argument deltas', () => {
    const message = reassemble(translate(fixture('stream-tool-call.sse')));
    expect(message.content).toBe('I will look up the weather.');
    expect(message.finishReason).toBe('tool_calls');
    expect(message.toolCalls).toEqual([{ id: 'get_weather_nsz5zm3w56q3', name: 'get_weather', arguments: '{"location":"Zürich"}' }]);
    expect(message.usage).toMatchObject({ prompt_tokens: 37, completion_tokens: 21 });
  });

  it('stream cut short: no message-end means no done (the relay reports the cut); an ERROR finish is an error event', () => {
    const cut = fixture('stream-text.sse').toString().split('event: message-end')[0];
    expect(reassemble(translate(new TextEncoder().encode(cut))).done).toBe(false);
    const failed = translate(new TextEncoder().encode('event: message-end\ndata: {"type":"message-end","delta":{"finish_reason":"ERROR","error":"model overloaded"}}\n\n'));
    expect(failed.at(-1)).toMatchObject({ type: 'error', status: 502, error: { message: 'model overloaded' } });
  });
});

describe('Cohere embed and rerank', () => {
  it('builds /v2/embed with an input type and maps floats (or OpenAI base64 float32) and billed tokens', () => {
    const input = cohere({ model: 'embed-v4.0', input: ['hello', 'goodbye'], dimensions: 256 }, { endpoint: 'embeddings' });
    const call = cohereAdapter.buildCall(input) as { url: string; body: string };
    expect(call.url).toBe('https://api.cohere.com/v2/embed');
    expect(JSON.parse(call.body)).toEqual({ model: 'embed-v4.0', texts: ['hello', 'goodbye'], input_type: 'search_document', embedding_types: ['float'], output_dimension: 256 });
    const answer = JSON.parse(fixture('embed.json').toString());
    expect(cohereAdapter.toOpenAIResponse!(input, answer)).toMatchObject({
      object: 'list',
      data: [{ index: 0, embedding: [0.016296387, -0.008354187, -0.04699707] }, { index: 1, embedding: [0.5, -0.25, 0.125] }],
      usage: { prompt_tokens: 2, total_tokens: 2 },
    });
    const base64 = cohereAdapter.toOpenAIResponse!(cohere({ ...input.body, encoding_format: 'base64' }, { endpoint: 'embeddings' }), answer) as { data: Array<{ embedding: string }> };
    const floats = new Float32Array(new Uint8Array(Buffer.from(base64.data[1].embedding, 'base64')).buffer);
    expect([...floats]).toEqual([0.5, -0.25, 0.125]);
  });

  it('refuses an unknown input_type and non-text input with a 400', () => {
    expect(gatewayErrorOf(() => cohereAdapter.buildCall(cohere({ model: 'embed-v4.0', input: 'x', input_type: 'poem' }, { endpoint: 'embeddings' }))).param).toBe('input_type');
    expect(gatewayErrorOf(() => cohereAdapter.buildCall(cohere({ model: 'embed-v4.0', input: [[1, 2]] }, { endpoint: 'embeddings' }))).param).toBe('input');
  });

  it('relays /v1/rerank bytes to /v2/rerank with Bearer auth', () => {
    const body = new TextEncoder().encode('{"model":"rerank-v3.5","query":"q","documents":["a","b"]}');
    const call = coherePassthrough.buildCall({ endpoint: 'rerank', body, contentType: 'application/json', target: { provider: 'cohere', apiKey: 'co-key' }, forwardHeaders: {} });
    expect(call).toMatchObject({ url: 'https://api.cohere.com/v2/rerank', headers: { authorization: 'Bearer co-key', 'content-type': 'application/json' }, body });
  });
});
