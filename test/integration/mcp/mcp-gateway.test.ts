import { randomUUID } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerView } from '../../../shared/control-plane/mcp-servers/schemas.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startTestMcpServer, type TestMcpServer } from '../../support/mcp-server.js';
import { api, expectError, newKey, newWorkspace } from '../control-plane/identities-support.js';

const TOKEN = 'mcp-gateway-upstream-token-7d2e91';

let gateway: TestGateway;
let streaming: TestMcpServer;
let json: TestMcpServer;
let server: McpServerView;
let invoker: string;
let noInvoke: string;
let otherWorkspaceInvoker: string;
const clients: Client[] = [];

/** The official MCP client, pointed at gw's MCP gateway. */
async function connect(path: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'gw-test-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ type: string; text?: string }>).map((part) => part.text).join('');

/** One raw JSON-RPC POST to the gateway (for what the SDK client would not send, or to read gw's own answer). */
async function rawPost(path: string, key: string, body: unknown, extra: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-gw-api-key': key, ...extra },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

beforeAll(async () => {
  streaming = await startTestMcpServer({ token: TOKEN, requireAuth: true });
  json = await startTestMcpServer({ token: TOKEN, jsonResponses: true });
  gateway = await startTestGateway();
  const created = await api<McpServerView>(gateway, 'POST', '/v1/mcp-servers', {
    body: { name: 'tools', url: streaming.url, auth: { type: 'bearer', token: TOKEN }, tools: { deny: ['delete_everything'] } },
  });
  expect(created.status).toBe(201);
  server = created.body;
  const jsonServer = await api(gateway, 'POST', '/v1/mcp-servers', {
    body: { name: 'json tools', slug: 'json-tools', url: json.url, auth: { type: 'header', name: 'authorization', value: `Bearer ${TOKEN}` }, tools: { allow: ['echo', 'whoami'] } },
  });
  expect(jsonServer.status).toBe(201);
  invoker = (await newKey(gateway, { scopes: ['mcp:invoke'] })).key;
  noInvoke = (await newKey(gateway, { scopes: ['mcp_servers:read', 'completions:write'] })).key;
  const other = await newWorkspace(gateway);
  otherWorkspaceInvoker = (await newKey(gateway, { workspace_id: other.id, scopes: ['mcp:invoke'] })).key;
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
});
afterAll(async () => {
  await gateway?.close();
  await streaming?.close();
  await json?.close();
});

describe('the MCP gateway with the official MCP client (SSE responses)', () => {
  it('initializes through gw and sees the server as it is', async () => {
    const client = await connect(`/v1/mcp/${server.slug}`, { 'x-gw-api-key': invoker });
    expect(client.getServerVersion()).toMatchObject({ name: 'test-tools', version: '1.2.3' });
    expect(client.getInstructions()).toBe('Tools for gw tests');
  });

  it('hides denied tools from tools/list', async () => {
    const client = await connect(`/v1/mcp/${server.id}`, { 'x-gw-api-key': invoker });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['add', 'echo', 'whoami']);
  });

  it('calls allowed tools, with the stored credential injected upstream and never the gw key', async () => {
    const client = await connect(`/v1/mcp/${server.slug}`, { 'x-gw-api-key': invoker });
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'hello through gw' } }))).toBe('hello through gw');
    expect(text(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    const whoami = await client.callTool({ name: 'whoami', arguments: {} });
    expect(whoami.isError).toBeFalsy();
    expect(text(whoami)).toBe('authorized');
    const forwarded = streaming.received.filter((request) => request.method === 'POST');
    expect(forwarded.length).toBeGreaterThan(0);
    for (const request of forwarded) {
      expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(request.headers['x-gw-api-key']).toBeUndefined();
    }
  });

  it('answers a denied tools/call with a JSON-RPC error and never forwards it', async () => {
    const client = await connect(`/v1/mcp/${server.slug}`, { 'x-gw-api-key': invoker });
    const before = streaming.calls.length;
    const error = await client.callTool({ name: 'delete_everything', arguments: {} }).then(
      () => undefined,
      (thrown: unknown) => thrown as { code?: number; message?: string },
    );
    expect(error?.code).toBe(-32602);
    expect(error?.message).toContain('delete_everything');
    expect(streaming.calls.slice(before)).not.toContain('delete_everything');
    expect(streaming.calls).not.toContain('delete_everything');
  });

  it('accepts the gw key as Authorization: Bearer, for MCP clients that can only set that', async () => {
    const client = await connect(`/v1/mcp/${server.slug}`, { authorization: `Bearer ${invoker}` });
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'bearer' } }))).toBe('bearer');
    // The client's Authorization (gw's key) is replaced upstream by the server's own credential.
    expect(streaming.received.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('relays the server event stream (GET) and ends the session (DELETE)', async () => {
    const init = await rawPost(`/v1/mcp/${server.slug}`, invoker, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    expect(init.status).toBe(200);
    const session = init.headers.get('mcp-session-id');
    expect(session).toEqual(expect.any(String));
    await init.text();
    const headers = { 'x-gw-api-key': invoker, 'mcp-session-id': session!, 'mcp-protocol-version': '2025-06-18' };
    const controller = new AbortController();
    const stream = await fetch(`${gateway.url}/v1/mcp/${server.slug}`, { headers: { ...headers, accept: 'text/event-stream' }, signal: controller.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    controller.abort();
    const ended = await fetch(`${gateway.url}/v1/mcp/${server.slug}`, { method: 'DELETE', headers });
    expect(ended.status).toBe(200);
    const afterEnd = await rawPost(`/v1/mcp/${server.slug}`, invoker, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': session!, 'mcp-protocol-version': '2025-06-18' });
    expect(afterEnd.status).toBe(404);
  });
});

describe('tool calls in the trace', () => {
  interface TraceSpan {
    name: string;
    kind: string;
    status: string;
    attributes: Record<string, unknown>;
    error?: { code?: string };
  }

  /** The request log is written after the response (in the background): read the trace until it is there. */
  async function spansOfTrace(traceId: string, expected: number): Promise<TraceSpan[]> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const reply = await api<{ spans: TraceSpan[] }>(gateway, 'GET', `/v1/traces/${traceId}`);
      const spans = reply.status === 200 ? reply.body.spans.filter((span) => span.kind === 'tool') : [];
      if (spans.length >= expected) return spans;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`trace ${traceId} never showed ${expected} tool spans`);
  }

  it('records each tools/call as a tool span: allowed ones ok, denied ones failed', async () => {
    const traceId = randomUUID();
    const client = await connect(`/v1/mcp/${server.slug}`, { 'x-gw-api-key': invoker, 'x-gw-trace-id': traceId });
    await client.callTool({ name: 'echo', arguments: { text: 'traced' } });
    await client.callTool({ name: 'delete_everything', arguments: {} }).catch(() => undefined);
    const spans = await spansOfTrace(traceId, 2);
    const byTool = Object.fromEntries(spans.map((span) => [span.attributes['mcp.tool.name'], span]));
    expect(byTool.echo).toMatchObject({ name: 'mcp.tools/call', status: 'ok', attributes: { 'mcp.server.id': server.id, 'mcp.tool.allowed': true, 'mcp.tool.is_error': false } });
    expect(byTool.delete_everything).toMatchObject({ name: 'mcp.tools/call', status: 'error', attributes: { 'mcp.tool.allowed': false }, error: { code: 'tool_denied' } });
  });
});

describe('JSON responses and batches', () => {
  it('filters tools/list in a JSON answer by the allow list', async () => {
    const client = await connect('/v1/mcp/json-tools', { 'x-gw-api-key': invoker });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['echo', 'whoami']);
    expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toBe('authorized');
  });

  it('answers a denied call itself without the server, and a bad body with a JSON-RPC parse error', async () => {
    const denied = await rawPost('/v1/mcp/json-tools', invoker, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 } } });
    expect(denied.status).toBe(200);
    expect(await denied.json()).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: expect.stringContaining("'add'"), data: { reason: 'tool_denied' } } });
    const bad = await rawPost('/v1/mcp/json-tools', invoker, '{"jsonrpc":');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('refuses bodies that are JSON but no JSON-RPC 2.0 message or batch (null, scalars, empty or scalar batches, no or another jsonrpc, no method) at gw: the server never sees them', async () => {
    const before = json.received.length;
    const messages = [
      'null', '1', '"tools/list"', 'true', '[]', '[null]', '[1,{"jsonrpc":"2.0","id":1,"method":"tools/list"}]',
      '{}', '{"id":1,"method":"tools/list"}', '{"jsonrpc":"1.0","id":1,"method":"tools/list"}', '{"jsonrpc":"2.0","id":1}', '{"jsonrpc":"2.0","id":1,"method":5}',
      '[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"id":2,"method":"tools/list"}]',
    ];
    for (const body of messages) {
      const reply = await rawPost('/v1/mcp/json-tools', invoker, body);
      expect({ body, status: reply.status }).toEqual({ body, status: 400 });
      expect(await reply.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }
    expect(json.received.length).toBe(before);
  });
});

