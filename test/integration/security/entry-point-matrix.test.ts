import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startTestMcpServer, type TestMcpServer } from '../../support/mcp-server.js';
import { startMockUpstream, type MockUpstream, type RecordedRequest, type ScriptedResponse } from '../../support/mock-upstream.js';
import { api, newKey } from '../control-plane/identities-support.js';

/**
 * The attempt matrix of docs/security.md ("Entry points"): every gateway entry point, driven by a workspace key
 * that holds `completions:write` and nothing else (plus the one scope an entry point needs of its own), checked
 * for each rule that applies to it: authentication, scopes, the control plane out of reach, requests policies,
 * guardrails, the stored-credential host rule, address checks, logging and the workspace budget.
 */

type Json = Record<string, unknown>;

/** One mock provider answering every API gw forwards to, by path, like OpenAI and Anthropic would. */
function providerAnswer(request: RecordedRequest): ScriptedResponse {
  const body = (request.json ?? {}) as Json;
  const model = String(body.model ?? 'mock-model');
  const path = request.path;
  if (path.endsWith('/chat/completions')) {
    return { json: { id: 'chatcmpl-1', object: 'chat.completion', created: 1_700_000_000, model, choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } } };
  }
  if (path.endsWith('/completions')) {
    return { json: { id: 'cmpl-1', object: 'text_completion', created: 1_700_000_000, model, choices: [{ index: 0, text: 'ok', logprobs: null, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } } };
  }
  if (path.endsWith('/embeddings')) {
    return { json: { object: 'list', model, data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2, 0.3] }], usage: { prompt_tokens: 2, total_tokens: 2 } } };
  }
  if (path.endsWith('/responses')) {
    return {
      json: {
        id: `resp_${randomUUID().replaceAll('-', '')}`, object: 'response', created_at: 1_700_000_000, status: 'completed', model,
        output: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'ok', annotations: [] }] }],
        usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
      },
    };
  }
  if (path.endsWith('/messages/count_tokens')) return { json: { input_tokens: 9 } };
  if (path.endsWith('/messages')) {
    return { json: { id: 'msg_1', type: 'message', role: 'assistant', model, content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 5, output_tokens: 2 } } };
  }
  if (path.endsWith('/moderations')) {
    return { json: { id: 'modr-1', model: 'omni-moderation-latest', results: [{ flagged: false, categories: {}, category_scores: {} }] } };
  }
  return { status: 404, json: { error: { message: `mock has no ${path}`, type: 'invalid_request_error' } } };
}

interface EntryPoint {
  name: string;
  path: () => string;
  body: Json;
  provider: 'openai' | 'anthropic';
  /** Scopes this entry point needs besides completions:write. */
  extraScopes: string[];
  /** The name allowed_request_types lists it under. */
  requestType: string;
  /** The `endpoint` its log record carries. */
  upstreamSuffix: string;
}

