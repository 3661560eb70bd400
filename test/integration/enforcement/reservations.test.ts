import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultEnforcementDependencies } from '../../../shared/gateway/enforcement/admission.js';
import { journalCharges, recordReservation, replayCharges } from '../../../shared/gateway/enforcement/charge-journal.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { CounterRepository, type CounterKey as CounterKeyOf } from '../../../shared/store/counter-repository.js';
import { WorkspaceRepository } from '../../../shared/store/workspace-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { chat, concurrently, createPolicy, creditCounter, rateCounter, viaMock, type Answer, createTenant, type Tenant } from './enforcement-support.js';

// Round prices for the test model: 9 prompt tokens × $0.1 + 12 completion tokens × $0.05 = $1.50 per request
// (the OpenAI mock's usage, 21 tokens). The estimate of a request with max_tokens 20: its 5 prompt tokens
// ("Hi" + framing) + 20 = 25 tokens, priced $0.5 + $1.0 = $1.50.
const PRICED_MODEL = 'reserve-model';
const TOKENS_PER_REQUEST = 21;
const COST_PER_REQUEST = 1.5;
const CONCURRENCY = 200;

const dataDir = mkdtempSync(join(tmpdir(), 'gw-reservations-'));
writeFileSync(join(dataDir, 'openai.json'), JSON.stringify({ models: { [PRICED_MODEL]: { input_per_mtok: 100_000, output_per_mtok: 50_000 } } }));
const journalDir = join(dataDir, 'journal');

