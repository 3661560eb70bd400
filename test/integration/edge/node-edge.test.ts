import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNodeEdge } from '../../../infra/local/node-edge.js';
import type { NeutralRequest, NeutralResponse } from '../../../shared/http/types.js';

/**
 * The local edge on its own: a real node:http server with createNodeEdge in front of two small cores that show
 * what they received, so each adaptation (headers, query, body, limit, signal, streaming, errors) is checked
 * through real HTTP on loopback.
 */
type Core = (request: NeutralRequest) => Promise<NeutralResponse>;

const MAX_BODY = 64;
let server: Server;
let base: string;
let gatewayCore: Core;
let controlPlaneCore: Core;
let changes = 0;
let seen: NeutralRequest | undefined;
/** Each request's handler, as the local server's graceful close gets it. */
const served: Array<Promise<void>> = [];

const echo: Core = async (request) => {
  seen = request;
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...request, body: request.body.toString('base64'), signal: undefined }) };
};

beforeAll(async () => {
  server = createServer(
    createNodeEdge({
      gateway: (request) => gatewayCore(request),
      controlPlane: (request) => controlPlaneCore(request),
      isGatewayPath: (path) => path.startsWith('/v1/chat'),
      maxBodyBytes: MAX_BODY,
      controlPlaneChanged: () => changes++,
      serving: (work) => served.push(work),
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  gatewayCore = echo;
  controlPlaneCore = echo;
  seen = undefined;
  changes = 0;
});

/** A raw request, so repeated headers are sent as separate lines (fetch would join them itself). */
function rawRequest(path: string, options: { method?: string; headers?: Array<[string, string]>; body?: Buffer }): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    // Raw header lists are sent exactly as given: host and content-length must be in them.
    const headers: Array<[string, string]> = [['Host', url.host], ['Content-Length', String(options.body?.length ?? 0)], ...(options.headers ?? [])];
    const call = httpRequest({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: options.method ?? 'GET', headers: headers.flat() as unknown as Record<string, string> }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(parts) }));
    });
    call.on('error', reject);
    call.end(options.body);
  });
}

