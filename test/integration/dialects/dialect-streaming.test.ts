import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../../shared/http/sse.js';
import { anthropicMockHandler, anthropicStream } from '../../support/mock-anthropic.js';
import { chatStream } from '../../support/mock-openai.js';
import { openAIDialectsMockHandler } from '../../support/mock-openai-dialects.js';
import type { MockUpstream, ScriptedResponse } from '../../support/mock-upstream.js';
import { targetHeaders, useDialectRig, type DialectRig } from './dialect-setup.js';

let rig: DialectRig;
useDialectRig((started) => (rig = started));

/** Reads SSE events from a response until `until` matches one; the rest of the body is left unread. */
async function readUntil(response: Response, until: (event: { event?: string; data: string }) => boolean): Promise<Array<{ event?: string; data: string }>> {
  const decoder = new SseDecoder();
  const seen: Array<{ event?: string; data: string }> = [];
  const reader = response.body!.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before the expected event; saw ${seen.map((event) => event.event).join(', ')}`);
    for (const event of decoder.push(value)) {
      seen.push(event);
      if (until(event)) {
        reader.releaseLock();
        return seen;
      }
    }
  }
}

/** The mock holds the rest of its stream until released: what the client sees before proves nothing is buffered. */
function held(upstream: MockUpstream, script: (release: Promise<void>) => ScriptedResponse): () => void {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  upstream.setHandler(() => script(gate));
  return release;
}

describe('dialect streams go out event by event, never buffered', () => {
  it('/v1/messages translated from an OpenAI stream: a text_delta arrives while the provider still holds the rest', async () => {
    const release = held(rig.openai, (until) => ({ chunks: chatStream('m', 'one two three four', { stream_options: { include_usage: true } }), holdAfter: { count: 3, until } }));
    try {
      const response = await rig.gateway.post('/v1/messages', { model: 'm', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'Hi' }] }, targetHeaders('openai', rig.openai));
      const seen = await readUntil(response, (event) => event.event === 'content_block_delta');
      expect(seen.map((event) => event.event)).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
      release();
      const rest = await readUntil(response, (event) => event.event === 'message_stop');
      expect(rest.at(-2)?.event).toBe('message_delta');
    } finally {
      release();
      rig.openai.setHandler(openAIDialectsMockHandler());
    }
  });

  it('/v1/responses translated from an Anthropic stream: an output_text.delta arrives while the provider still holds the rest', async () => {
    const chunks = anthropicStream('msg_h', 'm', [{ type: 'text', text: 'one two three four' }], 'end_turn', { input_tokens: 3, output_tokens: 4 });
    const release = held(rig.anthropic, (until) => ({ chunks, holdAfter: { count: 4, until } }));
    try {
      const response = await rig.gateway.post('/v1/responses', { model: 'm', input: 'Hi', stream: true }, targetHeaders('anthropic', rig.anthropic));
      const seen = await readUntil(response, (event) => event.event === 'response.output_text.delta');
      expect(seen.map((event) => event.event)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.delta']);
      release();
      await readUntil(response, (event) => event.event === 'response.completed');
    } finally {
      release();
      rig.anthropic.setHandler(anthropicMockHandler());
    }
  });

  it('/v1/messages native: Anthropic events pass with their names while the provider still holds the rest', async () => {
    const chunks = anthropicStream('msg_n', 'm', [{ type: 'text', text: 'one two three four' }], 'end_turn', { input_tokens: 3, output_tokens: 4 });
    const release = held(rig.anthropic, (until) => ({ chunks, holdAfter: { count: 4, until } }));
    try {
      const response = await rig.gateway.post('/v1/messages', { model: 'm', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'Hi' }] }, targetHeaders('anthropic', rig.anthropic));
      const seen = await readUntil(response, (event) => event.event === 'content_block_delta');
      expect(seen.map((event) => event.event)).toEqual(['message_start', 'ping', 'content_block_start', 'content_block_delta']);
      expect(seen.map((event) => event.data)).toEqual(chunks.slice(0, 4).map((chunk) => chunk.split('data: ')[1].trim()));
      release();
      await readUntil(response, (event) => event.event === 'message_stop');
    } finally {
      release();
      rig.anthropic.setHandler(anthropicMockHandler());
    }
  });

  it('an error right after message_start falls back instead of reaching the client', async () => {
    rig.anthropic.setHandler(() => ({
      chunks: [
        `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_e', type: 'message', role: 'assistant', model: 'm', content: [], usage: { input_tokens: 1, output_tokens: 1 } } })}\n\n`,
        `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`,
      ],
    }));
    try {
      const config = JSON.stringify({
        strategy: { mode: 'fallback' },
        targets: [
          { provider: 'anthropic', api_key: 'k', custom_host: rig.anthropic.url },
          { provider: 'openai', api_key: 'k', custom_host: rig.openai.url },
        ],
      });
      const response = await rig.gateway.post('/v1/messages', { model: 'm', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'Hi' }] }, { 'x-gw-config': config });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-gw-provider')).toBe('openai');
      const events = await readUntil(response, (event) => event.event === 'message_stop');
      expect(events.some((event) => event.event === 'error')).toBe(false);
    } finally {
      rig.anthropic.setHandler(anthropicMockHandler());
    }
  });
});
