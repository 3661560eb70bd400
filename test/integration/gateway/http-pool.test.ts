import { lookup } from 'node:dns';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkedLookup, RefusedAddressError } from '../../../shared/gateway/checked-lookup.js';
import { BodyIdleTimeoutError, HttpPool, type PooledResponse } from '../../../shared/gateway/http-pool.js';
import { connectHangs, startUnansweredListener } from '../../support/unanswered-listener.js';

// gw's outbound pool (Node's own http agents) against real loopback servers: what the gateway relies on it for —
// connections reused, a body read out or dropped, the idle timeout, aborts at every stage, the address check.

type Route = (response: ServerResponse) => void;
const routes: Record<string, Route> = {
  '/small': (response) => response.end('ok'),
  // One chunk now, the rest later: a caller that stops reading after the first chunk leaves the rest in flight.
  '/two-parts': (response) => {
    response.write('first');
    setTimeout(() => response.end('second'), 100);
  },
  '/large': (response) => {
    response.write('x');
    setTimeout(() => response.end(Buffer.alloc(256 * 1024, 'y')), 50);
  },
  '/stall': (response) => {
    response.write('first');
  },
  '/pauses-300': (response) => {
    response.write('a');
    setTimeout(() => response.end('b'), 300);
  },
  // Never answers (the server's closeAllConnections ends it).
  '/no-answer': () => undefined,
  '/echo-headers': (response) => response.end(JSON.stringify(response.req.headers)),
};

let server: Server;
let origin: string;
/** The client port of every request the server saw, in order: one keep-alive connection keeps its port. */
const clientPorts: number[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    clientPorts.push(request.socket.remotePort!);
    request.resume();
    (routes[request.url ?? ''] ?? ((res: ServerResponse) => ((res.statusCode = 404), res.end())))(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  clientPorts.length = 0;
});

const newPool = () => new HttpPool({ maxSocketsPerOrigin: 4, idleSocketMs: 5_000, lookup });
const get = (pool: HttpPool, path: string, extra: { signal?: AbortSignal; bodyIdleTimeoutMs?: number; headers?: Record<string, string> } = {}) =>
  pool.request(`${origin}${path}`, { method: 'GET', headers: extra.headers ?? {}, signal: extra.signal ?? new AbortController().signal, bodyIdleTimeoutMs: extra.bodyIdleTimeoutMs });

async function readAll(response: PooledResponse): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of response.body) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

describe('the outbound HTTP pool', () => {
  it('reuses one keep-alive connection for sequential requests', async () => {
    const pool = newPool();
    for (let index = 0; index < 3; index++) expect(await readAll(await get(pool, '/small'))).toBe('ok');
    expect(new Set(clientPorts).size).toBe(1);
  });

  it('dump reads out the rest of a body a caller stopped reading, so the next request reuses the connection', async () => {
    const pool = newPool();
    const first = await get(pool, '/two-parts');
    const iterator = first.body[Symbol.asyncIterator]();
    expect(String((await iterator.next()).value)).toBe('first');
    await first.body.dump({ limit: 1024 });
    expect(await readAll(await get(pool, '/small'))).toBe('ok');
    expect(clientPorts).toHaveLength(2);
    expect(clientPorts[1]).toBe(clientPorts[0]);
  });

  it('dump gives up on a body longer than its limit and closes the connection instead', async () => {
    const pool = newPool();
    const large = await get(pool, '/large');
    await large.body.dump({ limit: 1024 });
    expect(large.body.destroyed).toBe(true);
    expect(await readAll(await get(pool, '/small'))).toBe('ok');
    expect(clientPorts[1]).not.toBe(clientPorts[0]);
  });

  it('a body silent for longer than the idle timeout fails with BodyIdleTimeoutError', async () => {
    const stalled = await get(newPool(), '/stall', { bodyIdleTimeoutMs: 150 });
    await expect(readAll(stalled)).rejects.toBeInstanceOf(BodyIdleTimeoutError);
  });

  it('the idle timeout is the gap between chunks, and it leaves with the request: a reused connection does not carry it', async () => {
    const pool = newPool();
    // 300 ms apart, under a 1 s idle timeout: complete.
    expect(await readAll(await get(pool, '/pauses-300', { bodyIdleTimeoutMs: 1_000 }))).toBe('ab');
    expect(await readAll(await get(pool, '/small', { bodyIdleTimeoutMs: 100 }))).toBe('ok');
    // The same connection, a request without an idle timeout: the 100 ms of the request before must not cut it.
    expect(await readAll(await get(pool, '/pauses-300'))).toBe('ab');
    expect(new Set(clientPorts).size).toBe(1);
  });

  it('an abort while waiting for headers rejects (a server that never answers)', async () => {
    const controller = new AbortController();
    const pending = get(newPool(), '/no-answer', { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('an abort while the body streams fails the body', async () => {
    const controller = new AbortController();
    const response = await get(newPool(), '/stall', { signal: controller.signal });
    const reading = readAll(response);
    controller.abort();
    await expect(reading).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('an abort before the TCP connect completes rejects, without waiting for the connect', async () => {
    const listener = await startUnansweredListener();
    try {
      expect(await connectHangs(listener.port, 300)).toBe(true);
      const controller = new AbortController();
      const pending = newPool().request(`http://127.0.0.1:${listener.port}/`, { method: 'POST', headers: {}, body: '{}', signal: controller.signal });
      setTimeout(() => controller.abort(), 100);
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      await listener.close();
    }
  });

  it('connects only to addresses its lookup allows: a refused address fails the request before anything is sent', async () => {
    const pool = new HttpPool({ maxSocketsPerOrigin: 1, idleSocketMs: 1_000, lookup: checkedLookup(() => ({ allowLoopback: false, allowPrivate: false })) });
    const port = (server.address() as { port: number }).port;
    const refused = pool.request(`http://localhost:${port}/small`, { method: 'GET', headers: {}, signal: new AbortController().signal });
    await expect(refused).rejects.toBeInstanceOf(RefusedAddressError);
    expect(clientPorts).toHaveLength(0);
  });

  it('refuses a header value that would split the request, before sending anything', async () => {
    await expect(get(newPool(), '/echo-headers', { headers: { 'x-test': 'a\r\nx-injected: 1' } })).rejects.toMatchObject({ code: 'ERR_INVALID_CHAR' });
    expect(clientPorts).toHaveLength(0);
  });

  it('sends the request body with its length, and the caller\'s headers as given', async () => {
    const response = await newPool().request(`${origin}/echo-headers`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer t' }, body: '{"a":1}', signal: new AbortController().signal });
    expect(JSON.parse(await readAll(response))).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer t', 'content-length': '7', connection: 'keep-alive' });
  });
});
