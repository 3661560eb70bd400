import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the media mock saw, bytes exact (the shared mock keeps bodies as text, which would mangle files). */
export interface RawRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Audio the mock "speaks": three binary chunks, bytes 0..255 so any text decoding would show. */
export const SPEECH_CHUNKS = [Buffer.from([0xff, 0xfb, 0x90, 0x00, 0x01]), Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from([0xde, 0xad, 0xbe, 0xef])];

export interface MediaMock {
  url: string;
  requests: RawRequest[];
  /** Until resolved, the speech answer stops after its first chunk (proves gw relays it without buffering). */
  holdSpeech(until: Promise<void>): void;
  /** Resolves when the next speech answer's connection is closed by gw before the answer was complete. */
  nextClose(): Promise<void>;
  close(): Promise<void>;
}

/**
 * An OpenAI-format provider for the pass-through endpoints, as a real HTTP server. It answers by the path's
 * last segments, so the same mock serves OpenAI-style (`/images/generations`) and Azure-style
 * (`/openai/deployments/d/images/generations`) URLs. `failing` answers every call 500.
 */
export async function startMediaMock(options: { failing?: boolean } = {}): Promise<MediaMock> {
  const requests: RawRequest[] = [];
  let speechHold: Promise<void> | undefined;
  let onEarlyClose: (() => void) | undefined;
  const server: Server = createServer((request, response) => {
    void (async () => {
      const parts: Buffer[] = [];
      for await (const part of request as AsyncIterable<Buffer>) parts.push(part);
      const url = new URL(request.url ?? '/', 'http://mock');
      const body = Buffer.concat(parts);
      requests.push({ method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: request.headers, body });
      const json = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers });
        response.end(JSON.stringify(payload));
      };
      if (options.failing) return json(500, { error: { message: 'mock is down', type: 'server_error', code: null } });
      const path = url.pathname;
      const rateHeaders = { 'x-ratelimit-remaining-requests': '42', 'x-request-id': 'req_media_1' };
      if (path.endsWith('/images/generations') || path.endsWith('/images/edits')) {
        return json(200, { created: 1_700_000_000, data: [{ b64_json: 'aW1hZ2U=' }], usage: { input_tokens: 10, output_tokens: 20, total_tokens: 30 } }, rateHeaders);
      }
      if (path.endsWith('/audio/speech')) {
        let complete = false;
        response.once('close', () => {
          if (!complete) onEarlyClose?.();
        });
        response.writeHead(200, { 'content-type': 'audio/mpeg', ...rateHeaders });
        response.flushHeaders();
        response.write(SPEECH_CHUNKS[0]);
        if (speechHold) await speechHold;
        for (const chunk of SPEECH_CHUNKS.slice(1)) response.write(chunk);
        complete = true;
        return response.end();
      }
      if (path.endsWith('/audio/transcriptions') || path.endsWith('/audio/translations')) {
        const form = await new Response(body, { headers: { 'content-type': String(request.headers['content-type']) } }).formData();
        const text = path.endsWith('/translations') ? 'hello in English' : 'hello world';
        if (form.get('response_format') === 'text') {
          response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
          return response.end(`${text}\n`);
        }
        return json(200, { text }, rateHeaders);
      }
      if (path.endsWith('/moderations')) {
        return json(200, { id: 'modr-1', model: 'omni-moderation-latest', results: [{ flagged: false, categories: {}, category_scores: {} }] }, rateHeaders);
      }
      if (path.endsWith('/rerank')) {
        return json(200, { id: 'rr-1', results: [{ index: 1, relevance_score: 0.9 }, { index: 0, relevance_score: 0.1 }] }, rateHeaders);
      }
      json(404, { error: { message: `no route ${path}`, type: 'invalid_request_error' } });
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    holdSpeech: (until) => (speechHold = until),
    nextClose: () => new Promise<void>((resolve) => (onEarlyClose = resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