let promptId = '';
const MESSAGES_BODY = { model: 'claude-sonnet-4-5', max_tokens: 32, messages: [{ role: 'user', content: 'Hi' }] };
const ENTRY_POINTS: EntryPoint[] = [
  { name: 'chat', path: () => '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }, provider: 'openai', extraScopes: [], requestType: 'chat/completions', upstreamSuffix: '/chat/completions' },
  { name: 'completions', path: () => '/v1/completions', body: { model: 'gpt-3.5-turbo-instruct', prompt: 'Hi' }, provider: 'openai', extraScopes: [], requestType: 'completions', upstreamSuffix: '/completions' },
  { name: 'embeddings', path: () => '/v1/embeddings', body: { model: 'text-embedding-3-small', input: 'Hi' }, provider: 'openai', extraScopes: [], requestType: 'embeddings', upstreamSuffix: '/embeddings' },
  { name: 'responses', path: () => '/v1/responses', body: { model: 'gpt-4o-mini', input: 'Hi' }, provider: 'openai', extraScopes: [], requestType: 'responses', upstreamSuffix: '/responses' },
  { name: 'messages', path: () => '/v1/messages', body: MESSAGES_BODY, provider: 'anthropic', extraScopes: [], requestType: 'messages', upstreamSuffix: '/messages' },
  { name: 'count_tokens', path: () => '/v1/messages/count_tokens', body: { model: MESSAGES_BODY.model, messages: MESSAGES_BODY.messages }, provider: 'anthropic', extraScopes: [], requestType: 'messages/count_tokens', upstreamSuffix: '/messages/count_tokens' },
  { name: 'pass-through (moderations)', path: () => '/v1/moderations', body: { input: 'Hi' }, provider: 'openai', extraScopes: [], requestType: 'moderations', upstreamSuffix: '/moderations' },
  { name: 'prompt completions', path: () => `/v1/prompts/${promptId}/completions`, body: { variables: { who: 'gw' } }, provider: 'openai', extraScopes: ['prompts:render'], requestType: 'chat/completions', upstreamSuffix: '/chat/completions' },
];

let gateway: TestGateway;
let upstream: MockUpstream;
/** A second loopback server: a host the caller names; it must never receive a stored credential. */
let elsewhere: MockUpstream;
let mcp: TestMcpServer;
let mcpSlug = '';
let workspaceId = '';
let virtualKeyId = '';
const STORED_CREDENTIAL = `stored-${randomUUID()}`;
const CALLER_CREDENTIAL = `caller-${randomUUID()}`;

beforeAll(async () => {
  upstream = await startMockUpstream(providerAnswer);
  elsewhere = await startMockUpstream(providerAnswer);
  mcp = await startTestMcpServer({ token: 'mcp-token' });
  // Every cache of settings read on the hot path is off, so each test's guardrail or policy applies at once.
  gateway = await startTestGateway({ GW_CONFIG_CACHE_TTL_MS: '0', GW_POLICY_CACHE_TTL_MS: '0', GW_AUTH_CACHE_TTL_MS: '0', GW_VIRTUAL_KEY_CACHE_TTL_MS: '0' });
  workspaceId = (await newKey(gateway, { scopes: ['completions:write'] })).workspace_id;
  const prompt = await api<{ id: string }>(gateway, 'POST', '/v1/prompts', { body: { name: 'matrix', messages: [{ role: 'user', content: 'Say hi to {{who}}' }], model: 'gpt-4o-mini' } });
  expect(prompt.status, JSON.stringify(prompt.body)).toBe(201);
  promptId = prompt.body.id;
  const virtualKey = await api<{ id: string }>(gateway, 'POST', '/v1/virtual-keys', { body: { name: 'matrix', provider: 'openai', credential: STORED_CREDENTIAL, custom_host: upstream.url } });
  expect(virtualKey.status, JSON.stringify(virtualKey.body)).toBe(201);
  virtualKeyId = virtualKey.body.id;
  const server = await api<{ slug: string }>(gateway, 'POST', '/v1/mcp-servers', { body: { name: 'matrix tools', url: mcp.url, auth: { type: 'bearer', token: 'mcp-token' } } });
  expect(server.status, JSON.stringify(server.body)).toBe(201);
  mcpSlug = server.body.slug;
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([upstream?.close(), elsewhere?.close(), mcp?.close()]);
});

/** A fresh workspace key with completions:write and the entry point's own scopes, nothing else. */
async function completionsKey(extraScopes: string[] = []): Promise<{ key: string; id: string }> {
  const created = await newKey(gateway, { scopes: ['completions:write', ...extraScopes] });
  return { key: created.key, id: created.id };
}

/** Sends the entry point's request to the mock provider with the caller's own credential. */
function callerTarget(entry: EntryPoint, host = upstream.url): Record<string, string> {
  return { 'x-gw-provider': entry.provider, 'x-gw-custom-host': host, authorization: `Bearer ${CALLER_CREDENTIAL}` };
}

async function send(entry: EntryPoint, key: string | null, headers: Record<string, string>): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${gateway.url}${entry.path()}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === null ? {} : { 'x-gw-api-key': key }), ...headers },
    body: JSON.stringify(entry.body),
  });
  const text = await response.text();
  return { status: response.status, body: text.startsWith('{') ? (JSON.parse(text) as Json) : { text } };
}

const errorOf = (body: Json) => (body.error ?? {}) as { code?: string; type?: string; message?: string };

