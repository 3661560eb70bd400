import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { WorkspaceRepository } from '../../../shared/store/workspace-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startMockUpstream, type MockUpstream, type RecordedRequest, type ScriptedResponse } from '../../support/mock-upstream.js';
import { api, newKey } from '../control-plane/identities-support.js';
import { createPolicy, storeBudget } from './enforcement-support.js';

// Issue #41, "every entry point": an MCP `tools/call` has no token price, so it is metered by requests
// (docs/enforcement.md, "Every entry point"): each HTTP request to the MCP gateway takes a slot of a matching
// `requests` policy, while an exhausted workspace budget and an exhausted tokens limit neither refuse nor are charged.
let gateway: TestGateway;
let mcp: MockUpstream;
let slug: string;
let invoker: string;

type Message = { jsonrpc: string; id?: number | string; method?: string; params?: { name?: string } };

/** A raw MCP server answering initialize and tools/call. */
function mcpServer(request: RecordedRequest): ScriptedResponse {
  const message = request.json as Message;
  if (message.id === undefined) return { status: 202, chunks: [] };
  if (message.method === 'initialize') return { json: { jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } } };
  return { json: { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: `ran ${message.params?.name}` }] } } };
}

beforeAll(async () => {
  mcp = await startMockUpstream(mcpServer);
  gateway = await startTestGateway({ GW_POLICY_CACHE_TTL_MS: '100' });
  const created = await api<{ slug: string }>(gateway, 'POST', '/v1/mcp-servers', { body: { name: 'metered tools', slug: 'metered-tools', url: mcp.url, auth: { type: 'none' } } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  slug = created.body.slug;
  invoker = (await newKey(gateway, { scopes: ['mcp:invoke'] })).key;
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await mcp?.close();
});

async function toolCall(id: number, metadata: Record<string, string>): Promise<number> {
  const response = await fetch(`${gateway.url}/v1/mcp/${slug}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-gw-api-key': invoker, 'x-gw-metadata': JSON.stringify(metadata) },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {} } }),
  });
  await response.text();
  return response.status;
}

describe('MCP tools/call is metered by requests (an entry point without a token price)', () => {
  it('takes a request slot per call, and is neither refused nor charged by an exhausted budget or tokens limit', async () => {
    const workspaceId = gateway.bootstrap.workspaceId;
    await storeBudget(workspaceId, { creditLimit: 1, usage: 1, status: 'exhausted' });
    await createPolicy(gateway, 'rate-limits', { name: 'mcp tokens', conditions: [{ key: 'metadata.case', value: 'mcp-metered' }], group_by: [{ key: 'api_key' }], type: 'tokens', unit: 'rpd', value: 1 });
    await createPolicy(gateway, 'usage-limits', {
      name: 'mcp cost',
      conditions: [{ key: 'metadata.case', value: 'mcp-metered' }],
      group_by: [{ key: 'api_key' }],
      type: 'requests',
      unit: 'rpd',
      value: 3,
      credit_limit: { type: 'cost', value: 0.000001 },
    });
    const statuses: number[] = [];
    for (let id = 1; id <= 4; id++) statuses.push(await toolCall(id, { case: 'mcp-metered' }));
    // Three slots of the usage limit's requests count; the fourth call is refused by it, not by any money limit.
    expect(statuses).toEqual([200, 200, 200, 429]);
    await drainAllBackgroundWork();
    expect((await new WorkspaceRepository().getWorkspace(workspaceId))?.budget_current_usage).toBe(1);
  });
});
