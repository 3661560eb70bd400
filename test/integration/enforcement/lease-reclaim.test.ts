import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AmountLeases, budgetAccount, counterAccount } from '../../../shared/gateway/enforcement/amount-leases.js';
import { flushCharges } from '../../../shared/gateway/enforcement/charge-buffer.js';
import { abandoned, reclaimGraceMs } from '../../../shared/gateway/enforcement/lease-reclaim.js';
import { returnAllQuotaLeases } from '../../../shared/gateway/enforcement/quota-leases.js';
import { EnforcementSnapshots } from '../../../shared/gateway/enforcement/snapshot-cache.js';
import type { EnforcementDependencies } from '../../../shared/gateway/enforcement/types.js';
import { settings } from '../../../shared/settings.js';
import { CounterRepository, type CounterKey } from '../../../shared/store/counter-repository.js';
import { dynamoDocumentClient } from '../../../shared/store/dynamo-client.js';
import { leaseRecordsOf } from '../../../shared/store/lease-records.js';
import { MAIN_TABLE, tableName } from '../../../shared/store/table-definitions.js';
import { WorkspaceBudgetRepository } from '../../../shared/store/workspace-budget-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { concurrently, createPolicy, createTenant, creditCounter, eventually, OtherGws, policyCounter, rateCounter, viaMock, type Answer, type Tenant } from './enforcement-support.js';

// Issue #48: a crash of a process holding a lease costs at most its lease, given back at expiry. Each lease is
// recorded on its counter item (`lh_<id>` what it holds unreported, `le_<id>` its expiry) in the write that takes
// it; its holder reports what it used with its batched charges; a refused take gives back the records of holders
// that stopped (past expiry + grace) and tries again. This process leases with a TTL of 1 s (grace 2 s).
//
// Prices: the mock's 9 prompt + 12 completion tokens cost $1.50 under the local price below, and so does the
// estimate of a request with max_tokens 20, so a cost share of n estimates is n × $1.50.
const MODEL = 'reclaim-model';
const COST = 1.5;
const TTL_MS = 1_000;
const others = new OtherGws();
const pricingDir = others.tempDir('gw-reclaim-pricing-');
writeFileSync(join(pricingDir, 'openai.json'), JSON.stringify({ models: { [MODEL]: { input_per_mtok: 100_000, output_per_mtok: 50_000 } } }));
const env = { GW_POLICY_CACHE_TTL_MS: '60000', GW_AUTH_CACHE_TTL_MS: '60000', MODEL_CONFIGS_PRICING_LOCAL_PATH: pricingDir, GW_QUOTA_LEASE_TTL_MS: String(TTL_MS) };

let gateway: TestGateway;
let upstream: MockUpstream;

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway(env);
}, 120_000);

afterAll(() => others.stop(gateway, upstream), 60_000);

