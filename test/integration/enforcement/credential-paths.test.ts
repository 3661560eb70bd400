import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { WorkspaceRepository } from '../../../shared/store/workspace-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIDialectsMockHandler } from '../../support/mock-openai-dialects.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { createKey } from '../control-plane/policies-support.js';
import { concurrently, createPolicy, creditCounter, expectedError, requestLog, type Answer } from './enforcement-support.js';

// Issue #41: a limit on cost must hold whatever names the target. Before the fix a virtual key's provider was
// looked up only when a policy named `provider`, so the cost estimate was null and nothing was reserved: 200 of
// 200 concurrent requests passed a budget with room for 10.
//
// Round prices: every answer of the mock costs 20 prompt × $0.1 + 10 completion × $0.05 = $2.50 (chat, Responses
// and prompt completions alike). A request with max_tokens 60 is estimated above that (its few prompt tokens +
// 60 completion tokens ≥ $3), so estimates are upper bounds and a limit ends at most one answer over.
const PRICED_MODEL = 'paths-model';
const PRICEY_MODEL = 'paths-pricey-model';
const UNPRICED_MODEL = 'paths-model-nobody-prices';
const COST_PER_ANSWER = 2.5;
/** A streamed chat answer of the mock: 9 prompt + 12 completion tokens. */
const STREAMED_COST = 1.5;
const ROOM_FOR_TEN = 10 * COST_PER_ANSWER;

const pricingDir = mkdtempSync(join(tmpdir(), 'gw-credential-paths-'));
writeFileSync(
  join(pricingDir, 'openai.json'),
  JSON.stringify({ models: { [PRICED_MODEL]: { input_per_mtok: 100_000, output_per_mtok: 50_000 }, [PRICEY_MODEL]: { input_per_mtok: 1_000_000, output_per_mtok: 500_000 } } }),
);

let gateway: TestGateway;
let upstream: MockUpstream;
beforeAll(async () => {
  const answer = openAIDialectsMockHandler();
  // Answers are held a moment so the concurrent requests overlap at admission.
  upstream = await startMockUpstream(async (request) => ({ ...(await answer(request)), delayMs: 20 }));
  gateway = await startTestGateway({ GW_POLICY_CACHE_TTL_MS: '100', MODEL_CONFIGS_PRICING_LOCAL_PATH: pricingDir });
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  rmSync(pricingDir, { recursive: true, force: true });
});

interface Tenant {
  workspaceId: string;
  key: string;
  virtualKey: string;
}

