import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a mock provider saw. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: unknown;
  /** The client's port: requests on one keep-alive connection share it. */
  remotePort?: number;
  /** Set once the client closed this request while the mock was still answering it. */
  closedEarly?: boolean;
}

/** How a mock provider answers one request. */
export interface ScriptedResponse {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON (content-type application/json) unless `chunks` is given. */
  json?: unknown;
  /** Body parts written one by one, `chunkDelayMs` apart (strings or raw bytes, split anywhere). */
  chunks?: Array<string | Uint8Array>;
  chunkDelayMs?: number;
  /** Wait before sending headers. */
  delayMs?: number;
  /** Never answer at all. */
  hang?: boolean;
  /** Drop the connection without answering (a reset before any byte). */
  destroy?: boolean;
  /** After `count` chunks, wait for `until` before sending the rest (to prove the relay does not buffer). */
  holdAfter?: { count: number; until: Promise<void> };
  /** After the chunks: wait this long before ending the body (providers often close a moment after [DONE]). */
  endDelayMs?: number;
  /** After the chunks: keep the connection open without ending it. */
  hangAfterChunks?: boolean;
  /** After the chunks: destroy the socket (a connection reset mid-body). */
  resetAfterChunks?: boolean;
}

export type MockHandler = (request: RecordedRequest) => ScriptedResponse | Promise<ScriptedResponse>;

export interface MockUpstream {
  url: string;
  requests: RecordedRequest[];
  setHandler(handler: MockHandler): void;
  /** How many requests the client closed while the mock was still answering them. */
  closedEarly(): number;
  close(): Promise<void>;
}

/** A mock provider as a real HTTP server on a free loopback port. */
export async function startMockUpstream(initial: MockHandler): Promise<MockUpstream> {
  let handler = initial;
  const requests: RecordedRequest[] = [];
  let earlyCloses = 0;
  const server: Server = createServer((request, response) => {
    void answer(request, response).catch(() => response.destroy());
  });

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const part of request as AsyncIterable<Buffer>) parts.push(part);
    const body = Buffer.concat(parts).toString('utf8');
    const url = new URL(request.url ?? '/', 'http://mock');
    let json: unknown;
    try {
      json = body ? JSON.parse(body) : undefined;
    } catch {
      json = undefined;
    }
    const recorded: RecordedRequest = { method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: request.headers, body, json, remotePort: request.socket.remotePort };
    requests.push(recorded);
    const script = await handler(recorded);
    let finished = false;
    const closed = () => {
      if (finished || recorded.closedEarly) return;
      earlyCloses++;
      recorded.closedEarly = true;
    };
    response.once('close', closed);
    // A client that left while the handler ran: 'close' may have gone by before the listener was added.
    if (response.destroyed) closed();
    if (script.hang) return;
    if (script.destroy) {
      response.socket?.destroy();
      return;
    }
    if (script.delayMs) await sleep(script.delayMs);
    if (response.destroyed) return;
    if (script.chunks) {
      response.writeHead(script.status ?? 200, { 'content-type': 'text/event-stream', ...script.headers });
      response.flushHeaders();
      for (const [index, chunk] of script.chunks.entries()) {
        if (script.holdAfter && index === script.holdAfter.count) await script.holdAfter.until;
        if (script.chunkDelayMs) await sleep(script.chunkDelayMs);
        if (response.destroyed) return;
        response.write(chunk);
      }
      if (script.hangAfterChunks) return;
      if (script.resetAfterChunks) {
        // Give the client time to read what was sent: a reset can discard unread data.
        await sleep(script.chunkDelayMs ?? 20);
        response.socket?.destroy();
        return;
      }
      if (script.endDelayMs) await sleep(script.endDelayMs);
      finished = true;
      response.end();
      return;
    }
    const payload = script.json === undefined ? '' : JSON.stringify(script.json);
    response.writeHead(script.status ?? 200, { 'content-type': 'application/json', ...script.headers });
    finished = true;
    response.end(payload);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setHandler: (next) => {
      handler = next;
    },
    closedEarly: () => earlyCloses,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** SSE framing for test scripts: one `data:` event per payload. */
export function sse(...payloads: unknown[]): string[] {
  return payloads.map((payload) => `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
}
