import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settings } from '../../../shared/settings.js';
import { dynamoDocumentClient } from '../../../shared/store/dynamo-client.js';
import { keys } from '../../../shared/store/keys.js';
import { MAIN_TABLE, tableName } from '../../../shared/store/table-definitions.js';
import { WorkspaceRepository } from '../../../shared/store/workspace-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { createKey } from '../control-plane/policies-support.js';
import { chat, createPolicy, creditCounter, eventually, expectedError, requestLog, viaMock } from './enforcement-support.js';

// A local pricing file gives the test model round prices: 9 prompt tokens × $0.1 + 12 completion tokens ×
// $0.05 = $1.50 per request (the OpenAI mock's usage).
const COST_PER_REQUEST = 1.5;
const PRICED_MODEL = 'budget-model';
const pricingDir = mkdtempSync(join(tmpdir(), 'gw-enforcement-budgets-'));
writeFileSync(join(pricingDir, 'openai.json'), JSON.stringify({ models: { [PRICED_MODEL]: { input_per_mtok: 100_000, output_per_mtok: 50_000 } } }));

let gateway: TestGateway;
let upstream: MockUpstream;

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway({ GW_POLICY_CACHE_TTL_MS: '100', MODEL_CONFIGS_PRICING_LOCAL_PATH: pricingDir });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  rmSync(pricingDir, { recursive: true, force: true });
});

interface Tenant {
  workspaceId: string;
  key: string;
}

async function admin<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** A workspace of its own (budgets are per workspace) with a key that may call the gateway. */
async function tenant(name: string, budget?: Record<string, unknown>): Promise<Tenant> {
  const created = await admin<{ id: string }>('POST', '/v1/workspaces', { name, ...(budget ? { budget } : {}) });
  expect(created.status).toBe(201);
  const key = await createKey({ organisationId: gateway.bootstrap.organisationId, workspaceId: created.body.id, scopes: ['completions:write'] });
  return { workspaceId: created.body.id, key: key.raw };
}

function send(who: Tenant, model = PRICED_MODEL, metadata: Record<string, string> = {}) {
  return chat(gateway, { ...viaMock(upstream, metadata), 'x-gw-api-key': who.key }, { model, messages: [{ role: 'user', content: 'Hi' }] });
}

/** The workspace's budget once its usage reached `usage` (charging runs after the response). */
async function usageReaches(workspaceId: string, usage: number) {
  return eventually(async () => {
    const workspace = await new WorkspaceRepository().getWorkspace(workspaceId);
    return workspace && Math.abs((workspace.budget_current_usage ?? 0) - usage) < 1e-9 ? workspace : undefined;
  }, `workspace usage ${usage}`);
}

describe('the workspace budget', () => {
  it('exhausted → 412 naming the budget and its limit → limit raised → the next request passes with no other step', async () => {
    const who = await tenant('budget raise', { credit_limit: 3 });
    expect((await send(who)).status).toBe(200);
    await usageReaches(who.workspaceId, COST_PER_REQUEST);
    expect((await send(who)).status).toBe(200);
    await usageReaches(who.workspaceId, 2 * COST_PER_REQUEST);
    // The status follows the usage in a write of its own, conditional on usage >= limit.
    await eventually(async () => ((await new WorkspaceRepository().getWorkspace(who.workspaceId))?.budget_status === 'exhausted' ? true : undefined), 'status exhausted');

    const refused = await send(who);
    expect(refused.status).toBe(412);
    expect(refused.body).toEqual(expectedError('budget_exhausted', 'budget_exceeded_error', `The budget of workspace ${who.workspaceId} is exhausted: $3 used of its $3 credit limit`));

    const raised = await admin<{ budget: { status: string; credit_limit: number } }>('PATCH', `/v1/workspaces/${who.workspaceId}`, { budget: { credit_limit: 10 } });
    expect(raised.status).toBe(200);
    expect(raised.body.budget).toMatchObject({ status: 'active', credit_limit: 10 });
    expect((await send(who)).status).toBe(200);
  });

  it('a limit lowered to the usage refuses the next request', async () => {
    const who = await tenant('budget lower', { credit_limit: 100 });
    expect((await send(who)).status).toBe(200);
    await usageReaches(who.workspaceId, COST_PER_REQUEST);
    expect((await admin('PATCH', `/v1/workspaces/${who.workspaceId}`, { budget: { credit_limit: 1 } })).status).toBe(200);
    const refused = await send(who);
    expect(refused.status).toBe(412);
    expect(refused.body).toEqual(expectedError('budget_exhausted', 'budget_exceeded_error', 'its $1 credit limit'));
  });

  it('a periodic reset that came due resets the usage on the next request (time moved by the stored reset date)', async () => {
    const who = await tenant('budget reset', { credit_limit: 2, periodic_reset: 'weekly' });
    expect((await send(who)).status).toBe(200);
    await usageReaches(who.workspaceId, COST_PER_REQUEST);
    expect((await send(who)).status).toBe(200);
    await usageReaches(who.workspaceId, 2 * COST_PER_REQUEST);
    expect((await send(who)).status).toBe(412);
    // The reset time passes: the stored next reset is moved into the past, as if a week went by.
    const past = new Date(Date.now() - 60_000).toISOString();
    await dynamoDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(settings(), MAIN_TABLE),
        Key: keys.workspace(who.workspaceId),
        UpdateExpression: 'SET budget_next_reset_at = :past, gsi2sk = :queued',
        ExpressionAttributeValues: { ':past': past, ':queued': `${past}#${who.workspaceId}` },
      }),
    );
    expect((await send(who)).status).toBe(200);
    // Usage was $1.50 before too: wait for the reset itself, then for the new period's charge.
    const reset = await eventually(async () => {
      const workspace = await new WorkspaceRepository().getWorkspace(who.workspaceId);
      return workspace?.budget_last_reset_at === past && workspace.budget_current_usage === COST_PER_REQUEST ? workspace : undefined;
    }, 'the reset and the new charge');
    expect(reset.budget_status).toBe('active');
    expect(Date.parse(reset.budget_next_reset_at!)).toBeGreaterThan(Date.now());
    expect(new Date(reset.budget_next_reset_at!).getUTCDay()).toBe(1);
  });

  it('an unpriced model is charged to the budget at the default rates ($15/$75 per million) and its cost is logged as null', async () => {
    const who = await tenant('budget unpriced', { credit_limit: 1 });
    const traceId = `unpriced-${Date.now()}`;
    const answer = await chat(gateway, { ...viaMock(upstream), 'x-gw-api-key': who.key, 'x-gw-trace-id': traceId }, { model: 'model-nobody-prices', messages: [{ role: 'user', content: 'Hi' }] });
    expect(answer.status).toBe(200);
    const logged = await requestLog(traceId);
    expect(logged.cost).toBeNull();
    // 9 prompt tokens × $15 + 12 completion tokens × $75 per million: an unknown price never means "free".
    expect((await new WorkspaceRepository().getWorkspace(who.workspaceId))?.budget_current_usage).toBe(0.001035);
  });

  it('logs the cost of a priced response', async () => {
    const who = await tenant('budget logged');
    const traceId = `priced-${Date.now()}`;
    expect((await chat(gateway, { ...viaMock(upstream), 'x-gw-api-key': who.key, 'x-gw-trace-id': traceId }, { model: PRICED_MODEL, messages: [{ role: 'user', content: 'Hi' }] })).status).toBe(200);
    expect((await requestLog(traceId)).cost).toBe(COST_PER_REQUEST);
    // Without a limit the usage is still counted, so a limit set later compares against real spend.
    await usageReaches(who.workspaceId, COST_PER_REQUEST);
  });
});

