import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerView } from '../../../shared/control-plane/mcp-servers/schemas.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { sse, startMockUpstream, type MockUpstream, type RecordedRequest, type ScriptedResponse } from '../../support/mock-upstream.js';
import { api, newKey } from '../control-plane/identities-support.js';
import { createPolicy } from '../enforcement/enforcement-support.js';
import { createGuardrail, setWorkspaceDefaults } from '../guardrails/guardrails-support.js';

// The MCP gateway obeys the rules of every entry point (issue #30): tool rules also for a tools/call sent as a
// notification, content types compared case-insensitively, requests policies and allowed_request_types.
let gateway: TestGateway;
let mcp: MockUpstream;
let server: McpServerView;
let invoker: string;
/** How the mock MCP server labels its answers: a content-type in unusual (but valid) case. */
let answerStyle: 'json' | 'sse' = 'json';

type Message = { jsonrpc: string; id?: number | string; method?: string; params?: { name?: string } };

/** A raw MCP server: answers initialize, tools/list and tools/call; 202 for notifications only. */
function mcpServer(request: RecordedRequest): ScriptedResponse {
  if (request.method !== 'POST') return { status: 405 };
  const messages = ([] as Message[]).concat(request.json as Message | Message[]);
  const answers = messages
    .filter((message) => message.id !== undefined)
    .map((message) => {
      if (message.method === 'initialize') return { jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } };
      if (message.method === 'tools/list') return { jsonrpc: '2.0', id: message.id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }, { name: 'delete_everything', inputSchema: { type: 'object' } }] } };
      return { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: `ran ${message.params?.name}` }] } };
    });
  if (answers.length === 0) return { status: 202, chunks: [] };
  const payload = Array.isArray(request.json) ? answers : answers[0];
  if (answerStyle === 'sse') return { headers: { 'content-type': 'TEXT/EVENT-STREAM' }, chunks: sse(payload).slice(0, 1) };
  return { headers: { 'content-type': 'Application/JSON; charset=UTF-8' }, chunks: [JSON.stringify(payload)] };
}

interface LogPage {
  data: Array<{ endpoint: string; status: number; trace_id: string; error: { code: string | null } | null }>;
}