async function setDefaultGuardrails(ids: string[]): Promise<void> {
  const updated = await api(gateway, 'PATCH', `/v1/workspaces/${workspaceId}`, { body: { default_guardrails: ids } });
  expect(updated.status, JSON.stringify(updated.body)).toBe(200);
}

describe.each(ENTRY_POINTS)('$name with a completions-only key', (entry) => {
  it('is refused without a key (401) and, without its own extra scope, with 403', async () => {
    const anonymous = await send(entry, null, callerTarget(entry));
    expect(anonymous.status).toBe(401);
    if (entry.extraScopes.length > 0) {
      const { key } = await completionsKey();
      const refused = await send(entry, key, callerTarget(entry));
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
      expect(errorOf(refused.body).code).toBe('missing_scope');
    }
  });

  it('answers with the caller credential and records a log record', async () => {
    const { key } = await completionsKey(entry.extraScopes);
    const traceId = `matrix-${randomUUID()}`;
    const before = upstream.requests.length;
    const answered = await send(entry, key, { ...callerTarget(entry), 'x-gw-trace-id': traceId });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    const forwarded = upstream.requests.slice(before);
    expect(forwarded.map((request) => request.path.endsWith(entry.upstreamSuffix))).toEqual([true]);
    await drainAllBackgroundWork();
    const logs = await api<{ data: Array<{ trace_id: string; status: number }> }>(gateway, 'GET', `/v1/logs?trace_id=${traceId}`);
    expect(logs.status, JSON.stringify(logs.body)).toBe(200);
    expect(logs.body.data.map((record) => record.status)).toEqual([200]);
  });

  it('cannot reach the control plane', async () => {
    const { key } = await completionsKey(entry.extraScopes);
    for (const [method, path] of [['GET', '/v1/configs'], ['GET', '/v1/logs'], ['POST', '/v1/virtual-keys'], ['GET', `/v1/virtual-keys/${virtualKeyId}`]] as const) {
      const reply = await api(gateway, method, path, { key, body: method === 'POST' ? { provider: 'openai', credential: 'x' } : undefined });
      expect(reply.status, `${method} ${path}`).toBe(403);
    }
  });

  it('obeys a requests policy on its key (the second request in the minute is 429)', async () => {
    const { key, id } = await completionsKey(entry.extraScopes);
    const policy = await api(gateway, 'POST', '/v1/policies/rate-limits', { body: { conditions: [{ key: 'api_key', value: id }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 1 } });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    expect((await send(entry, key, callerTarget(entry))).status).toBe(200);
    const limited = await send(entry, key, callerTarget(entry));
    expect(limited.status, JSON.stringify(limited.body)).toBe(429);
  });

  it('obeys the workspace guardrails (allowed_request_types blocking this entry point)', async () => {
    const { key } = await completionsKey(entry.extraScopes);
    const guardrail = await api<{ id: string }>(gateway, 'POST', '/v1/guardrails', { body: { name: `no ${entry.name}`, type: 'allowed_request_types', config: { mode: 'block', endpoints: [entry.requestType] } } });
    expect(guardrail.status, JSON.stringify(guardrail.body)).toBe(201);
    await setDefaultGuardrails([guardrail.body.id]);
    try {
      const before = upstream.requests.length;
      const denied = await send(entry, key, callerTarget(entry));
      expect(denied.status, JSON.stringify(denied.body)).toBe(400);
      // The OpenAI shape types it guardrail_violation; the Anthropic shape keeps Anthropic's types and names the guardrail.
      expect(errorOf(denied.body).type === 'guardrail_violation' || errorOf(denied.body).message?.includes(guardrail.body.id)).toBe(true);
      expect(upstream.requests.length).toBe(before);
    } finally {
      await setDefaultGuardrails([]);
    }
  });

  it('never sends a stored credential to a host the caller names (400), and nothing reaches that host', async () => {
    const { key } = await completionsKey(entry.extraScopes);
    if (entry.provider !== 'openai') return; // the virtual key is an OpenAI one; Anthropic entry points take it below
    const before = elsewhere.requests.length;
    const refused = await send(entry, key, { 'x-gw-virtual-key': virtualKeyId, 'x-gw-custom-host': elsewhere.url });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(JSON.stringify(refused.body)).not.toContain(STORED_CREDENTIAL);
    expect(elsewhere.requests.length).toBe(before);
    const stored = await send(entry, key, { 'x-gw-virtual-key': virtualKeyId });
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    expect(upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${STORED_CREDENTIAL}`);
  });

  it('refuses a cloud metadata address as custom host (400) before any call', async () => {
    const { key } = await completionsKey(entry.extraScopes);
    const refused = await send(entry, key, callerTarget(entry, 'http://169.254.169.254/latest'));
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
  });
});

describe('Anthropic entry points with a stored credential', () => {
  it.each(ENTRY_POINTS.filter((entry) => entry.provider === 'anthropic'))('$name: a stored Anthropic key never goes to a caller-named host', async (entry) => {
    const created = await api<{ id: string }>(gateway, 'POST', '/v1/virtual-keys', { body: { name: 'anthropic matrix', provider: 'anthropic', credential: STORED_CREDENTIAL, custom_host: upstream.url } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { key } = await completionsKey();
    const before = elsewhere.requests.length;
    const refused = await send(entry, key, { 'x-gw-virtual-key': created.body.id, 'x-gw-custom-host': elsewhere.url });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(elsewhere.requests.length).toBe(before);
  });
});

describe('the MCP gateway with a completions key', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'matrix', version: '1' } } };
  const post = (key: string | null, body: unknown = initialize) =>
    fetch(`${gateway.url}/v1/mcp/${mcpSlug}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(key === null ? {} : { 'x-gw-api-key': key }) },
      body: JSON.stringify(body),
    });

  it('is refused without a key (401) and without mcp:invoke (403)', async () => {
    expect((await post(null)).status).toBe(401);
    const { key } = await completionsKey();
    const refused = await post(key);
    expect(refused.status).toBe(403);
    expect(errorOf((await refused.json()) as Json).code).toBe('missing_scope');
  });

  it('obeys a requests policy on its key', async () => {
    const { key, id } = await completionsKey(['mcp:invoke']);
    const policy = await api(gateway, 'POST', '/v1/policies/rate-limits', { body: { conditions: [{ key: 'api_key', value: id }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 1 } });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const first = await post(key);
    expect(first.status).toBe(200);
    await first.body?.cancel();
    const limited = await post(key);
    expect(limited.status).toBe(429);
  });

  it('obeys allowed_request_types (mcp blocked)', async () => {
    const { key } = await completionsKey(['mcp:invoke']);
    const guardrail = await api<{ id: string }>(gateway, 'POST', '/v1/guardrails', { body: { name: 'no mcp', type: 'allowed_request_types', config: { mode: 'block', endpoints: ['mcp'] } } });
    expect(guardrail.status, JSON.stringify(guardrail.body)).toBe(201);
    await setDefaultGuardrails([guardrail.body.id]);
    try {
      const denied = await post(key);
      expect(denied.status).toBe(400);
      expect(errorOf((await denied.json()) as Json).type).toBe('guardrail_violation');
    } finally {
      await setDefaultGuardrails([]);
    }
  });
});

describe('the workspace budget applies to every entry point that costs money', () => {
  it('an exhausted budget refuses each of them with 412, and leaves count_tokens free', async () => {
    const budget = await api(gateway, 'PATCH', `/v1/workspaces/${workspaceId}`, { body: { budget: { credit_limit: 0.000001 } } });
    expect(budget.status, JSON.stringify(budget.body)).toBe(200);
    const { key } = await completionsKey(['prompts:render']);
    // The earlier tests' priced calls already spent past the limit (or this one does; its charge lands after it).
    await send(ENTRY_POINTS[0], key, callerTarget(ENTRY_POINTS[0]));
    await drainAllBackgroundWork();
    for (const entry of ENTRY_POINTS) {
      const answered = await send(entry, key, callerTarget(entry));
      // Counting tokens costs nothing, so a spent budget does not refuse it (docs/security.md, "Entry points").
      const expected = entry.name === 'count_tokens' ? 200 : 412;
      expect(answered.status, `${entry.name}: ${JSON.stringify(answered.body)}`).toBe(expected);
    }
  });
});
