import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GeminiStreamTranslator } from '../../../../shared/providers/google/stream.js';
import type { StreamEvent } from '../../../../shared/providers/types.js';
import { fixtureBytes, reassemble } from './helpers.js';

const encoder = new TextEncoder();

/** Feeds `bytes` cut at `cuts` (byte offsets, any order) and returns every event, end() included. */
function translateInPieces(bytes: Uint8Array, cuts: number[] = []): StreamEvent[] {
  const translator = new GeminiStreamTranslator('gemini-2.5-flash', 'chatcmpl-test');
  const offsets = [...new Set(cuts.filter((cut) => cut > 0 && cut < bytes.length))].sort((a, b) => a - b);
  const events: StreamEvent[] = [];
  let start = 0;
  for (const offset of [...offsets, bytes.length]) {
    events.push(...translator.push(bytes.subarray(start, offset)));
    start = offset;
  }
  events.push(...translator.end());
  return events;
}

const chunksOf = (events: StreamEvent[]) => events.flatMap((event) => (event.type === 'chunk' ? [event.chunk] : []));

describe('Gemini SSE → OpenAI chunks', () => {
  it('emits role, reasoning, text, finish, then usage and done once the body ends', () => {
    const events = translateInPieces(fixtureBytes('stream-text.sse'));
    const message = reassemble(events);
    expect(message).toMatchObject({
      role: 'assistant',
      reasoning: '**Planning a greeting**\n\nA warm, short reply fits.',
      content: 'Grüß dich! 👋 Schön, dass du da bist — wie kann ich helfen? 你好！',
      finishReason: 'stop',
      done: true,
      errors: [],
    });
    expect(message.usage).toEqual({
      prompt_tokens: 9,
      completion_tokens: 59,
      total_tokens: 68,
      prompt_tokens_details: { cached_tokens: 2 },
      completion_tokens_details: { reasoning_tokens: 40 },
    });
    // Order: the usage chunk (no choices) and done come last, after the finish chunk.
    expect(events.at(-1)).toEqual({ type: 'done' });
    expect(events.at(-2)).toMatchObject({ type: 'chunk', chunk: { choices: [] } });
    // Every chunk carries the same id, model and created time.
    const chunks = chunksOf(events);
    expect(new Set(chunks.map((chunk) => `${chunk.id}|${chunk.model}|${chunk.created}`)).size).toBe(1);
    expect(chunks[0]).toMatchObject({ id: 'chatcmpl-test', object: 'chat.completion.chunk', model: 'gemini-2.5-flash' });
  });

  it('emits each whole function call as a tool-call start plus its full arguments, indexed across calls', () => {
    const events = translateInPieces(fixtureBytes('stream-tool-calls.sse'));
    const message = reassemble(events);
    expect(message.content).toBe('Let me check both for you.');
    expect(message.finishReason).toBe('tool_calls');
    expect(message.toolCalls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
      ['get_weather', { location: 'Zürich', unit: 'celsius', days: [1, 2] }],
      ['get_time', { timezone: 'Europe/Zurich' }],
    ]);
    expect(message.toolCalls[0].extra).toEqual({ google: { thought_signature: 'EpIBCo8BAdHtim9vZ3Q=' } });
    expect(message.toolCalls[0].id).toMatch(/^call_/);
    expect(message.toolCalls[0].id).not.toBe(message.toolCalls[1].id);
    expect(message.usage).toMatchObject({ prompt_tokens: 81, completion_tokens: 33 });
  });

  it('turns an in-stream error object into an error event carrying Google status and body, and stops there', () => {
    const events = translateInPieces(fixtureBytes('stream-error-after-content.sse'));
    const error = events.find((event) => event.type === 'error');
    expect(error).toEqual({
      type: 'error',
      status: 503,
      error: { message: 'The model is overloaded. Please try again later.', code: 'unavailable', param: null },
      providerError: { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } },
    });
    expect(events.some((event) => event.type === 'done')).toBe(false);
    expect(reassemble(events).content).toBe('Partial answer ');
  });

  it('sends no done when the body ends before any finishReason (a cut-short stream)', () => {
    const events = translateInPieces(encoder.encode('data: {"candidates":[{"content":{"parts":[{"text":"Hal"}],"role":"model"},"index":0}]}\r\n\r\n'));
    expect(events.some((event) => event.type === 'done')).toBe(false);
    expect(reassemble(events).content).toBe('Hal');
  });

  it('reports an event that is not JSON as an error', () => {
    const events = translateInPieces(encoder.encode('data: {"candidates": [\r\n\r\n'));
    expect(events).toEqual([{ type: 'error', error: { message: 'Gemini sent a stream event that is not JSON', code: 'invalid_provider_stream' }, providerError: '{"candidates": [' }]);
  });

  it('answers a blocked prompt with a content_filter finish and still reports usage', () => {
    const events = translateInPieces(encoder.encode('data: {"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":6,"totalTokenCount":6}}\n\n'));
    expect(reassemble(events)).toMatchObject({ finishReason: 'content_filter', done: true, usage: { prompt_tokens: 6, completion_tokens: 0, total_tokens: 6 } });
  });

  it('gives each candidate its own choice index when n > 1', () => {
    const body =
      'data: {"candidates":[{"content":{"parts":[{"text":"A"}],"role":"model"},"index":0},{"content":{"parts":[{"text":"B"}],"role":"model"},"index":1}]}\n\n' +
      'data: {"candidates":[{"finishReason":"STOP","index":0},{"finishReason":"MAX_TOKENS","index":1}]}\n\n';
    const chunks = chunksOf(translateInPieces(encoder.encode(body))) as Array<{ choices: Array<{ index: number; delta: { content?: string }; finish_reason: string | null }> }>;
    const byIndex = (index: number) => chunks.flatMap((chunk) => chunk.choices.filter((choice) => choice.index === index));
    expect(byIndex(0).map((choice) => choice.delta.content ?? choice.finish_reason)).toEqual(['', 'A', 'stop']);
    expect(byIndex(1).map((choice) => choice.delta.content ?? choice.finish_reason)).toEqual(['', 'B', 'length']);
  });
});

describe('property: chunking never changes the message', () => {
  for (const fixture of ['stream-text.sse', 'stream-tool-calls.sse']) {
    it(`reassembles ${fixture} identically however the bytes are cut (mid-event, mid-line, mid-UTF-8)`, () => {
      const bytes = fixtureBytes(fixture);
      const strip = (message: ReturnType<typeof reassemble>) => ({ ...message, toolCalls: message.toolCalls.map(({ id: _id, ...call }) => call) });
      const expected = strip(reassemble(translateInPieces(bytes)));
      expect(expected.done).toBe(true);
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }), (cuts) => {
          expect(strip(reassemble(translateInPieces(bytes, cuts)))).toEqual(expected);
        }),
        { numRuns: 300 },
      );
    });
  }

  it('cutting every single byte apart still yields the same message', () => {
    const bytes = fixtureBytes('stream-text.sse');
    const everyByte = Array.from({ length: bytes.length - 1 }, (_, index) => index + 1);
    expect(reassemble(translateInPieces(bytes, everyByte)).content).toBe('Grüß dich! 👋 Schön, dass du da bist — wie kann ich helfen? 你好！');
  });
});