/** The request log records of a trace, once written (after the response, in the background). */
async function logsOf(traceId: string): Promise<LogPage['data']> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const page = await api<LogPage>(gateway, 'GET', `/v1/logs?trace_id=${traceId}`);
    if (page.status === 200 && page.body.data.length > 0) return page.body.data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the logs of ${traceId} never showed a record`);
}

async function post(body: unknown, extra: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.url}/v1/mcp/${server.slug}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-gw-api-key': invoker, ...extra },
    body: JSON.stringify(body),
  });
}

const toolCallsReceived = (name: string) =>
  mcp.requests.flatMap((request) => ([] as Array<Message | undefined>).concat(request.json as Message)).filter((message) => message?.method === 'tools/call' && message.params?.name === name).length;

beforeAll(async () => {
  mcp = await startMockUpstream(mcpServer);
  gateway = await startTestGateway();
  const created = await api<McpServerView>(gateway, 'POST', '/v1/mcp-servers', { body: { name: 'raw tools', slug: 'raw-tools', url: mcp.url, auth: { type: 'none' }, tools: { deny: ['delete_everything'] } } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  server = created.body;
  invoker = (await newKey(gateway, { scopes: ['mcp:invoke'] })).key;
});
afterAll(async () => {
  await gateway?.close();
  await mcp?.close();
});

describe('tool rules', () => {
  it('a denied tools/call sent as a notification (no id) is never forwarded, and gets no answer', async () => {
    const reply = await post({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'delete_everything', arguments: {} } });
    expect(reply.status).toBe(202);
    expect(await reply.text()).toBe('');
    expect(toolCallsReceived('delete_everything')).toBe(0);
  });

  it('in a batch, a denied notification is dropped while the rest goes through', async () => {
    const reply = await post([
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'delete_everything', arguments: {} } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: {} } },
    ]);
    expect(reply.status, await reply.clone().text()).toBe(200);
    expect(await reply.json()).toEqual([{ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'ran echo' }] } }]);
    expect(toolCallsReceived('delete_everything')).toBe(0);
    expect(toolCallsReceived('echo')).toBe(1);
  });

  it('an allowed notification is forwarded', async () => {
    const reply = await post({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', arguments: {} } });
    expect(reply.status).toBe(202);
    expect(toolCallsReceived('echo')).toBe(2);
  });
});

describe('content types, whatever their case', () => {
  it('Application/JSON; charset=UTF-8: denied tools are hidden from tools/list', async () => {
    answerStyle = 'json';
    const reply = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(reply.status).toBe(200);
    const body = (await reply.json()) as { result: { tools: Array<{ name: string }> } };
    expect(body.result.tools.map((tool) => tool.name)).toEqual(['echo']);
  });

  it('TEXT/EVENT-STREAM: relayed as a stream, denied tools hidden', async () => {
    answerStyle = 'sse';
    const reply = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(reply.status).toBe(200);
    const text = await reply.text();
    expect(text).toContain('"echo"');
    expect(text).not.toContain('delete_everything');
    answerStyle = 'json';
  });
});

describe('requests policies', () => {
  it('every request to the MCP gateway takes a slot: past the limit, 429 and nothing forwarded', async () => {
    await createPolicy(gateway, 'rate-limits', { conditions: [{ key: 'metadata.case', value: 'mcp-limit' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpd', value: 2 });
    const headers = { 'x-gw-metadata': JSON.stringify({ case: 'mcp-limit' }) };
    const before = mcp.requests.length;
    const statuses = [];
    for (let index = 0; index < 3; index++) statuses.push((await post({ jsonrpc: '2.0', id: 10 + index, method: 'tools/list' }, headers)).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(mcp.requests.length - before).toBe(2);
    const traceId = randomUUID();
    const refused = await post({ jsonrpc: '2.0', id: 20, method: 'tools/list' }, { ...headers, 'x-gw-trace-id': traceId });
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect(await refused.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' }, status: 'failure' });
    // A refusal is logged, tool calls or not.
    const [record] = await logsOf(traceId);
    expect(record).toMatchObject({ endpoint: 'mcp', status: 429, trace_id: traceId, error: { code: 'rate_limit_exceeded' } });
  });

  it('a tokens policy neither refuses nor is charged by the MCP gateway', async () => {
    await createPolicy(gateway, 'rate-limits', { conditions: [{ key: 'metadata.case', value: 'mcp-tokens' }], group_by: [{ key: 'api_key' }], type: 'tokens', unit: 'rpd', value: 1 });
    const headers = { 'x-gw-metadata': JSON.stringify({ case: 'mcp-tokens' }) };
    for (let index = 0; index < 3; index++) expect((await post({ jsonrpc: '2.0', id: 30 + index, method: 'tools/list' }, headers)).status).toBe(200);
  });
});

describe('allowed_request_types', () => {
  it('a workspace default that blocks `mcp` refuses the MCP gateway with 400, and nothing is forwarded', async () => {
    const guardrail = await createGuardrail(gateway, { name: 'no mcp', type: 'allowed_request_types', config: { mode: 'block', endpoints: ['mcp'] } });
    await setWorkspaceDefaults(gateway, gateway.bootstrap.workspaceId, [guardrail.id]);
    try {
      const before = mcp.requests.length;
      const reply = await post({ jsonrpc: '2.0', id: randomUUID(), method: 'tools/list' });
      expect(reply.status).toBe(400);
      expect(await reply.json()).toMatchObject({ error: { code: 'guardrail_request_type_blocked', type: 'guardrail_violation' }, status: 'failure' });
      expect(mcp.requests.length).toBe(before);
    } finally {
      await setWorkspaceDefaults(gateway, gateway.bootstrap.workspaceId, []);
    }
  });

  it('an allow list without `mcp` refuses it too', async () => {
    const guardrail = await createGuardrail(gateway, { name: 'chat only', type: 'allowed_request_types', config: { mode: 'allow', endpoints: ['chat/completions'] } });
    await setWorkspaceDefaults(gateway, gateway.bootstrap.workspaceId, [guardrail.id]);
    try {
      const reply = await post({ jsonrpc: '2.0', id: 99, method: 'tools/list' });
      expect(reply.status).toBe(400);
      expect(await reply.json()).toMatchObject({ error: { code: 'guardrail_request_type_not_allowed' } });
    } finally {
      await setWorkspaceDefaults(gateway, gateway.bootstrap.workspaceId, []);
    }
  });
});
