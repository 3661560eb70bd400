import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CHAT_COMPLETION_JSON,
  CHAT_COMPLETION_SSE,
  MOCK_DELAY_MS,
  MOCK_TRAILING_END_MS,
  MOCK_MODEL,
  MOCK_MODES,
  UPSTREAM_FAILURE_JSON,
  mockEmbedding,
  type MockMode,
} from './payloads.js';

/**
 * The bench's OpenAI-compatible provider, run as its own process (`node --import tsx bench/mock/server.ts`).
 * It answers from prebuilt buffers so that it costs as little CPU as possible and the difference between the
 * direct path and the gw path is gw's. `GET /__bench/stats` tells the harness how often each mode was called
 * and how many connections were opened.
 * Prints one JSON line `{"event":"ready","port":…}` on stdout once it listens.
 */

const counts: Record<MockMode | 'connections', number> = { fast: 0, delayed: 0, failing: 0, trailingEnd: 0, connections: 0 };
const MAX_BODY_BYTES = 1024 * 1024;

function modeOf(path: string): { mode: MockMode; rest: string } | undefined {
  for (const mode of ['delayed', 'failing', 'trailingEnd'] as const) {
    const prefix = MOCK_MODES[mode];
    if (path.startsWith(`${prefix}/`)) return { mode, rest: path.slice(prefix.length) };
  }
  return path.startsWith('/') ? { mode: 'fast', rest: path } : undefined;
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_BODY_BYTES) return undefined;
    parts.push(part);
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(parts, size).toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function send(response: ServerResponse, status: number, body: Buffer): void {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length, 'x-request-id': 'req_bench' });
  response.end(body);
}

/**
 * Writes the SSE events in separate writes, one per turn of the event loop, like a provider streaming tokens,
 * and ends the body at once, or `endDelayMs` after `[DONE]`.
 */
function stream(response: ServerResponse, endDelayMs = 0): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': 'req_bench' });
  let index = 0;
  const writeNext = () => {
    if (response.destroyed) return;
    if (index === CHAT_COMPLETION_SSE.length) {
      if (endDelayMs > 0) setTimeout(() => response.end(), endDelayMs);
      else response.end();
      return;
    }
    response.write(CHAT_COMPLETION_SSE[index++]);
    setImmediate(writeNext);
  };
  writeNext();
}

async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = (request.url ?? '/').split('?')[0];
  if (request.method === 'GET' && path === '/__bench/stats') {
    send(response, 200, Buffer.from(JSON.stringify(counts)));
    return;
  }
  const route = modeOf(path);
  if (request.method !== 'POST' || !route || (route.rest !== '/chat/completions' && route.rest !== '/embeddings')) {
    send(response, 404, Buffer.from(JSON.stringify({ error: { message: `bench mock: no route ${request.method} ${path}`, type: 'invalid_request_error', code: null, param: null } })));
    return;
  }
  const body = await readJson(request);
  counts[route.mode]++;
  if (!body) {
    send(response, 400, Buffer.from(JSON.stringify({ error: { message: 'bench mock: body is not a JSON object', type: 'invalid_request_error', code: null, param: null } })));
    return;
  }
  if (route.mode === 'failing') {
    send(response, 503, UPSTREAM_FAILURE_JSON);
    return;
  }
  if (route.mode === 'delayed') await new Promise((resolve) => setTimeout(resolve, MOCK_DELAY_MS));
  if (response.destroyed) return;
  if (route.rest === '/embeddings') {
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    const data = inputs.map((input, index) => ({ object: 'embedding', index, embedding: mockEmbedding(String(input)) }));
    send(response, 200, Buffer.from(JSON.stringify({ object: 'list', data, model: MOCK_MODEL, usage: { prompt_tokens: 8, total_tokens: 8 } })));
    return;
  }
  if (body.stream === true) stream(response, route.mode === 'trailingEnd' ? MOCK_TRAILING_END_MS : 0);
  else send(response, 200, CHAT_COMPLETION_JSON);
}

const server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
  answer(request, response).catch(() => response.destroy());
});
// New TCP connections: a client that reuses its keep-alive connections opens few, whatever its request count.
server.on('connection', () => counts.connections++);
server.listen(Number(process.env.BENCH_MOCK_PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ event: 'ready', port })}\n`);
});

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