describe('who may use the gateway', () => {
  it('needs a valid gw key (401) with the mcp:invoke scope (403)', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const anonymous = await fetch(`${gateway.url}/v1/mcp/${server.slug}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(anonymous.status).toBe(401);
    expectError({ status: 403, body: await (await rawPost(`/v1/mcp/${server.slug}`, noInvoke, body)).json(), headers: new Headers() }, 403, 'missing_scope');
    const wrong = await rawPost(`/v1/mcp/${server.slug}`, 'gwk_not_a_key', body);
    expect(wrong.status).toBe(401);
  });

  it('hides a server of another workspace behind a 404, by id and by slug', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    for (const name of [server.id, server.slug]) {
      const reply = await rawPost(`/v1/mcp/${name}`, otherWorkspaceInvoker, body);
      expect(reply.status).toBe(404);
      expect(await reply.json()).toMatchObject({ error: { code: 'not_found' }, status: 'failure' });
    }
    await expect(connect(`/v1/mcp/${server.slug}`, { 'x-gw-api-key': otherWorkspaceInvoker })).rejects.toThrow();
  });

  it('says so when the server refuses the stored credential (502, not the caller’s 401)', async () => {
    const broken = await api<McpServerView>(gateway, 'POST', '/v1/mcp-servers', { body: { name: 'broken', url: streaming.url, auth: { type: 'bearer', token: 'stale' } } });
    expect(broken.body.sync_status).toBe('failed');
    const reply = await rawPost('/v1/mcp/broken', invoker, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(reply.status).toBe(502);
    expect(await reply.json()).toMatchObject({ error: { code: 'mcp_server_auth_failed' } });
  });
});
