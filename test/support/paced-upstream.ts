import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A mock provider that streams as fast as its client takes the bytes, and no faster: it writes until its socket
 * says stop, then waits for 'drain', as a real provider's server does. It counts what it wrote per stream, so a test
 * can see from the provider's side whether gw reads ahead of its own client (the issue #42 signal: "how many bytes
 * the provider managed to write before the slow client read them"). The stream's shape follows the path asked:
 * chat completion chunks, Responses events, Anthropic Messages events, or raw audio bytes (pass-through).
 */
export interface PacedStream {
  path: string;
  written: number;
  /** Waiting for 'drain': the reader behind (gw, and behind it the client) is not taking more. */
  blocked: boolean;
  done: boolean;
}

export interface PacedUpstream {
  url: string;
  streams: PacedStream[];
  close(): Promise<void>;
}

/**
 * Writes as a real server does: counts the bytes, and when the socket says stop, waits (marked `blocked`) until it
 * drained or closed (then the caller sees `response.destroyed`).
 */
export function pacedWriter(response: ServerResponse, stream: PacedStream): (text: string | Buffer) => Promise<void> {
  return async (text) => {
    stream.written += Buffer.byteLength(text);
    if (response.write(text)) return;
    stream.blocked = true;
    await new Promise<void>((resolve) => {
      const done = () => {
        response.off('drain', done);
        response.off('close', done);
        resolve();
      };
      response.on('drain', done);
      response.on('close', done);
    });
    stream.blocked = false;
  };
}

/** `bytes`: about how much each stream carries; `piece`: the text of one content event. */
export async function startPacedUpstream(options: { bytes: number; piece?: string }): Promise<PacedUpstream> {
  const piece = options.piece ?? 'x'.repeat(200);
  const streams: PacedStream[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      for await (const _ of request) void _;
      const path = new URL(request.url ?? '/', 'http://mock').pathname;
      const stream: PacedStream = { path, written: 0, blocked: false, done: false };
      streams.push(stream);
      const shape = shapeOf(path, piece);
      response.writeHead(200, { 'content-type': shape.contentType });
      const write = pacedWriter(response, stream);
      for (const text of shape.head) await write(text);
      while (stream.written < options.bytes && !response.destroyed) await write(shape.content());
      if (response.destroyed) return;
      for (const text of shape.tail) await write(text);
      stream.done = true;
      response.end();
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    streams,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Shape {
  contentType: string;
  head: string[];
  content(): string | Buffer;
  tail: string[];
}

const event = (name: string | undefined, data: unknown) => `${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

function shapeOf(path: string, piece: string): Shape {
  if (path.endsWith('/responses')) {
    const response = { id: 'resp_paced', object: 'response', created_at: 1_700_000_000, model: 'gpt-4o-mini', output: [] as unknown[] };
    const delta = event('response.output_text.delta', { type: 'response.output_text.delta', item_id: 'msg_paced', output_index: 0, content_index: 0, delta: piece });
    return {
      contentType: 'text/event-stream',
      head: [
        event('response.created', { type: 'response.created', response: { ...response, status: 'in_progress' } }),
        event('response.output_item.added', { type: 'response.output_item.added', output_index: 0, item: { id: 'msg_paced', type: 'message', role: 'assistant', status: 'in_progress', content: [] } }),
      ],
      content: () => delta,
      tail: [
        event('response.completed', { type: 'response.completed', response: { ...response, status: 'completed', usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } } }),
      ],
    };
  }
  if (path.endsWith('/messages')) {
    const delta = event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
    return {
      contentType: 'text/event-stream',
      head: [
        event('message_start', { type: 'message_start', message: { id: 'msg_paced', type: 'message', role: 'assistant', content: [], model: 'claude-3-5-haiku-latest', stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } }),
        event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      ],
      content: () => delta,
      tail: [
        event('content_block_stop', { type: 'content_block_stop', index: 0 }),
        event('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } }),
        event('message_stop', { type: 'message_stop' }),
      ],
    };
  }
  if (path.endsWith('/audio/speech')) {
    const bytes = Buffer.alloc(16 * 1024, 0x55);
    return { contentType: 'audio/mpeg', head: [], content: () => bytes, tail: [] };
  }
  const base = { id: 'chatcmpl-paced', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4o-mini' };
  const chunk = event(undefined, { ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
  return {
    contentType: 'text/event-stream',
    head: [event(undefined, { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })],
    content: () => chunk,
    tail: [
      event(undefined, { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      event(undefined, { ...base, choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
      event(undefined, '[DONE]'),
    ],
  };
}

/** Waits until the stream stops moving: blocked on 'drain' with the same count over `polls` looks in a row. */
export async function stalled(stream: PacedStream, polls = 5, everyMs = 100): Promise<number> {
  let last = -1;
  let still = 0;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    if (stream.done) return stream.written;
    if (stream.blocked && stream.written === last) still++;
    else still = 0;
    last = stream.written;
    if (still >= polls) return stream.written;
  }
}