let gateway: TestGateway;
let upstream: MockUpstream;
beforeAll(async () => {
  const answer = openAIMockHandler();
  // Answers are held a moment so the 200 requests overlap at admission.
  upstream = await startMockUpstream(async (request) => ({ ...(await answer(request)), delayMs: 20 }));
  gateway = await startTestGateway({ GW_POLICY_CACHE_TTL_MS: '100', MODEL_CONFIGS_PRICING_LOCAL_PATH: dataDir, GW_CHARGE_JOURNAL_DIR: journalDir });
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const tenant = (name: string, budget?: Record<string, unknown>): Promise<Tenant> => createTenant(gateway, name, budget);

function send(who: Tenant, body: Record<string, unknown> = { model: PRICED_MODEL, max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] }): Promise<Answer> {
  return chat(gateway, { ...viaMock(upstream), 'x-gw-api-key': who.key }, body);
}

async function policyIn(who: Tenant, kind: 'rate-limits' | 'usage-limits', payload: Record<string, unknown>) {
  return createPolicy(gateway, kind, { conditions: [{ key: 'workspace_id', value: '*' }], group_by: [{ key: 'api_key' }], ...payload, workspace_id: who.workspaceId });
}

/** Every answer is a 200 or the given refusal; returns how many were admitted. */
function admittedOf(answers: Answer[], refusal: number): number {
  for (const answer of answers) expect([200, refusal], JSON.stringify(answer.body)).toContain(answer.status);
  return answers.filter((answer) => answer.status === 200).length;
}

describe('reservations hold limits under 200-way concurrency', { timeout: 240_000 }, () => {
  it('a tokens rate limit of 5,000: the window ends within one request of the limit, with no reservation left over', async () => {
    const who = await tenant('reserve tokens');
    const policy = await policyIn(who, 'rate-limits', { name: 'five thousand', type: 'tokens', unit: 'rpd', value: 5_000 });
    const admitted = admittedOf(await concurrently(CONCURRENCY, () => send(who)), 429);
    await drainAllBackgroundWork();
    const counted = await rateCounter(policy, { api_key: who.keyId });
    // Every reservation was replaced by the real tokens.
    expect(counted).toBe(admitted * TOKENS_PER_REQUEST);
    expect(admitted).toBeGreaterThan(0);
    // Exact up to one request's estimate error: the real usage may pass the limit by at most one request.
    expect(counted).toBeLessThanOrEqual(5_000 + TOKENS_PER_REQUEST);
  });

  it('a cost usage limit: 200 concurrent requests overshoot by at most one request’s cost, then 412', async () => {
    const who = await tenant('reserve cost');
    const limit = 30;
    const policy = await policyIn(who, 'usage-limits', { name: 'thirty dollars', type: 'requests', unit: 'rpd', value: 1_000_000, credit_limit: { type: 'cost', value: limit } });
    const admitted = admittedOf(await concurrently(CONCURRENCY, () => send(who)), 412);
    await drainAllBackgroundWork();
    const used = await creditCounter(policy, { api_key: who.keyId });
    expect(used).toBeCloseTo(admitted * COST_PER_REQUEST, 6);
    expect(used).toBeGreaterThanOrEqual(limit - COST_PER_REQUEST);
    expect(used).toBeLessThanOrEqual(limit + COST_PER_REQUEST);
    expect((await send(who)).status).toBe(412);
  });

  it('a tokens usage limit: the same bound in tokens', async () => {
    const who = await tenant('reserve credit tokens');
    const policy = await policyIn(who, 'usage-limits', { name: 'token credit', type: 'requests', unit: 'rpd', value: 1_000_000, credit_limit: { type: 'tokens', value: 1_000 } });
    const admitted = admittedOf(await concurrently(CONCURRENCY, () => send(who)), 412);
    await drainAllBackgroundWork();
    const used = await creditCounter(policy, { api_key: who.keyId });
    expect(used).toBe(admitted * TOKENS_PER_REQUEST);
    expect(used).toBeLessThanOrEqual(1_000 + TOKENS_PER_REQUEST);
  });

  it('a workspace budget of $30: usage ends within one request of the limit, then 412 budget_exhausted', async () => {
    const who = await tenant('reserve budget', { credit_limit: 30 });
    const admitted = admittedOf(await concurrently(CONCURRENCY, () => send(who)), 412);
    await drainAllBackgroundWork();
    const usage = (await new WorkspaceRepository().getWorkspace(who.workspaceId))?.budget_current_usage ?? 0;
    expect(usage).toBeCloseTo(admitted * COST_PER_REQUEST, 6);
    expect(usage).toBeLessThanOrEqual(30 + COST_PER_REQUEST);
    const refused = await send(who);
    expect(refused.status).toBe(412);
    expect((refused.body.error as { code: string }).code).toBe('budget_exhausted');
  });

  it('a soft policy does not reserve: a request without max_tokens is checked against settled usage only', async () => {
    const who = await tenant('soft tokens');
    const policy = await policyIn(who, 'rate-limits', { name: 'soft', type: 'tokens', unit: 'rpd', value: 50, enforcement: 'soft' });
    const listed = await fetch(`${gateway.url}/v1/policies/rate-limits/${policy.id}`, { headers: { 'x-gw-api-key': gateway.apiKey } });
    expect(((await listed.json()) as { enforcement: string }).enforcement).toBe('soft');
    expect((await send(who, { model: PRICED_MODEL, messages: [{ role: 'user', content: 'Hi' }] })).status).toBe(200);
    await drainAllBackgroundWork();
    expect(await rateCounter(policy, { api_key: who.keyId })).toBe(TOKENS_PER_REQUEST);
  });
});

describe('reservations of requests that never settle, and charges that failed', { timeout: 60_000 }, () => {
  // Created on first use: settings (the store's endpoint) are read only once the gateway started.
  const counters = {
    add: (counterKey: CounterKeyOf, amount: number) => new CounterRepository().add(counterKey, amount),
    read: (counterKey: CounterKeyOf, now: number) => new CounterRepository().read(counterKey, now),
  };
  const key = (name: string) => ({ pk: `CTR#test#rate#${name}#all`, windowEnd: Number.POSITIVE_INFINITY });

  it('an expired reservation record gives its reservation back on the next replay; one not yet expired stays', async () => {
    await counters.add(key('crashed'), 500);
    await recordReservation('crashed-request', Date.now() - 1_000, [{ kind: 'counter', key: key('crashed'), amount: -500 }]);
    await counters.add(key('in-flight'), 300);
    await recordReservation('in-flight-request', Date.now() + 60_000, [{ kind: 'counter', key: key('in-flight'), amount: -300 }]);
    const result = await replayCharges(new Date(), defaultEnforcementDependencies());
    expect(result.expiredReservations).toBe(1);
    expect(await counters.read(key('crashed'), Date.now())).toBe(0);
    expect(await counters.read(key('in-flight'), Date.now())).toBe(300);
    // A second replay finds nothing left to give back.
    expect((await replayCharges(new Date(), defaultEnforcementDependencies())).expiredReservations).toBe(0);
    expect(await counters.read(key('crashed'), Date.now())).toBe(0);
    // Once its own expiry passes, the other is given back too.
    expect((await replayCharges(new Date(Date.now() + 120_000), defaultEnforcementDependencies())).expiredReservations).toBe(1);
    expect(await counters.read(key('in-flight'), Date.now())).toBe(0);
  });

  it('a journaled charge lands in the local file journal and is applied once by the replay', async () => {
    await journalCharges([{ kind: 'counter', key: key('journaled'), amount: 42 }]);
    expect(readFileSync(join(journalDir, 'charge-journal.jsonl'), 'utf8')).toContain('"amount":42');
    const result = await replayCharges(new Date(), defaultEnforcementDependencies());
    expect(result.journaled).toBe(1);
    expect(await counters.read(key('journaled'), Date.now())).toBe(42);
    expect(existsSync(join(journalDir, 'charge-journal.jsonl'))).toBe(false);
    await replayCharges(new Date(), defaultEnforcementDependencies());
    expect(await counters.read(key('journaled'), Date.now())).toBe(42);
  });

  it('a request that settles drops its reservation record (nothing is given back twice)', async () => {
    const who = await tenant('settled record');
    const policy = await policyIn(who, 'rate-limits', { name: 'records', type: 'tokens', unit: 'rpd', value: 5_000 });
    expect((await send(who)).status).toBe(200);
    await drainAllBackgroundWork();
    // Far in the future every reservation would have expired: none is left to give back.
    expect((await replayCharges(new Date(Date.now() + 86_400_000), defaultEnforcementDependencies())).expiredReservations).toBe(0);
    expect(await rateCounter(policy, { api_key: who.keyId })).toBe(TOKENS_PER_REQUEST);
  });
});
