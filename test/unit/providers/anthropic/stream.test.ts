import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAnthropicStreamTranslator } from '../../../../shared/providers/anthropic/messages-codec.js';
import type { StreamEvent } from '../../../../shared/providers/types.js';
import { anthropicSseFixture } from '../../../fixtures/anthropic/index.js';
import { adapterInput, MODEL } from './helpers.js';
import { feed, reassemble } from './reassemble.js';

const streaming = adapterInput({ messages: [{ role: 'user', content: 'Hi' }], stream: true });
const translate = (bytes: Uint8Array, cuts: number[] = [], input = streaming) => feed(createAnthropicStreamTranslator(input), bytes, cuts);
const sse = (...events: Array<Record<string, unknown>>) => Buffer.from(events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join(''));
const chunkOf = (event: StreamEvent) => (event.type === 'chunk' ? event.chunk : undefined);

describe('Anthropic stream translation', () => {
  it('turns a text stream into role, content, finish, usage chunks and done, with one id, model and created', () => {
    const events = translate(anthropicSseFixture('stream-text'));
    const message = reassemble(events);
    expect(message).toMatchObject({
      ids: ['msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY'],
      models: ['claude-sonnet-4-5-20250929'],
      role: 'assistant',
      content: 'Voilà — il fait 18 °C à Paris 🌤️, 東京は晴れです。',
      finishReason: 'stop',
      usage: { prompt_tokens: 35, completion_tokens: 15, total_tokens: 50, prompt_tokens_details: { cached_tokens: 10 } },
      done: true,
      errors: [],
    });
    expect(new Set(events.map((event) => chunkOf(event)?.created).filter(Boolean)).size).toBe(1);
    const kinds = events.map((event) => (event.type === 'chunk' ? ((event.chunk.choices as unknown[]).length === 0 ? 'usage' : 'chunk') : event.type));
    expect(kinds.slice(-3)).toEqual(['chunk', 'usage', 'done']);
    expect((chunkOf(events[0])?.choices as Array<{ delta: unknown }>)[0].delta).toEqual({ role: 'assistant', content: '' });
  });

  it('gives parallel tool calls OpenAI indexes 0 and 1 (not Anthropic block indexes) and forwards partial JSON', () => {
    const message = reassemble(translate(anthropicSseFixture('stream-parallel-tools')));
    expect(message.content).toBe("I'll look up the weather in both cities.");
    expect(message.toolCalls).toEqual([
      { id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather', arguments: '{"location": "San Francisco, CA", "unit": "fahrenheit"}' },
      { id: 'toolu_01Vq8mZ3hT5xB9kR2nW4cJ7e', name: 'get_time', arguments: '{"timezone": "Europe/Paris", "label": "Zürich–Paris ✈"}' },
    ]);
    expect(message.toolCalls.map((call) => JSON.parse(call.arguments))).toEqual([
      { location: 'San Francisco, CA', unit: 'fahrenheit' },
      { timezone: 'Europe/Paris', label: 'Zürich–Paris ✈' },
    ]);
    expect(message.finishReason).toBe('tool_calls');
    expect(message.usage).toMatchObject({ prompt_tokens: 472, completion_tokens: 89 });
  });

  it('streams thinking as reasoning_content and ends each thinking block with the signed thinking_blocks so far', () => {
    const message = reassemble(translate(anthropicSseFixture('stream-thinking')));
    expect(message.reasoning).toBe('Let me solve this step by step:\n\n1. First break down 27 * 453\n2. 453 = 400 + 50 + 3');
    expect(message.thinkingBlocks).toEqual([{ type: 'thinking', thinking: message.reasoning, signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' }]);
    expect(message.content).toBe('27 * 453 = 12,231');
  });

  it('turns an error event after content into an error StreamEvent with the status of its type, and reads nothing after it', () => {
    const bytes = Buffer.concat([anthropicSseFixture('stream-error-midway'), sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'never' } })]);
    const events = translate(bytes);
    const message = reassemble(events);
    expect(message.content).toBe('Once upon a time');
    expect(message.done).toBe(false);
    expect(events.at(-1)).toEqual({
      type: 'error',
      status: 529,
      error: { message: 'Overloaded', type: 'overloaded_error', code: 'overloaded_error', param: null },
      providerError: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    });
  });

  it('sends nothing before an error that follows message_start, so the gateway can still answer with an HTTP error', () => {
    const events = translate(anthropicSseFixture('stream-error-at-start'));
    expect(events.map((event) => event.type)).toEqual(['error']);
  });

  it('gives no done for a stream cut before message_stop, so the relay reports it as truncated', () => {
    const full = anthropicSseFixture('stream-text');
    const cut = full.subarray(0, full.indexOf('event: message_delta'));
    const message = reassemble(translate(cut));
    expect(message.content).toBe('Voilà — il fait 18 °C à Paris 🌤️, 東京は晴れです。');
    expect(message.done).toBe(false);
    expect(message.finishReason).toBeUndefined();
  });

  it('sends {} as the arguments of a tool called without input', () => {
    const bytes = sse(
      { type: 'message_start', message: { id: 'msg_n', model: MODEL, usage: { input_tokens: 5, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_now', name: 'get_time', input: {} } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    );
    expect(reassemble(translate(bytes)).toolCalls).toEqual([{ id: 'toolu_now', name: 'get_time', arguments: '{}' }]);
  });

  it('streams a legacy functions answer as function_call deltas with finish_reason function_call', () => {
    const legacy = adapterInput({ messages: [{ role: 'user', content: 'Weather?' }], functions: [{ name: 'get_weather' }], stream: true });
    const message = reassemble(translate(anthropicSseFixture('stream-parallel-tools'), [], legacy));
    expect(message.functionCall).toEqual({ name: 'get_weather', arguments: '{"location": "San Francisco, CA", "unit": "fahrenheit"}' });
    expect(message.toolCalls).toEqual([]);
    expect(message.finishReason).toBe('function_call');
  });

  it('ignores ping, unknown events and server-tool blocks, and reports non-JSON data as an error', () => {
    const bytes = sse(
      { type: 'message_start', message: { id: 'msg_s', model: MODEL, usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: 'ping' },
      { type: 'brand_new_event', detail: 1 },
      { type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"x"}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: 'Found it.' } },
      { type: 'content_block_stop', index: 1 },
    );
    const events = translate(Buffer.concat([bytes, Buffer.from('event: content_block_delta\ndata: {not json\n\n')]));
    const message = reassemble(events);
    expect(message.content).toBe('Found it.');
    expect(message.toolCalls).toEqual([]);
    expect(message.errors.map((error) => error.error.code)).toEqual(['upstream_invalid_stream']);
  });

  it('yields the same events when fed one byte at a time', () => {
    const bytes = anthropicSseFixture('stream-parallel-tools');
    const whole = reassemble(translate(bytes));
    const byteByByte = reassemble(translate(bytes, Array.from({ length: bytes.length }, (_, index) => index)));
    expect(byteByByte).toEqual(whole);
  });

  it('reassembles the same message from any chunking of a recorded stream (property)', () => {
    for (const name of ['stream-text', 'stream-parallel-tools', 'stream-thinking']) {
      const bytes = anthropicSseFixture(name);
      const expected = reassemble(translate(bytes));
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 60 }), (cuts) => {
          expect(reassemble(translate(bytes, cuts))).toEqual(expected);
        }),
        { numRuns: 150 },
      );
    }
  });
});
