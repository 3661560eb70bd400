import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchGetCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { returnAllQuotaLeases } from '../../../shared/gateway/enforcement/quota-leases.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { settings } from '../../../shared/settings.js';
import { BUDGET_COUNTER_SHARDS } from '../../../shared/store/budget-counter-repository.js';
import { dynamoDocumentClient } from '../../../shared/store/dynamo-client.js';
import { keys } from '../../../shared/store/keys.js';
import { MAIN_TABLE, tableName } from '../../../shared/store/table-definitions.js';
import { WorkspaceRepository } from '../../../shared/store/workspace-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { chat, concurrently, eventually, viaMock, createTenant, type Tenant } from './enforcement-support.js';

// Issue #44: a workspace budget's charges go to un-indexed, sharded counter items instead of the workspace item
// (which carries gsi1/gsi2 keys: every write was two billed writes, one item takes ~1,000 writes/s). These tests
// read the store through the real SDK client. The pricing file makes each answer cost $1.50.
const COST_PER_REQUEST = 1.5;
const MODEL = 'counter-model';
const pricingDir = mkdtempSync(join(tmpdir(), 'gw-budget-counters-'));
writeFileSync(join(pricingDir, 'openai.json'), JSON.stringify({ models: { [MODEL]: { input_per_mtok: 100_000, output_per_mtok: 50_000 } } }));

let gateway: TestGateway;
let upstream: MockUpstream;
const table = () => tableName(settings(), MAIN_TABLE);

beforeAll(async () => {
  const answer = openAIMockHandler();
  // Held a moment so concurrent requests overlap at admission.
  upstream = await startMockUpstream(async (request) => ({ ...(await answer(request)), delayMs: 20 }));
  gateway = await startTestGateway({ GW_POLICY_CACHE_TTL_MS: '100', MODEL_CONFIGS_PRICING_LOCAL_PATH: pricingDir });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  rmSync(pricingDir, { recursive: true, force: true });
});

const tenant = (name: string, budget?: Record<string, unknown>): Promise<Tenant> => createTenant(gateway, name, budget);

const send = (who: { key: string }) => chat(gateway, { ...viaMock(upstream), 'x-gw-api-key': who.key }, { model: MODEL, max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] });

async function workspaceItem(workspaceId: string): Promise<Record<string, unknown>> {
  return (await dynamoDocumentClient().send(new GetCommand({ TableName: table(), Key: keys.workspace(workspaceId), ConsistentRead: true }))).Item!;
}

/** The budget counter items of the first period, as stored: the gate and every shard that exists. */
async function counterItems(workspaceId: string): Promise<Array<Record<string, unknown>>> {
  const names = ['gate', ...Array.from({ length: BUDGET_COUNTER_SHARDS }, (_, shard) => String(shard))];
  const result = await dynamoDocumentClient().send(
    new BatchGetCommand({ RequestItems: { [table()]: { Keys: names.map((name) => ({ pk: `BUDGETCTR#${workspaceId}#start#${name}`, sk: 'COUNTER' })), ConsistentRead: true } } }),
  );
  return result.Responses?.[table()] ?? [];
}

// A live lease of the budget's gate (amount-leases.ts) counts as used until it is given back: returned first.
const usageOf = async (workspaceId: string) => {
  await returnAllQuotaLeases();
  return (await new WorkspaceRepository().getWorkspace(workspaceId))?.budget_current_usage ?? 0;
};

describe('workspace budget counters (issue #44)', () => {
  it('write amplification: charges land on un-indexed counter items and never rewrite the indexed workspace item', async () => {
    const who = await tenant('counters land', { credit_limit: 100 });
    const before = await workspaceItem(who.workspaceId);
    for (let index = 0; index < 4; index++) expect((await send(who)).status).toBe(200);
    await drainAllBackgroundWork();
    await eventually(async () => ((await usageOf(who.workspaceId)) === 4 * COST_PER_REQUEST ? true : undefined), 'the four charges');
    // The workspace item (with its gsi1 entry) is exactly as created: no usage, no write.
    expect(await workspaceItem(who.workspaceId)).toEqual(before);
    const items = await counterItems(who.workspaceId);
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      expect(Object.keys(item).filter((name) => name.startsWith('gsi'))).toEqual([]);
    }
    // The API reads the same usage.
    const answer = await fetch(`${gateway.url}/v1/workspaces/${who.workspaceId}`, { headers: { 'x-gw-api-key': gateway.apiKey } });
    expect(((await answer.json()) as { budget: { current_usage: number } }).budget.current_usage).toBe(4 * COST_PER_REQUEST);
  });

  it('hot counter: a budget without a limit batches its charges into few writes on its shards, never the gate', async () => {
    const who = await tenant('counters spread');
    const answers = await concurrently(40, () => send(who));
    for (const answer of answers) expect(answer.status).toBe(200);
    await drainAllBackgroundWork();
    await eventually(async () => ((await usageOf(who.workspaceId)) === 40 * COST_PER_REQUEST ? true : undefined), 'forty charges');
    // Summed in memory and written once per flush (charge-buffer.ts): the store-call count is in amount-leases.test.ts.
    const items = await counterItems(who.workspaceId);
    expect(items.filter((item) => String(item.pk).endsWith('#gate'))).toEqual([]);
    expect(items.length).toBeGreaterThan(0);
  });

  it('migration: usage written on the workspace item before the counters existed still counts toward the limit', async () => {
    const who = await tenant('counters legacy', { credit_limit: 15 });
    await dynamoDocumentClient().send(
      new UpdateCommand({ TableName: table(), Key: keys.workspace(who.workspaceId), UpdateExpression: 'SET budget_current_usage = :usage', ExpressionAttributeValues: { ':usage': 14 } }),
    );
    expect((await send(who)).status).toBe(200);
    await drainAllBackgroundWork();
    await eventually(async () => ((await usageOf(who.workspaceId)) === 14 + COST_PER_REQUEST ? true : undefined), 'the legacy usage plus one charge');
    expect((await send(who)).status).toBe(412);
  });

  it('over-admission: 200 concurrent requests on a budget with room for 10 admit at most one more', async () => {
    const who = await tenant('counters concurrent', { credit_limit: 10 * COST_PER_REQUEST });
    const answers = await concurrently(200, () => send(who));
    for (const answer of answers) expect([200, 412]).toContain(answer.status);
    const admitted = answers.filter((answer) => answer.status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(10);
    expect(admitted).toBeLessThanOrEqual(11);
    await drainAllBackgroundWork();
    await eventually(async () => ((await usageOf(who.workspaceId)) === admitted * COST_PER_REQUEST ? true : undefined), 'the admitted requests charged');
  });
});
