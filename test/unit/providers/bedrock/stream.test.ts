import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventStreamDecodeError, EventStreamDecoder } from '../../../../shared/providers/bedrock/event-stream.js';
import {
  concatBytes,
  encodeEvents,
  errorMessage,
  eventMessage,
  exceptionMessage,
  indexOfUtf8,
  loadRecordedStream,
  splitAt,
} from '../../../fixtures/bedrock/event-stream.js';
import { reassemble, translateParts } from './stream-reassembly.js';

const toolStream = concatBytes(encodeEvents(loadRecordedStream('converse-stream-tools.json')));
const reasoningStream = concatBytes(encodeEvents(loadRecordedStream('converse-stream-reasoning.json')));

const EXPECTED_TOOL_ANSWER = {
  content: 'Checking Paris and Tōkyō 🌍 now.',
  reasoning: '',
  toolCalls: [
    { index: 0, id: 'tooluse_weather_paris', name: 'get_weather', arguments: '{"city": "Paris", "unit": "celsius"}' },
    { index: 1, id: 'tooluse_time_tokyo', name: 'get_time', arguments: '{"timezone": "Asia/Tōkyō"}' },
  ],
  finishReason: 'tool_calls',
  usage: { prompt_tokens: 412, completion_tokens: 97, total_tokens: 509 },
  done: 1,
  errors: [],
};