describe('the node:http edge', () => {
  it('hands the core lower-cased headers (repeats joined), the query, the raw body and the caller’s address', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 255]);
    const response = await rawRequest('/v1/chat/completions?a=1&b=two&a=3', {
      method: 'POST',
      headers: [['X-GW-Metadata', '{"k":"v"}'], ['X-Repeated', 'one'], ['x-repeated', 'two'], ['Content-Type', 'application/octet-stream']],
      body: bytes,
    });
    expect(response.status).toBe(200);
    expect(seen).toMatchObject({ method: 'POST', path: '/v1/chat/completions', query: { a: '3', b: 'two' }, sourceIp: '127.0.0.1' });
    expect(seen!.headers).toMatchObject({ 'x-gw-metadata': '{"k":"v"}', 'x-repeated': 'one, two', 'content-type': 'application/octet-stream' });
    expect(seen!.body.equals(bytes)).toBe(true);
    expect(seen!.signal?.aborted).toBe(false);
    expect(response.headers['content-length']).toBe(String(response.body.length));
  });

  it('cuts a body past the limit at one byte more, so the core can answer its 413, and the connection stays usable', async () => {
    gatewayCore = async (request) => ({ status: request.body.length > MAX_BODY ? 413 : 200, headers: {}, body: String(request.body.length) });
    const response = await rawRequest('/v1/chat/completions', { method: 'POST', body: Buffer.alloc(10 * MAX_BODY, 'x') });
    expect(response.status).toBe(413);
    expect(response.body.toString()).toBe(String(MAX_BODY + 1));
  });

  it('writes binary bodies byte for byte and list-valued headers as one line per value', async () => {
    const bytes = Buffer.from([255, 0, 128, 7]);
    controlPlaneCore = async () => ({ status: 200, headers: { 'content-type': 'audio/mpeg', 'set-cookie': ['a=1', 'b=2'] as unknown as string }, body: new Uint8Array(bytes) });
    const response = await rawRequest('/v1/whatever', {});
    expect(response.body.equals(bytes)).toBe(true);
    expect(response.headers['set-cookie']).toEqual(['a=1', 'b=2']);
  });

  it('streams each chunk as the core yields it, and ends the response after the last', async () => {
    const release: Array<() => void> = [];
    gatewayCore = async () => ({
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: (async function* () {
        for (let i = 0; i < 3; i++) {
          yield Buffer.from(`data: ${i}\n\n`);
          await new Promise<void>((resolve) => release.push(resolve));
        }
      })(),
    });
    const response = await fetch(`${base}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const reader = response.body!.getReader();
    const received: string[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      // The next chunk is produced only after this one arrived: nothing was assembled before it was sent.
      received.push(Buffer.from(value).toString());
      release.shift()?.();
    }
    expect(received.join('')).toBe('data: 0\n\ndata: 1\n\ndata: 2\n\n');
    expect(received.length).toBeGreaterThanOrEqual(3);
  });

  it('aborts the signal and stops the body when the client goes away mid-stream', async () => {
    let signal: AbortSignal | undefined;
    let bodyClosed!: () => void;
    const closed = new Promise<void>((resolve) => (bodyClosed = resolve));
    gatewayCore = async (request) => {
      signal = request.signal;
      return {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: (async function* () {
          try {
            for (;;) {
              yield Buffer.from('data: tick\n\n');
              await new Promise((resolve) => setTimeout(resolve, 5));
            }
          } finally {
            bodyClosed();
          }
        })(),
      };
    };
    const controller = new AbortController();
    const response = await fetch(`${base}/v1/chat/completions`, { method: 'POST', body: '{}', signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await closed;
    expect(signal?.aborted).toBe(true);
  });

  it('a stream whose client left: its handler settles only after the body finished its cleanup (charge, log)', async () => {
    let cleanedUp = false;
    gatewayCore = async (request) => ({
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: (async function* () {
        try {
          yield Buffer.from('data: first\n\n');
          // A read in progress when the client leaves: it settles once the abort reaches the upstream.
          await new Promise((resolve) => request.signal!.addEventListener('abort', resolve, { once: true }));
          yield Buffer.from('data: after the abort\n\n');
        } finally {
          // Settlement is asynchronous work of its own (it queues the charge and the log).
          await new Promise((resolve) => setTimeout(resolve, 20));
          cleanedUp = true;
        }
      })(),
    });
    const before = served.length;
    const controller = new AbortController();
    const response = await fetch(`${base}/v1/chat/completions`, { method: 'POST', body: '{}', signal: controller.signal });
    await response.body!.getReader().read();
    controller.abort();
    while (served.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
    await served[served.length - 1];
    expect(cleanedUp).toBe(true);
  });

  it('tells the gateway about successful policy and workspace changes, and only about those', async () => {
    controlPlaneCore = async (request) => ({ status: request.path.endsWith('/bad') ? 400 : 200, headers: {}, body: '{}' });
    await rawRequest('/v1/policies/x', { method: 'GET' });
    await rawRequest('/v1/policies/bad', { method: 'POST', body: Buffer.from('{}') });
    await rawRequest('/v1/prompts', { method: 'POST', body: Buffer.from('{}') });
    expect(changes).toBe(0);
    await rawRequest('/v1/policies', { method: 'POST', body: Buffer.from('{}') });
    await rawRequest('/v1/workspaces/ws_1', { method: 'DELETE' });
    expect(changes).toBe(2);
  });

  it('answers a core that throws with a structured 500 and no stack', async () => {
    gatewayCore = async () => {
      throw new Error('core exploded at /secret/path.ts:12');
    };
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      const response = await rawRequest('/v1/chat/completions', { method: 'POST', body: Buffer.from('{}') });
      expect(response.status).toBe(500);
      const body = JSON.parse(response.body.toString());
      expect(body).toEqual({ error: { message: 'gw local runtime failed to serve the request', type: 'api_error', code: 'internal_error', param: null }, status: 'failure' });
      expect(response.body.toString()).not.toContain('exploded');
    } finally {
      console.error = original;
    }
    expect(errors).toHaveLength(1);
  });
});
