import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { anthropicMockHandler } from '../../support/mock-anthropic.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { api } from '../control-plane/identities-support.js';
import { createPolicy } from '../enforcement/enforcement-support.js';
import { createGuardrail, setWorkspaceDefaults } from '../guardrails/guardrails-support.js';

// POST /v1/messages/count_tokens obeys the rules of every entry point (issue #30): it counts against requests
// policies, obeys allowed_request_types and leaves a request log record.
let gateway: TestGateway;
let anthropic: MockUpstream;

beforeAll(async () => {
  anthropic = await startMockUpstream(anthropicMockHandler());
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
  await anthropic?.close();
});

const BODY = { model: 'claude-mock-1', messages: [{ role: 'user', content: 'How many tokens is this?' }] };

function countTokens(extra: Record<string, string> = {}): Promise<Response> {
  return gateway.post('/v1/messages/count_tokens', BODY, { 'x-gw-provider': 'anthropic', 'x-gw-custom-host': anthropic.url, 'x-api-key': 'sk-ant-provider', ...extra });
}

const countCalls = () => anthropic.requests.filter((request) => request.path.endsWith('/count_tokens')).length;

interface LogPage {
  data: Array<{ endpoint: string; status: number; provider: string | null; trace_id: string; error: { code: string | null } | null }>;
}

/** The request log records of a trace, once written (after the response, in the background). */
async function logsOf(traceId: string, expected: number): Promise<LogPage['data']> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const page = await api<LogPage>(gateway, 'GET', `/v1/logs?trace_id=${traceId}`);
    if (page.status === 200 && page.body.data.length >= expected) return page.body.data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the logs of ${traceId} never showed ${expected} records`);
}

describe('POST /v1/messages/count_tokens', () => {
  it('takes a slot of a matching requests policy: past the limit, 429 and nothing forwarded', async () => {
    await createPolicy(gateway, 'rate-limits', { conditions: [{ key: 'metadata.case', value: 'count' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpd', value: 2 });
    const headers = { 'x-gw-metadata': JSON.stringify({ case: 'count' }) };
    const before = countCalls();
    const statuses = [];
    for (let index = 0; index < 3; index++) statuses.push((await countTokens(headers)).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(countCalls() - before).toBe(2);
  });

  it('a tokens policy neither refuses nor is charged by a count', async () => {
    await createPolicy(gateway, 'rate-limits', { conditions: [{ key: 'metadata.case', value: 'count-tokens' }], group_by: [{ key: 'api_key' }], type: 'tokens', unit: 'rpd', value: 1 });
    const headers = { 'x-gw-metadata': JSON.stringify({ case: 'count-tokens' }) };
    for (let index = 0; index < 3; index++) expect((await countTokens(headers)).status).toBe(200);
  });

  it('is logged: its answer, and its refusals', async () => {
    const traceId = randomUUID();
    const answered = await countTokens({ 'x-gw-trace-id': traceId });
    expect(await answered.json()).toEqual({ input_tokens: 42 });
    const [record] = await logsOf(traceId, 1);
    expect(record).toMatchObject({ endpoint: 'messages/count_tokens', status: 200, provider: 'anthropic', trace_id: traceId, error: null });

    const refusedTrace = randomUUID();
    await createPolicy(gateway, 'rate-limits', { conditions: [{ key: 'metadata.case', value: 'count-log' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpd', value: 1 });
    const headers = { 'x-gw-metadata': JSON.stringify({ case: 'count-log' }), 'x-gw-trace-id': refusedTrace };
    expect((await countTokens(headers)).status).toBe(200);
    expect((await countTokens(headers)).status).toBe(429);
    const records = await logsOf(refusedTrace, 2);
    expect(records.map((one) => one.status).sort()).toEqual([200, 429]);
    expect(records.find((one) => one.status === 429)!.error).toMatchObject({ code: 'rate_limit_exceeded' });
  });

  it('obeys allowed_request_types: blocked as messages/count_tokens, 400 and nothing forwarded', async () => {
    const guardrail = await createGuardrail(gateway, { name: 'no counting', type: 'allowed_request_types', config: { mode: 'block', endpoints: ['messages/count_tokens'] } });
    await setWorkspaceDefaults(gateway, gateway.bootstrap.workspaceId, [guardrail.id]);
    try {
      const before = countCalls();
      const refused = await countTokens();
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('messages/count_tokens requests are blocked') } });
      expect(countCalls()).toBe(before);
    } finally {
      await setWorkspaceDefaults(gateway, gateway.bootstrap.workspaceId, []);
    }
  });
});