async function admin<T>(method: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${gateway.url}${path}`, { method, headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey }, body: JSON.stringify(body) });
  const parsed = (await response.json()) as T;
  expect(response.status, JSON.stringify(parsed)).toBeLessThan(300);
  return parsed;
}

/** A workspace of its own (budgets are per workspace), a key that may call the gateway, and a virtual key to the mock. */
async function tenant(name: string, budget?: Record<string, unknown>): Promise<Tenant> {
  const created = await admin<{ id: string }>('POST', '/v1/workspaces', { name, ...(budget ? { budget } : {}) });
  const key = await createKey({ organisationId: gateway.bootstrap.organisationId, workspaceId: created.id, scopes: ['completions:write', 'prompts:render'] });
  const virtualKey = await admin<{ id: string }>('POST', `/v1/virtual-keys?workspace_id=${created.id}`, { name: `${name} key`, provider: 'openai', credential: 'sk-vk-secret', custom_host: upstream.url });
  return { workspaceId: created.id, key: key.raw, virtualKey: virtualKey.id };
}

async function post(who: Tenant, path: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
  const response = await gateway.post(path, body, { 'x-gw-api-key': who.key, ...headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : { text } };
}

const chatBody = (model = PRICED_MODEL) => ({ model, max_tokens: 60, messages: [{ role: 'user', content: 'Hi' }] });
const viaVirtualKey = (who: Tenant) => ({ 'x-gw-virtual-key': who.virtualKey });

/** Every answer is a 200 or the given refusal; returns how many were admitted. */
function admittedOf(answers: Answer[], refusal: number): number {
  for (const answer of answers) expect([200, refusal], JSON.stringify(answer.body)).toContain(answer.status);
  return answers.filter((answer) => answer.status === 200).length;
}

async function budgetUsage(workspaceId: string): Promise<number> {
  await drainAllBackgroundWork();
  return (await new WorkspaceRepository().getWorkspace(workspaceId))?.budget_current_usage ?? 0;
}

describe('an unknown estimate never means "no limit": every credential path reserves', { timeout: 240_000 }, () => {
  it('a workspace budget holds against 200 concurrent chat requests through a virtual key (was: 200 of 200 admitted)', async () => {
    const who = await tenant('paths vk budget', { credit_limit: ROOM_FOR_TEN });
    const admitted = admittedOf(await concurrently(200, () => post(who, '/v1/chat/completions', chatBody(), viaVirtualKey(who))), 412);
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThanOrEqual(11);
    const usage = await budgetUsage(who.workspaceId);
    // Every reservation was replaced by the real cost: nothing is left over, and at most one answer is over.
    expect(usage).toBe(admitted * COST_PER_ANSWER);
    expect(usage).toBeLessThanOrEqual(ROOM_FOR_TEN + COST_PER_ANSWER);
  });

  it('a mix of Responses, Messages, chat (streamed or not) and prompt completions through a virtual key holds the budget too', async () => {
    const who = await tenant('paths vk mix', { credit_limit: ROOM_FOR_TEN });
    const prompt = await admin<{ id: string }>('POST', `/v1/prompts?workspace_id=${who.workspaceId}`, {
      name: 'paths prompt',
      messages: [{ role: 'user', content: 'Say hi to {{name}}' }],
      model: PRICED_MODEL,
      hyperparameters: { max_tokens: 60 },
    });
    const send = (index: number) => {
      if (index % 4 === 0) return post(who, '/v1/responses', { model: PRICED_MODEL, max_output_tokens: 60, input: 'Hi' }, viaVirtualKey(who));
      if (index % 4 === 1) return post(who, `/v1/prompts/${prompt.id}/completions`, { variables: { name: 'Ada' } }, viaVirtualKey(who));
      if (index % 4 === 2) return post(who, '/v1/messages', { model: PRICED_MODEL, max_tokens: 60, messages: [{ role: 'user', content: 'Hi' }] }, viaVirtualKey(who));
      return post(who, '/v1/chat/completions', { ...chatBody(), stream: index % 2 === 0 }, viaVirtualKey(who));
    };
    const answers = await concurrently(150, send);
    const admitted = admittedOf(answers, 412);
    expect(admitted).toBeGreaterThan(0);
    // A streamed chat answer of the mock reports 9 + 12 tokens ($1.50); every other answer $2.50.
    const streamed = answers.filter((answer) => answer.status === 200 && typeof answer.body.text === 'string').length;
    const usage = await budgetUsage(who.workspaceId);
    expect(usage).toBe(streamed * STREAMED_COST + (admitted - streamed) * COST_PER_ANSWER);
    expect(usage).toBeLessThanOrEqual(ROOM_FOR_TEN + COST_PER_ANSWER);
  });

  it('a cost usage-limit policy holds against 100 concurrent requests through a virtual key (was: 100 of 100)', async () => {
    const who = await tenant('paths vk usage limit');
    const policy = await createPolicy(gateway, 'usage-limits', {
      name: 'paths cost',
      conditions: [{ key: 'workspace_id', value: '*' }],
      group_by: [{ key: 'workspace_id' }],
      type: 'requests',
      unit: 'rpd',
      value: 100_000,
      credit_limit: { type: 'cost', value: ROOM_FOR_TEN },
      periodic_reset: 'monthly',
      workspace_id: who.workspaceId,
    });
    const admitted = admittedOf(await concurrently(100, () => post(who, '/v1/chat/completions', chatBody(), viaVirtualKey(who))), 412);
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThanOrEqual(11);
    await drainAllBackgroundWork();
    expect(await creditCounter(policy, { workspace_id: who.workspaceId })).toBe(admitted * COST_PER_ANSWER);
  });

  it('a virtual key inside an inline config fallback reserves its most expensive candidate and settles on the one used', async () => {
    // The first target answers ($2.50); the second, never reached, would cost ten times more: its estimate is
    // reserved, so of 50 concurrent requests only those that fit one pricey estimate each are admitted.
    const who = await tenant('paths vk fallback', { credit_limit: ROOM_FOR_TEN });
    const config = JSON.stringify({
      strategy: { mode: 'fallback' },
      targets: [{ virtual_key: who.virtualKey }, { virtual_key: who.virtualKey, override_params: { model: PRICEY_MODEL } }],
    });
    const admitted = admittedOf(await concurrently(50, () => post(who, '/v1/chat/completions', chatBody(), { 'x-gw-config': config })), 412);
    // One pricey estimate ($30+) is above the whole budget: the first admitted request holds it until it settles.
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThan(10);
    // Settled on the target that answered: the cheap model's real cost, nothing of the reservation left.
    expect(await budgetUsage(who.workspaceId)).toBe(admitted * COST_PER_ANSWER);
  });

  it('a saved config naming a virtual key under a load balance reserves too', async () => {
    const who = await tenant('paths saved config', { credit_limit: ROOM_FOR_TEN });
    const saved = await admin<{ id: string }>('POST', `/v1/configs?workspace_id=${who.workspaceId}`, {
      name: 'paths lb',
      config: { strategy: { mode: 'loadbalance' }, targets: [{ virtual_key: who.virtualKey, weight: 1 }, { virtual_key: who.virtualKey, weight: 1 }] },
    });
    const admitted = admittedOf(await concurrently(100, () => post(who, '/v1/chat/completions', chatBody(), { 'x-gw-config': saved.id })), 412);
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThanOrEqual(11);
    expect(await budgetUsage(who.workspaceId)).toBe(admitted * COST_PER_ANSWER);
  });

  it('a model without a price reserves and is charged at the default rates, and its log still says cost null', async () => {
    // Default rates $15 / $75 per million: an estimate of a few prompt tokens + 60 completion tokens is about
    // $0.0046, above this budget; a real answer (20 + 10 tokens) is charged $0.00105.
    const who = await tenant('paths unpriced', { credit_limit: 0.001 });
    const admitted = admittedOf(await concurrently(50, () => post(who, '/v1/chat/completions', chatBody(UNPRICED_MODEL), viaVirtualKey(who))), 412);
    expect(admitted).toBe(1);
    expect(await budgetUsage(who.workspaceId)).toBe(0.00105);
    const traceId = `paths-unpriced-${Date.now()}`;
    const refused = await post(who, '/v1/chat/completions', chatBody(UNPRICED_MODEL), { ...viaVirtualKey(who), 'x-gw-trace-id': traceId });
    expect(refused.status).toBe(412);
    const other = await tenant('paths unpriced log');
    const logged = `paths-unpriced-log-${Date.now()}`;
    expect((await post(other, '/v1/chat/completions', chatBody(UNPRICED_MODEL), { ...viaVirtualKey(other), 'x-gw-trace-id': logged })).status).toBe(200);
    expect((await requestLog(logged)).cost).toBeNull();
  });

  it('a workspace with settings.unpriced_models "refuse" answers 400 unpriced_model under a cost limit, and admits it without one', async () => {
    const who = await tenant('paths refuse unpriced', { credit_limit: 100 });
    const patched = await admin<{ settings: { unpriced_models: string } }>('PATCH', `/v1/workspaces/${who.workspaceId}`, { settings: { unpriced_models: 'refuse' } });
    expect(patched.settings.unpriced_models).toBe('refuse');
    const refused = await post(who, '/v1/chat/completions', chatBody(UNPRICED_MODEL), viaVirtualKey(who));
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(expectedError('unpriced_model', 'invalid_request_error', `No price is known for openai/${UNPRICED_MODEL}`, 'model'));
    // A fallback whose second candidate is unpriced is refused too: every candidate may answer.
    const config = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ virtual_key: who.virtualKey }, { virtual_key: who.virtualKey, override_params: { model: UNPRICED_MODEL } }] });
    expect((await post(who, '/v1/chat/completions', chatBody(), { 'x-gw-config': config })).status).toBe(400);
    expect((await post(who, '/v1/chat/completions', chatBody(), viaVirtualKey(who))).status).toBe(200);
    // No cost limit applies: nothing needs a price.
    expect((await admin<{ budget: { credit_limit: number | null } }>('PATCH', `/v1/workspaces/${who.workspaceId}`, { budget: { credit_limit: null } })).budget.credit_limit).toBeNull();
    expect((await post(who, '/v1/chat/completions', chatBody(UNPRICED_MODEL), viaVirtualKey(who))).status).toBe(200);
  });
});