async function send(who: Tenant, base = gateway.url): Promise<Answer> {
  const response = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': who.key, ...viaMock(upstream) },
    body: JSON.stringify({ model: MODEL, max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  await response.text();
  return { status: response.status, headers: response.headers, body: {} };
}

const WORKSPACE_GROUP = { conditions: [{ key: 'workspace_id', value: '*' }], group_by: [{ key: 'workspace_id' }] };

/** An item of the main table as stored (its lease records included). */
async function item(pk: string): Promise<Record<string, unknown> | undefined> {
  return (await dynamoDocumentClient().send(new GetCommand({ TableName: tableName(settings(), MAIN_TABLE), Key: { pk, sk: 'COUNTER' }, ConsistentRead: true }))).Item;
}

const leaseAttributes = (stored: Record<string, unknown> | undefined) => Object.keys(stored ?? {}).filter((name) => name.startsWith('lh_') || name.startsWith('le_'));

/** Waits until the counter holds a lease record with exactly `held` (its holder's report landed), and returns it. */
async function recordHolding(key: CounterKey, held: number) {
  return eventually(async () => leaseRecordsOf(await item(key.pk)).find((record) => record.held === held), `a lease record holding ${held} on ${key.pk}`);
}

describe('lease records and reclaim (issue #48)', () => {
  it('crash: a gw process killed with SIGKILL while holding a cost lease and a request-count lease costs at most its leases until expiry + grace; then a refused request gives them back and is admitted, and the limits hold', async () => {
    // Two workspaces, so each limit binds alone: one under a cost limit of 40 answers, one under 40 requests a day.
    const paying = await createTenant(gateway, 'reclaim cost');
    const counting = await createTenant(gateway, 'reclaim requests');
    const cost = await createPolicy(gateway, 'usage-limits', { ...WORKSPACE_GROUP, name: 'reclaim cost', type: 'requests', unit: 'rpd', value: 1e9, credit_limit: { type: 'cost', value: 40 * COST }, periodic_reset: 'monthly', workspace_id: paying.workspaceId });
    const requests = await createPolicy(gateway, 'rate-limits', { ...WORKSPACE_GROUP, name: 'reclaim requests', type: 'requests', unit: 'rpd', value: 40, workspace_id: counting.workspaceId });
    const costKey = policyCounter(cost, 'credit', { workspace_id: paying.workspaceId });
    const requestKey = policyCounter(requests, 'rate', { workspace_id: counting.workspaceId });

    // The other process's leases live 20 s: its sweep neither renews nor gives them back before it is killed, and
    // this process's bursts below end before they are abandoned (expiry + this process's grace of 2 s).
    const other = await others.start({ ...env, GW_QUOTA_LEASE_TTL_MS: '20000' });
    expect((await send(paying, other.url)).status).toBe(200);
    expect((await send(counting, other.url)).status).toBe(200);
    // It took 4 estimates of each counter and used one; once its report landed the records hold the other 3.
    const costRecord = await recordHolding(costKey, 3 * COST);
    const requestRecord = await recordHolding(requestKey, 3);
    await other.kill();

    // Until its expiry + grace the dead process's leases stay counted, and refusals leave a live-looking record
    // alone: of 45 concurrent requests this process admits exactly the 36 answers left besides them.
    const tenants = [
      { who: paying, refusal: 412 },
      { who: counting, refusal: 429 },
    ];
    for (const { who, refusal } of tenants) {
      const answers = await concurrently(45, () => send(who));
      for (const answer of answers) expect([200, refusal]).toContain(answer.status);
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(36);
    }
    expect(leaseRecordsOf(await item(costKey.pk)).map((record) => record.id)).toContain(costRecord.id);
    // Past expiry + grace, the next refused request reclaims the 3 the dead process held and is admitted, and
    // two more after it; then the limits hold again.
    await eventually(async () => (abandoned(costRecord, Date.now()) && abandoned(requestRecord, Date.now()) ? true : undefined), 'the dead leases to pass their expiry and grace', 1_200);
    for (const { who, refusal } of tenants) {
      const statuses: number[] = [];
      for (let index = 0; index < 5; index++) statuses.push((await send(who)).status);
      expect(statuses).toEqual([200, 200, 200, refusal, refusal]);
    }

    // Given back, each counter holds what was used: the dead process's reported answer and this process's 39.
    expect(await creditCounter(cost, { workspace_id: paying.workspaceId })).toBe(40 * COST);
    expect(await rateCounter(requests, { workspace_id: counting.workspaceId })).toBe(40);
    expect(leaseAttributes(await item(costKey.pk))).toEqual([]);
    expect(leaseAttributes(await item(requestKey.pk))).toEqual([]);
  }, 180_000);

  it('frozen holder: a process whose lease was reclaimed while it was frozen gives nothing back twice and charges what it used', async () => {
    let clock = Date.now();
    const deps: EnforcementDependencies = { counters: new CounterRepository(), budgets: new WorkspaceBudgetRepository(), snapshots: new EnforcementSnapshots(async () => ({ policies: [] })), now: () => clock };
    const key: CounterKey = { pk: `CTR#frozen-holder-${Date.now()}#rate#g#w`, windowEnd: Number.POSITIVE_INFINITY };
    const holder = new AmountLeases(() => clock);
    const account = counterAccount(key, 100, deps);

    // A share of 4 (1/8 of 100 is more), one unit used and reported, then one more used and not reported yet (2
    // stay free: above a quarter of the share, so no renewal is taken).
    expect(await holder.reserve(account, 1)).toMatchObject({ lease: expect.anything() });
    await flushCharges();
    expect(leaseRecordsOf(await item(key.pk))).toEqual([expect.objectContaining({ held: 3 })]);
    expect(await holder.reserve(account, 1)).toMatchObject({ lease: expect.anything() });

    // Frozen past its lease's expiry + grace: another process, refused at the limit, reclaims the record (the 3 the
    // store knew of, 1 of them used meanwhile) and is admitted.
    clock += TTL_MS + reclaimGraceMs() + 1;
    const other = counterAccount(key, 4, deps);
    expect(await new CounterRepository().read(key, clock)).toBe(4);
    // (2 after it; 3 if the holder's buffer reported its second unit before it froze: then the record held 2.)
    expect([2, 3]).toContain(await other.takeExact(1));
    expect(leaseAttributes(await item(key.pk))).toEqual([]);

    // Thawed: the give-back finds its record gone, so instead of giving back its 2 unused units a second time it
    // charges the unit it used since its report: the counter holds the holder's 2 and the other's 1.
    holder.sweep();
    await flushCharges();
    expect(await new CounterRepository().read(key, clock)).toBe(2 + 1);
    expect(leaseAttributes(await item(key.pk))).toEqual([]);
  });

  it('frozen holder: the budget gate\'s lease of a frozen process is reclaimed by a refused reservation, and the budget ends at what was used', async () => {
    let clock = Date.now();
    const deps: EnforcementDependencies = { counters: new CounterRepository(), budgets: new WorkspaceBudgetRepository(), snapshots: new EnforcementSnapshots(async () => ({ policies: [] })), now: () => clock };
    const who = await createTenant(gateway, 'reclaim gate', { credit_limit: 100 });
    const budget = (await deps.budgets.read(who.workspaceId))!;
    const holder = new AmountLeases(() => clock);
    // A share of $4 on the gate, $1 of it used and reported.
    expect(await holder.reserve(budgetAccount(budget, deps), 1)).toMatchObject({ lease: expect.anything() });
    await flushCharges();
    const gatePk = `BUDGETCTR#${who.workspaceId}#${budget.epoch}#gate`;
    expect(leaseRecordsOf(await item(gatePk))).toEqual([expect.objectContaining({ held: 3 })]);

    // Frozen past expiry + grace; meanwhile the limit came down to $4: a reservation is refused by the gate,
    // reclaims the $3 and is admitted.
    clock += TTL_MS + reclaimGraceMs() + 1;
    const lowered = { ...budget, creditLimit: 4 };
    expect(await budgetAccount(lowered, deps).takeExact(1)).toBe(2);
    expect(leaseAttributes(await item(gatePk))).toEqual([]);
    holder.sweep();
    await flushCharges();
    expect((await deps.budgets.read(who.workspaceId))!.currentUsage).toBe(2);
    expect(leaseAttributes(await item(gatePk))).toEqual([]);
  });

  it('lease leak: a lease record is written with the share that takes it and never outlives its give-back (limit counters and the budget gate)', async () => {
    const who = await createTenant(gateway, 'reclaim records', { credit_limit: 1e6 });
    const cost = await createPolicy(gateway, 'usage-limits', { ...WORKSPACE_GROUP, name: 'records cost', type: 'requests', unit: 'rpd', value: 1e9, credit_limit: { type: 'cost', value: 1e6 }, periodic_reset: 'monthly', workspace_id: who.workspaceId });
    for (let index = 0; index < 5; index++) expect((await send(who)).status).toBe(200);
    const budget = (await new WorkspaceBudgetRepository().read(who.workspaceId))!;
    const gatePk = `BUDGETCTR#${who.workspaceId}#${budget.epoch}#gate`;
    const costPk = policyCounter(cost, 'credit', { workspace_id: who.workspaceId }).pk;
    // While held: a record on each counter, its expiry set.
    for (const pk of [gatePk, costPk]) {
      const records = leaseRecordsOf(await item(pk));
      expect(records.length).toBeGreaterThan(0);
      for (const record of records) expect(record.expiresAt).toBeGreaterThan(0);
    }
    await returnAllQuotaLeases();
    for (const pk of [gatePk, costPk]) expect(leaseAttributes(await item(pk))).toEqual([]);
    // And the numbers are what was used.
    expect(await creditCounter(cost, { workspace_id: who.workspaceId })).toBe(5 * COST);
    expect((await new WorkspaceBudgetRepository().read(who.workspaceId))!.currentUsage).toBe(5 * COST);
  }, 120_000);
});
