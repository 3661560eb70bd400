import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replayAsSse } from '../../../../shared/gateway/cache/replay.js';
import { StreamAssembler } from '../../../../shared/gateway/cache/stream-assembler.js';
import { SseDecoder } from '../../../../shared/http/sse.js';

const stored = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'gpt-4o',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Checking the weather in two cities for you — ünïcödé ✓ included.',
        reasoning_content: 'The user wants weather; call the tool twice in parallel.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius","days":3}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Tōkyō","unit":"celsius"}' } },
        ],
      },
      finish_reason: 'tool_calls',
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
};

function replayedChunks(includeUsage: boolean): Array<Record<string, unknown> | '[DONE]'> {
  const decoder = new SseDecoder();
  const events = [];
  for (const bytes of replayAsSse(stored, includeUsage)) events.push(...decoder.push(bytes));
  return events.map((event) => (event.data === '[DONE]' ? '[DONE]' : JSON.parse(event.data)));
}

describe('cache replay', () => {
  it('streams deltas, tool calls with indexes, reasoning, usage and [DONE]; reassembly equals the stored message', () => {
    const chunks = replayedChunks(true);
    expect(chunks.at(-1)).toBe('[DONE]');
    expect(chunks.length).toBeGreaterThan(8);
    const assembler = new StreamAssembler();
    for (const chunk of chunks) if (chunk !== '[DONE]') assembler.add(chunk);
    expect(assembler.result()).toEqual(stored);
    for (const chunk of chunks) {
      if (chunk === '[DONE]') continue;
      expect(chunk).toMatchObject({ id: 'chatcmpl-1', created: 1_700_000_000, model: 'gpt-4o', object: 'chat.completion.chunk' });
    }
  });

  it('leaves the usage chunk out when the client did not ask for it', () => {
    expect(replayedChunks(false).some((chunk) => chunk !== '[DONE]' && chunk.usage)).toBe(false);
  });

  it('reassembles any text exactly (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string(), (content, args) => {
        const message = { ...stored, choices: [{ ...stored.choices[0], message: { role: 'assistant', content, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: args } }] } }] };
        const assembler = new StreamAssembler();
        const decoder = new SseDecoder();
        for (const bytes of replayAsSse(message, true)) {
          for (const event of decoder.push(bytes)) if (event.data !== '[DONE]') assembler.add(JSON.parse(event.data));
        }
        const result = assembler.result() as typeof message;
        expect(result.choices[0].message.content).toBe(content);
        expect(result.choices[0].message.tool_calls[0].function.arguments).toBe(args);
      }),
    );
  });
});