describe('ConverseStream → OpenAI chunks', () => {
  it('emits role, text, two indexed tool calls, the finish, the usage chunk and done, in that order', () => {
    const events = translateParts([toolStream]);
    expect(reassemble(events)).toEqual(EXPECTED_TOOL_ANSWER);
    const chunks = events.filter((event) => event.type === 'chunk').map((event) => event.chunk as Record<string, unknown>);
    expect(chunks[0].choices).toEqual([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
    expect(chunks.at(-1)).toEqual({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: chunks[0].created, model: 'anthropic.claude-3-5-sonnet-20240620-v1:0', choices: [], usage: EXPECTED_TOOL_ANSWER.usage });
    expect(new Set(chunks.map((chunk) => `${chunk.id}|${chunk.model}|${chunk.created}`)).size).toBe(1);
    expect(events.at(-1)).toEqual({ type: 'done' });
  });

  it('gives the same answer when fed one byte at a time', () => {
    const bytes = [...toolStream].map((byte) => Uint8Array.of(byte));
    expect(reassemble(translateParts(bytes))).toEqual(EXPECTED_TOOL_ANSWER);
  });

  it('keeps a multi-byte character intact when a chunk boundary falls inside it', () => {
    const emoji = indexOfUtf8(toolStream, '🌍');
    expect(emoji).toBeGreaterThan(0);
    const parts = splitAt(toolStream, [emoji + 1, emoji + 3, indexOfUtf8(toolStream, 'ō') + 1]);
    expect(reassemble(translateParts(parts))).toEqual(EXPECTED_TOOL_ANSWER);
  });

  it('streams reasoning as reasoning_content, the signed block as thinking_blocks, and counts cache reads in the usage', () => {
    expect(reassemble(translateParts([reasoningStream]))).toEqual({
      content: '2 + 2 = 4',
      reasoning: 'The user wants 2+2. That is 4.',
      thinkingBlocks: [{ type: 'thinking', thinking: 'The user wants 2+2. That is 4.', signature: 'EqoBCkgIARABGAIiQL2Y' }],
      toolCalls: [],
      finishReason: 'stop',
      usage: { prompt_tokens: 1520, completion_tokens: 48, total_tokens: 1568, prompt_tokens_details: { cached_tokens: 1500 } },
      done: 1,
      errors: [],
    });
  });

  it('turns an exception event after content into an error event and stops there', () => {
    const parts = [
      eventMessage('messageStart', { role: 'assistant' }),
      eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Partial ' } }),
      exceptionMessage('throttlingException', 'Too many tokens, please wait before trying again.'),
      eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'never relayed' } }),
    ];
    const events = translateParts(parts);
    expect(reassemble(events).content).toBe('Partial ');
    expect(events.at(-1)).toEqual({
      type: 'error',
      status: 429,
      error: { message: 'Too many tokens, please wait before trying again.', type: 'upstream_error', code: 'throttlingException', param: null },
      providerError: { message: 'Too many tokens, please wait before trying again.' },
    });
    expect(events.filter((event) => event.type === 'done')).toEqual([]);
  });

  it('sends no role chunk before an early exception, so the request can still fail with a status', () => {
    const events = translateParts([eventMessage('messageStart', { role: 'assistant' }), exceptionMessage('modelStreamErrorException', 'The model failed.')]);
    expect(events).toEqual([
      { type: 'error', status: 424, error: { message: 'The model failed.', type: 'upstream_error', code: 'modelStreamErrorException', param: null }, providerError: { message: 'The model failed.' } },
    ]);
  });

  it('turns a generic error message into an error event', () => {
    const events = translateParts([errorMessage('InternalFailure', 'The request processing has failed.')]);
    expect(events).toEqual([
      { type: 'error', status: 502, error: { message: 'The request processing has failed.', type: 'upstream_error', code: 'InternalFailure', param: null }, providerError: expect.anything() },
    ]);
  });

  it('reports a corrupted message (bad checksum) as an unreadable stream', () => {
    const corrupt = eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } });
    corrupt[corrupt.length - 1] ^= 0xff;
    const [event] = translateParts([corrupt]);
    expect(event).toMatchObject({ type: 'error', status: 502, error: { code: 'invalid_event_stream', message: expect.stringContaining('unreadable event stream') } });
  });

  it('snapshots every signed or redacted thinking block so far at the end of each reasoning block', () => {
    const events = translateParts([
      eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { redactedContent: 'ZW5jcnlwdGVk' } } }),
      eventMessage('contentBlockStop', { contentBlockIndex: 0 }),
      eventMessage('contentBlockDelta', { contentBlockIndex: 1, delta: { reasoningContent: { text: 'Unsigned thoughts' } } }),
      eventMessage('contentBlockStop', { contentBlockIndex: 1 }),
      eventMessage('contentBlockDelta', { contentBlockIndex: 2, delta: { reasoningContent: { text: 'Signed' } } }),
      eventMessage('contentBlockDelta', { contentBlockIndex: 2, delta: { reasoningContent: { signature: 'c2ln' } } }),
      eventMessage('contentBlockStop', { contentBlockIndex: 2 }),
    ]);
    const snapshots = events.flatMap((event) =>
      event.type === 'chunk' ? (event.chunk.choices as Array<{ delta: { thinking_blocks?: unknown } }>).flatMap((choice) => (choice.delta.thinking_blocks ? [choice.delta.thinking_blocks] : [])) : [],
    );
    expect(snapshots).toEqual([
      [{ type: 'redacted_thinking', data: 'ZW5jcnlwdGVk' }],
      [
        { type: 'redacted_thinking', data: 'ZW5jcnlwdGVk' },
        { type: 'thinking', thinking: 'Signed', signature: 'c2ln' },
      ],
    ]);
  });

  it('gives a tool call that streamed no input the arguments {}', () => {
    const events = translateParts([
      eventMessage('contentBlockStart', { contentBlockIndex: 0, start: { toolUse: { toolUseId: 'tooluse_now', name: 'get_time' } } }),
      eventMessage('contentBlockStop', { contentBlockIndex: 0 }),
      eventMessage('messageStop', { stopReason: 'tool_use' }),
      eventMessage('metadata', { usage: { inputTokens: 9, outputTokens: 4, totalTokens: 13 } }),
    ]);
    expect(reassemble(events).toolCalls).toEqual([{ index: 0, id: 'tooluse_now', name: 'get_time', arguments: '{}' }]);
  });

  it('puts the usage chunk after the finish chunk even when metadata comes first', () => {
    const events = translateParts([
      eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }),
      eventMessage('metadata', { usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 } }),
      eventMessage('messageStop', { stopReason: 'max_tokens' }),
    ]);
    const tail = events.slice(-3).map((event) => (event.type === 'chunk' ? (event.chunk.usage ? 'usage' : 'finish') : event.type));
    expect(tail).toEqual(['finish', 'usage', 'done']);
    expect(reassemble(events).finishReason).toBe('length');
  });

  it('completes a stream that stopped without metadata, and leaves a truncated one without done', () => {
    const stopped = translateParts([eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }), eventMessage('messageStop', { stopReason: 'end_turn' })]);
    expect(reassemble(stopped)).toMatchObject({ content: 'Hi', finishReason: 'stop', done: 1 });
    expect(reassemble(stopped).usage).toBeUndefined();
    const truncated = translateParts([eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }), toolStream.slice(0, 10)]);
    expect(reassemble(truncated)).toMatchObject({ content: 'Hi', done: 0, errors: [] });
  });

  it('streams a legacy functions answer as function_call deltas', () => {
    const events = translateParts(
      [
        eventMessage('contentBlockStart', { contentBlockIndex: 0, start: { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather' } } }),
        eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '{"city":' } } }),
        eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '"Paris"}' } } }),
        eventMessage('messageStop', { stopReason: 'tool_use' }),
        eventMessage('metadata', { usage: { inputTokens: 9, outputTokens: 4, totalTokens: 13 } }),
      ],
      { legacyFunctions: true },
    );
    const deltas = events.flatMap((event) => (event.type === 'chunk' ? (event.chunk.choices as Array<{ delta: unknown; finish_reason: unknown }>) : []));
    expect(deltas.map((choice) => choice.delta)).toEqual([
      { role: 'assistant', content: '' },
      { function_call: { name: 'get_weather', arguments: '' } },
      { function_call: { arguments: '{"city":' } },
      { function_call: { arguments: '"Paris"}' } },
      {},
    ]);
    expect(deltas.at(-1)?.finish_reason).toBe('function_call');
  });

  it('reassembles to the same message however the recorded stream is cut into chunks', () => {
    const whole = reassemble(translateParts([toolStream]));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: toolStream.length - 1 }), { maxLength: 40 }), (cuts) => {
        expect(reassemble(translateParts(splitAt(toolStream, cuts)))).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });
});

describe('event-stream decoder', () => {
  it('waits for the rest of a message split inside its length prelude', () => {
    const decoder = new EventStreamDecoder();
    const message = eventMessage('messageStart', { role: 'assistant' });
    expect(decoder.push(message.slice(0, 2))).toEqual([]);
    expect(decoder.pendingBytes).toBe(2);
    expect(decoder.push(message.slice(2))).toEqual([{ kind: 'event', eventType: 'messageStart', payload: { role: 'assistant' } }]);
    expect(decoder.pendingBytes).toBe(0);
  });

  it('rejects a length prelude that cannot be a message', () => {
    const decoder = new EventStreamDecoder();
    expect(() => decoder.push(Uint8Array.of(0, 0, 0, 3, 0, 0, 0, 0))).toThrow(EventStreamDecodeError);
  });
});
