import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseDecoder, encodeSseData, encodeSseEvent } from '../../../shared/http/sse.js';

describe('SseDecoder', () => {
  const stream = Buffer.concat([
    Buffer.from(encodeSseData({ text: 'héllo wörld ✓ 👋' })),
    Buffer.from(encodeSseEvent('error', { error: { message: 'ünïcode' } })),
    Buffer.from('data: [DONE]\n\n'),
  ]);

  it('decodes events however the bytes are split, even inside a UTF-8 character', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 12 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const decoder = new SseDecoder();
        const events = [];
        let start = 0;
        for (const point of [...points, stream.length]) {
          events.push(...decoder.push(stream.subarray(start, point)));
          start = point;
        }
        events.push(...decoder.end());
        expect(events.map((event) => [event.event, event.data])).toEqual([
          [undefined, '{"text":"héllo wörld ✓ 👋"}'],
          ['error', '{"error":{"message":"ünïcode"}}'],
          [undefined, '[DONE]'],
        ]);
      }),
    );
  });

  it('emits a final event that lacks its blank line when the stream ends', () => {
    const decoder = new SseDecoder();
    expect(decoder.push(Buffer.from('data: {"a":1}'))).toEqual([]);
    expect(decoder.end().map((event) => event.data)).toEqual(['{"a":1}']);
  });
});
