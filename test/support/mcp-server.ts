import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

export interface TestMcpServer {
  url: string;
  /** Headers of every HTTP request the server received, in order (lower-cased names). */
  received: Array<{ method: string; headers: IncomingMessage['headers'] }>;
  /** Names of the tools that were actually run. */
  calls: string[];
  close(): Promise<void>;
}

export interface TestMcpServerOptions {
  /** The bearer token the `whoami` tool (and, with `requireAuth`, every request) requires. */
  token: string;
  /** Answer every request without `Authorization: Bearer <token>` with 401. */
  requireAuth?: boolean;
  /** Answer POSTs with plain JSON instead of an SSE stream. */
  jsonResponses?: boolean;
}

/**
 * A small real MCP server (the official SDK 1.x, Streamable HTTP, stateful sessions) on a loopback port, with
 * four tools: `echo`, `add`, `delete_everything` (for deny lists) and `whoami`, which needs the bearer token.
 */
export async function startTestMcpServer(options: TestMcpServerOptions): Promise<TestMcpServer> {
  const received: TestMcpServer['received'] = [];
  const calls: string[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const server = new McpServer({ name: 'test-tools', version: '1.2.3', title: 'Test Tools' }, { instructions: 'Tools for gw tests' });
    server.registerTool('echo', { title: 'Echo', description: 'Echoes its text', inputSchema: { text: z.string() } }, ({ text }) => {
      calls.push('echo');
      return { content: [{ type: 'text', text }] };
    });
    server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => {
      calls.push('add');
      return { content: [{ type: 'text', text: String(a + b) }] };
    });
    server.registerTool('delete_everything', { description: 'Must never be reachable through gw' }, () => {
      calls.push('delete_everything');
      return { content: [{ type: 'text', text: 'deleted' }] };
    });
    server.registerTool('whoami', { description: 'Needs the bearer token' }, (extra) => {
      calls.push('whoami');
      const authorization = extra.requestInfo?.headers.authorization;
      if (authorization !== `Bearer ${options.token}`) return { isError: true, content: [{ type: 'text' as const, text: 'unauthorized' }] };
      return { content: [{ type: 'text' as const, text: 'authorized' }] };
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: options.jsonResponses ?? false,
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  };

  const http: Server = createServer((request, response) => {
    void (async () => {
      received.push({ method: request.method ?? '', headers: request.headers });
      if (options.requireAuth && request.headers.authorization !== `Bearer ${options.token}`) {
        response.writeHead(401, { 'www-authenticate': 'Bearer realm="test"' }).end();
        return;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      const body: unknown = text ? JSON.parse(text) : undefined;
      const sessionId = request.headers['mcp-session-id'];
      const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      const transport = existing ?? (sessionId === undefined ? await newSession() : undefined);
      if (!transport) {
        response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
        return;
      }
      await transport.handleRequest(request, response, body);
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    received,
    calls,
    close: async () => {
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