describe('usage-limit policies', () => {
  const usageLimit = (user: string, creditLimit: Record<string, unknown>) => ({
    name: `${user} credit`,
    conditions: [{ key: 'metadata._user', value: user }],
    group_by: [{ key: 'metadata._user' }],
    type: 'requests',
    unit: 'rpd',
    value: 1_000,
    credit_limit: creditLimit,
    periodic_reset: 'monthly',
  });

  it('a cost limit: charged with the real cost, 412 naming the policy once reached, active again once raised', async () => {
    const who = await tenant('usage cost');
    const policy = await createPolicy(gateway, 'usage-limits', { ...usageLimit('cost-user', { type: 'cost', value: 3 }), workspace_id: who.workspaceId });
    for (const expected of [1, 2]) {
      expect((await send(who, PRICED_MODEL, { _user: 'cost-user' })).status).toBe(200);
      await eventually(async () => ((await creditCounter(policy, { 'metadata._user': 'cost-user' })) === expected * COST_PER_REQUEST ? true : undefined), 'the credit counter');
    }
    const refused = await send(who, PRICED_MODEL, { _user: 'cost-user' });
    expect(refused.status).toBe(412);
    expect(refused.body).toEqual(expectedError('usage_limit_exhausted', 'budget_exceeded_error', `Usage limit "cost-user credit" (${policy.id}) is exhausted: $3 used of its $3 credit limit; it resets at`));
    // Other users are not governed by it.
    expect((await send(who, PRICED_MODEL, { _user: 'someone-else' })).status).toBe(200);

    const update = await admin('PUT', `/v1/policies/usage-limits/${policy.id}`, { credit_limit: { type: 'cost', value: 10 } });
    expect(update.status).toBe(200);
    expect((await send(who, PRICED_MODEL, { _user: 'cost-user' })).status).toBe(200);
  });

  it('a tokens limit counts the real total tokens', async () => {
    const who = await tenant('usage tokens');
    const policy = await createPolicy(gateway, 'usage-limits', { ...usageLimit('token-user', { type: 'tokens', value: 40 }), workspace_id: who.workspaceId });
    for (const expected of [21, 42]) {
      expect((await send(who, 'model-nobody-prices', { _user: 'token-user' })).status).toBe(200);
      await eventually(async () => ((await creditCounter(policy, { 'metadata._user': 'token-user' })) === expected ? true : undefined), 'the credit counter');
    }
    const refused = await send(who, 'model-nobody-prices', { _user: 'token-user' });
    expect(refused.status).toBe(412);
    expect(refused.body).toEqual(expectedError('usage_limit_exhausted', 'budget_exceeded_error', '42 tokens used of its 40 tokens credit limit'));
  });
});
