import { createServer, request as httpRequest, type ClientRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../../../infra/local/server.js';
import { pacedWriter, stalled, type PacedStream } from '../../support/paced-upstream.js';
import { rowsOfStoppedLogFile } from '../../support/request-logs.js';
import { readSseEvents } from '../../support/sse-client.js';

/**
 * Issue #42 on the MCP gateway's server event stream (GET /v1/mcp/{server}, SSE): a client that reads nothing must
 * stop the MCP server too (gw reads the next event only once the client took the last one), and a stream still open
 * at the drain timeout of a graceful close is cut once, ends with an explicit error event and is logged as
 * `cut_at_shutdown` (before, such a stream with no tool call in it had no record at all).
 */
const KEY = 'gwk_mcp_stream_faults_key_0123456789';
const STREAM_BYTES = 64 * 1024 * 1024;
const AT_MOST_AHEAD = 24 * 1024 * 1024;
const dataDir = mkdtempSync(join(tmpdir(), 'gw-mcp-faults-'));
const streams: PacedStream[] = [];
let mcp: Server;
let mcpUrl: string;
let gw: LocalServer;
let closed = false;

const notification = (text: string) => `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: text } })}\n\n`;

/**
 * An MCP server's event stream: `/fast` writes as fast as its reader takes it (waiting for 'drain', as a real
 * server does) and counts what it wrote; `/slow` sends one notification every 100 ms until the reader goes away.
 * POSTs (gw's sync handshake) get a 404: the server stays registered, unsynced.
 */
function startMcpEventServer(): Promise<Server> {
  const server = createServer((request, response) => {
    void (async () => {
      for await (const _ of request) void _;
      if (request.method !== 'GET') {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (request.url?.startsWith('/slow')) {
        const timer = setInterval(() => response.write(notification('tick')), 100);
        response.on('close', () => clearInterval(timer));
        return;
      }
      const stream: PacedStream = { path: request.url ?? '/', written: 0, blocked: false, done: false };
      streams.push(stream);
      const event = notification('x'.repeat(400));
      const write = pacedWriter(response, stream);
      while (stream.written < STREAM_BYTES && !response.destroyed) await write(event);
      if (!response.destroyed) {
        stream.done = true;
        response.end();
      }
    })().catch(() => response.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  mcp = await startMcpEventServer();
  mcpUrl = `http://127.0.0.1:${(mcp.address() as AddressInfo).port}`;
  gw = await startLocalServer({ port: 0, dataDir, bootstrapApiKey: KEY, env: { POWERTOOLS_LOG_LEVEL: 'SILENT', GW_LOCAL_STORE: 'in-process', GW_SHUTDOWN_DRAIN_TIMEOUT_MS: '1500' } });
  for (const [name, path] of [
    ['fast', '/fast'],
    ['slow', '/slow'],
  ]) {
    const created = await fetch(`${gw.url}/v1/mcp-servers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': KEY },
      body: JSON.stringify({ name, slug: name, url: `${mcpUrl}${path}` }),
    });
    expect(created.status, await created.text()).toBe(201);
  }
}, 60_000);
afterAll(async () => {
  if (!closed) await gw?.close();
  mcp?.closeAllConnections();
  await new Promise((resolve) => mcp?.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

/** Opens the server event stream and resolves once the headers arrived; the body is left unread. */
function openUnread(slug: string): Promise<{ call: ClientRequest; response: IncomingMessage }> {
  const url = new URL(`/v1/mcp/${slug}`, gw.url);
  return new Promise((resolve, reject) => {
    const call = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'GET', headers: { accept: 'text/event-stream', 'x-gw-api-key': KEY } }, (response) => {
      response.pause();
      resolve({ call, response });
    });
    call.on('error', reject);
    call.end();
  });
}

describe('the MCP server event stream under faults', () => {
  it('a client that reads nothing stops the MCP server: gw keeps no more than its bounded buffer (an MCP stream buffered in memory for a slow reader)', async () => {
    const before = streams.length;
    const { call, response } = await openUnread('fast');
    try {
      expect(response.statusCode).toBe(200);
      while (streams.length === before) await new Promise((resolve) => setTimeout(resolve, 20));
      const stream = streams[before];
      const written = await stalled(stream);
      expect(stream.done).toBe(false);
      expect(written).toBeLessThan(AT_MOST_AHEAD);
      console.log(`MCP event stream: the server wrote ${(written / 2 ** 20).toFixed(1)} MiB before the unread client stopped it`);
    } finally {
      call.destroy();
    }
  }, 120_000);

  it('a stream open at the drain timeout ends with an error event and is logged once as cut_at_shutdown (an MCP stream cut at shutdown vanished from the logs)', async () => {
    const response = await fetch(`${gw.url}/v1/mcp/slow`, { headers: { accept: 'text/event-stream', 'x-gw-api-key': KEY, 'x-gw-trace-id': 'mcp-cut-0' } });
    expect(response.status).toBe(200);
    const events = readSseEvents(response);
    closed = true;
    const report = await gw.close();
    expect(report.cutRequests).toBe(1);
    const received = await events;
    const last = received.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({ error: { code: 'cut_at_shutdown', type: 'api_error' } });

    const rows = await rowsOfStoppedLogFile(join(dataDir, 'logs.duckdb'), "SELECT endpoint, error_code FROM requests WHERE trace_id = 'mcp-cut-0'");
    expect(rows).toEqual([{ endpoint: 'mcp', error_code: 'cut_at_shutdown' }]);
  }, 120_000);
});
