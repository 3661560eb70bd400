import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startMockUpstream, type MockUpstream, type RecordedRequest, type ScriptedResponse } from '../../support/mock-upstream.js';
import { api } from '../control-plane/identities-support.js';

/**
 * An MCP server that quotes gw's stored credential back (a JSON-RPC error object, a failed tool result, a 500
 * page, in JSON or in an SSE event) must not get it to the MCP client: the MCP gateway masks the server's
 * credential by value in everything it relays. The tokens have no recognisable shape.
 */

let gateway: TestGateway;
let mcp: MockUpstream;
type Answer = 'json-rpc error' | 'json-rpc error in an SSE event' | 'failed tool result' | 'HTTP 500 text' | 'HTTP 502 JSON';
let answer: Answer = 'json-rpc error';

function presentedToken(request: RecordedRequest): string {
  return String(request.headers.authorization ?? request.headers['x-mcp-key'] ?? '').replace(/^Bearer\s+/i, '');
}

/** Answers tools/call with the scripted kind of error, quoting the credential it was sent; initialize works. */
function mcpServer(request: RecordedRequest): ScriptedResponse {
  const message = request.json as { id?: number; method?: string };
  const quoted = `token ${presentedToken(request)} is not allowed to run this tool`;
  if (message.method === 'initialize') return { json: { jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '1' } } } };
  if (message.method === 'tools/list') return { json: { jsonrpc: '2.0', id: message.id, result: { tools: [{ name: 'run', inputSchema: { type: 'object' } }] } } };
  if (message.id === undefined) return { status: 202, chunks: [] };
  const error = { jsonrpc: '2.0', id: message.id, error: { code: -32001, message: quoted, data: { presented: presentedToken(request) } } };
  switch (answer) {
    case 'json-rpc error':
      return { json: error };
    case 'json-rpc error in an SSE event':
      return { headers: { 'content-type': 'text/event-stream' }, chunks: [`event: message\ndata: ${JSON.stringify(error)}\n\n`] };
    case 'failed tool result':
      return { json: { jsonrpc: '2.0', id: message.id, result: { isError: true, content: [{ type: 'text', text: quoted }] } } };
    case 'HTTP 500 text':
      return { status: 500, headers: { 'content-type': 'text/plain' }, chunks: [quoted] };
    case 'HTTP 502 JSON':
      return { status: 502, json: { error: { message: quoted } } };
  }
}

beforeAll(async () => {
  mcp = await startMockUpstream(mcpServer);
  gateway = await startTestGateway({ GW_VIRTUAL_KEY_CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  await gateway?.close();
  await mcp?.close();
});

async function registered(auth: Record<string, unknown>): Promise<string> {
  const created = await api<{ id: string }>(gateway, 'POST', '/v1/mcp-servers', { body: { name: `echo ${randomUUID().slice(0, 6)}`, url: `${mcp.url}/mcp`, auth } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

const answers: Answer[] = ['json-rpc error', 'json-rpc error in an SSE event', 'failed tool result', 'HTTP 500 text', 'HTTP 502 JSON'];
const auths: Array<{ kind: string; auth: (token: string) => Record<string, unknown> }> = [
  { kind: 'bearer token', auth: (token) => ({ type: 'bearer', token }) },
  { kind: 'header credential', auth: (token) => ({ type: 'header', name: 'x-mcp-key', value: token }) },
];

describe('the MCP gateway relays no stored server credential', () => {
  for (const { kind, auth } of auths) {
    for (const kindOfAnswer of answers) {
      it(`(${kind}) in a ${kindOfAnswer}`, async () => {
        answer = kindOfAnswer;
        // A quote in it, so the masking must also find it where JSON escapes it.
        const token = `mcp-"${randomUUID().replaceAll('-', '')}`;
        const id = await registered(auth(token));
        const reply = await fetch(`${gateway.url}/v1/mcp/${id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-gw-api-key': gateway.apiKey },
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'run', arguments: {} } }),
        });
        const text = await reply.text();
        // The server did quote it (otherwise this test proves nothing), and its answer reached the client.
        expect(presentedToken(mcp.requests.at(-1)!)).toBe(token);
        expect(text).toContain('[REDACTED] is not allowed to run this tool');
        expect(text).not.toContain(token);
        expect(text).not.toContain(JSON.stringify(token).slice(1, -1));
      });
    }
  }
});
