import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../../shared/http/sse.js';
import { collectMessage, replayMessage } from '../../../shared/dialects/anthropic-messages/native-cache.js';
import { collectResponse, replayResponse } from '../../../shared/dialects/responses/native-cache.js';

type Json = Record<string, unknown>;

/** The events of a replay, parsed, as a client (or the collector of the next miss) reads them. */
function eventsOf(bytes: Iterable<Uint8Array>): Json[] {
  const decoder = new SseDecoder();
  const events: Json[] = [];
  for (const chunk of bytes) for (const event of decoder.push(chunk)) events.push(JSON.parse(event.data) as Json);
  for (const event of decoder.end()) events.push(JSON.parse(event.data) as Json);
  return events;
}

describe('a cached Message replayed as a stream folds back into the same Message', () => {
  it('text with citations, thinking with its signature, a tool call, a server tool result', () => {
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'thinking', thinking: 'Let me think about the weather in two cities at once.', signature: 'sig_abc' },
        { type: 'text', text: 'Checking the weather in Paris and in Oslo for you now, one moment.', citations: [{ type: 'web_search_result_location', url: 'https://example.com', cited_text: 'x' }] },
        { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris', units: ['c', 'f'], deep: { a: 1 } } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://example.com', title: 'x' }] },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 25, output_tokens: 15, cache_read_input_tokens: 5 },
    };
    const events = eventsOf(replayMessage(message));
    expect(events.map((event) => event.type).filter((type, index, all) => all[index - 1] !== type)).toEqual([
      'message_start',
      ...message.content.flatMap((block) => (block.type === 'web_search_tool_result' ? ['content_block_start', 'content_block_stop'] : ['content_block_start', 'content_block_delta', 'content_block_stop'])),
      'message_delta',
      'message_stop',
    ]);
    const collector = collectMessage();
    for (const event of events) collector.add(event);
    expect(collector.result()).toEqual(message);
  });

  it('a stream that never reached message_stop has no answer to cache', () => {
    const collector = collectMessage();
    for (const event of eventsOf(replayMessage({ id: 'm', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn', usage: {} })).slice(0, -1)) collector.add(event);
    expect(collector.result()).toBeUndefined();
  });
});

describe('a cached Response replayed as a stream', () => {
  it('numbers its events, streams text and arguments, and ends with the whole Response', () => {
    const response = {
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      model: 'gpt-4o-mini',
      output: [
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Here is the weather for the two cities you asked about.', annotations: [] }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris","days":[1,2,3]}', status: 'completed' },
      ],
      usage: { input_tokens: 9, output_tokens: 12, total_tokens: 21 },
    };
    const events = eventsOf(replayResponse(response));
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events[0]).toMatchObject({ type: 'response.created', response: { status: 'in_progress', output: [] } });
    const text = events.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta).join('');
    expect(text).toBe('Here is the weather for the two cities you asked about.');
    const args = events.filter((event) => event.type === 'response.function_call_arguments.delta').map((event) => event.delta).join('');
    expect(args).toBe(response.output[2].arguments);
    expect(events.filter((event) => event.type === 'response.output_item.done').map((event) => event.item)).toEqual(response.output);
    const collector = collectResponse();
    for (const event of events) collector.add(event);
    expect(collector.result()).toEqual(response);
  });

  it('an incomplete Response ends with response.incomplete', () => {
    const events = eventsOf(replayResponse({ id: 'r', object: 'response', status: 'incomplete', output: [] }));
    expect(events.at(-1)!.type).toBe('response.incomplete');
  });
});
