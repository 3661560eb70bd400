import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { returnAllQuotaLeases } from '../../../shared/gateway/enforcement/quota-leases.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { settings } from '../../../shared/settings.js';
import { WorkspaceRepository } from '../../../shared/store/workspace-repository.js';
import { startTestGateway, TEST_ADMIN_KEY, type TestGateway } from '../../support/gateway.js';
import { watchGwStartup } from '../../support/local-process.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { createKey } from '../control-plane/policies-support.js';
import { concurrently, createPolicy, creditCounter, eventually, rateCounter, type Answer, adminCall } from './enforcement-support.js';
import { providerCounter } from './provider-support.js';

// Issue #41: many gw processes share one store, as Lambda instances do. Four gw processes (this test's own and
// three `npm start` processes pointed at its store with GW_DYNAMODB_ENDPOINT, sharing its secret directory as
// Lambdas share Secrets Manager) take 200 concurrent requests spread over them; every limit kind holds to at
// most one request over, and nothing reserved is left once they settled.
//
// Prices: the OpenAI mock's 9 prompt + 12 completion tokens cost $1.50 under the local price below; the estimate
// of a request with max_tokens 20 (5 prompt tokens + 20) is $1.50 too, an upper bound of its real cost.
const MODEL = 'multi-model';
const COST_PER_REQUEST = 1.5;
const TOKENS_PER_REQUEST = 21;
const CONCURRENCY = 200;
const PROCESSES = 4;

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
const pricingDir = tempDir('gw-multi-pricing-');
writeFileSync(join(pricingDir, 'openai.json'), JSON.stringify({ models: { [MODEL]: { input_per_mtok: 100_000, output_per_mtok: 50_000 } } }));
// Quota leases (issue #48) another process holds stay counted until it gives them back, after 1 s idle here.
const sharedEnv = { GW_POLICY_CACHE_TTL_MS: '100', MODEL_CONFIGS_PRICING_LOCAL_PATH: pricingDir, GW_QUOTA_LEASE_IDLE_MS: '1000' };

let gateway: TestGateway;
let upstream: MockUpstream;
const children: ChildProcess[] = [];
const urls: string[] = [];

/** infra/local/main.ts as `npm start` runs it, on the given store, in a process group of its own. */
async function startGwOn(storeEndpoint: string): Promise<string> {
  // This process's own log database and store settings are not for the other gw; its secret directory is.
  const { GW_LOG_DUCKDB_PATH: _logs, GW_CHARGE_JOURNAL_DIR: _journal, GW_BLOB_DIR: _blobs, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
    env: {
      ...inherited,
      ...sharedEnv,
      PORT: '0',
      GW_DATA_DIR: tempDir('gw-multi-data-'),
      GW_DYNAMODB_ENDPOINT: storeEndpoint,
      GW_BOOTSTRAP_API_KEY: TEST_ADMIN_KEY,
      GW_LOCAL_SCHEDULE_INTERVAL_MS: '0',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  return watchGwStartup(child as ChildProcess & { stdout: NonNullable<ChildProcess['stdout']>; stderr: NonNullable<ChildProcess['stderr']> }).listening;
}

beforeAll(async () => {
  const answer = openAIMockHandler();
  // Answers are held a moment so the requests overlap at admission in every process.
  upstream = await startMockUpstream(async (request) => ({ ...(await answer(request)), delayMs: 20 }));
  gateway = await startTestGateway(sharedEnv);
  const storeEndpoint = settings().GW_DYNAMODB_ENDPOINT!;
  urls.push(gateway.url, ...(await Promise.all(Array.from({ length: PROCESSES - 1 }, () => startGwOn(storeEndpoint)))));
}, 180_000);

afterAll(async () => {
  for (const child of children) {
    if (child.pid === undefined || child.exitCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
  await gateway?.close();
  await upstream?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 60_000);

interface Tenant {
  workspaceId: string;
  key: string;
  keyId: string;
  virtualKey: string;
}

const admin = <T>(method: string, path: string, body: unknown): Promise<T> => adminCall<T>(gateway, method, path, body);

async function tenant(name: string, budget?: Record<string, unknown>): Promise<Tenant> {
  const created = await admin<{ id: string }>('POST', '/v1/workspaces', { name, ...(budget ? { budget } : {}) });
  const key = await createKey({ organisationId: gateway.bootstrap.organisationId, workspaceId: created.id, scopes: ['completions:write'] });
  const virtualKey = await admin<{ id: string }>('POST', `/v1/virtual-keys?workspace_id=${created.id}`, { name: `${name} key`, provider: 'openai', credential: 'sk-multi', custom_host: upstream.url });
  return { workspaceId: created.id, key: key.raw, keyId: key.id, virtualKey: virtualKey.id };
}

/** Request `index` goes to process `index % 4`. */
async function send(index: number, who: Tenant, headers: Record<string, string> = { 'x-gw-virtual-key': who.virtualKey }): Promise<Answer> {
  const response = await fetch(`${urls[index % urls.length]}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': who.key, ...headers },
    body: JSON.stringify({ model: MODEL, max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : { text } };
}

function admittedOf(answers: Answer[], refusal: number): number {
  for (const answer of answers) expect([200, refusal], JSON.stringify(answer.body)).toContain(answer.status);
  const admitted = answers.filter((answer) => answer.status === 200).length;
  expect(admitted).toBeGreaterThan(0);
  // Every process took part.
  for (let process = 0; process < PROCESSES; process++) expect(answers.some((answer, index) => index % PROCESSES === process && [200, refusal].includes(answer.status))).toBe(true);
  return admitted;
}

/** Charges land in the background of each process: waits until `read` stops changing and equals `expected`. */
async function settlesAt(read: () => Promise<number>, expected: number, what: string): Promise<number> {
  await drainAllBackgroundWork();
  return eventually(async () => {
    const value = await read();
    return value === expected ? value : undefined;
  }, `${what} = ${expected}`);
}

const POLICY_BASE = { conditions: [{ key: 'workspace_id', value: '*' }], group_by: [{ key: 'workspace_id' }] };

describe(`${PROCESSES} gw processes on one store: every limit kind holds to at most one request over`, { timeout: 300_000 }, () => {
  it('the workspace budget (room for 10 answers, virtual key)', async () => {
    const limit = 10 * COST_PER_REQUEST;
    const who = await tenant('multi budget', { credit_limit: limit });
    const admitted = admittedOf(await concurrently(CONCURRENCY, (index) => send(index, who)), 412);
    expect(admitted).toBeLessThanOrEqual(11);
    const usage = await settlesAt(async () => (await new WorkspaceRepository().getWorkspace(who.workspaceId))?.budget_current_usage ?? 0, admitted * COST_PER_REQUEST, 'budget usage');
    expect(usage).toBeLessThanOrEqual(limit + COST_PER_REQUEST);
  });

  it('a requests rate limit of 50: exactly at most 50', async () => {
    const who = await tenant('multi requests');
    const policy = await createPolicy(gateway, 'rate-limits', { ...POLICY_BASE, name: 'multi fifty', type: 'requests', unit: 'rpd', value: 50, workspace_id: who.workspaceId });
    const admitted = admittedOf(await concurrently(CONCURRENCY, (index) => send(index, who)), 429);
    expect(admitted).toBe(50);
    expect(await rateCounter(policy, { workspace_id: who.workspaceId })).toBe(50);
  });

  it('a tokens rate limit of 210 tokens (10 answers)', async () => {
    const who = await tenant('multi tokens');
    const policy = await createPolicy(gateway, 'rate-limits', { ...POLICY_BASE, name: 'multi tokens', type: 'tokens', unit: 'rpd', value: 10 * TOKENS_PER_REQUEST, workspace_id: who.workspaceId });
    const admitted = admittedOf(await concurrently(CONCURRENCY, (index) => send(index, who)), 429);
    expect(admitted).toBeLessThanOrEqual(11);
    await settlesAt(() => rateCounter(policy, { workspace_id: who.workspaceId }), admitted * TOKENS_PER_REQUEST, 'tokens counter');
  });

  it('a cost usage limit (room for 10 answers)', async () => {
    const who = await tenant('multi cost');
    const policy = await createPolicy(gateway, 'usage-limits', {
      ...POLICY_BASE,
      name: 'multi cost',
      type: 'requests',
      unit: 'rpd',
      value: 100_000,
      credit_limit: { type: 'cost', value: 10 * COST_PER_REQUEST },
      periodic_reset: 'monthly',
      workspace_id: who.workspaceId,
    });
    const admitted = admittedOf(await concurrently(CONCURRENCY, (index) => send(index, who)), 412);
    expect(admitted).toBeLessThanOrEqual(11);
    await settlesAt(() => creditCounter(policy, { workspace_id: who.workspaceId }), admitted * COST_PER_REQUEST, 'cost counter');
  });

  it('a tokens usage limit (10 answers)', async () => {
    const who = await tenant('multi credit tokens');
    const policy = await createPolicy(gateway, 'usage-limits', {
      ...POLICY_BASE,
      name: 'multi credit tokens',
      type: 'requests',
      unit: 'rpd',
      value: 100_000,
      credit_limit: { type: 'tokens', value: 10 * TOKENS_PER_REQUEST },
      periodic_reset: 'none',
      workspace_id: who.workspaceId,
    });
    const admitted = admittedOf(await concurrently(CONCURRENCY, (index) => send(index, who)), 412);
    expect(admitted).toBeLessThanOrEqual(11);
    await settlesAt(() => creditCounter(policy, { workspace_id: who.workspaceId }), admitted * TOKENS_PER_REQUEST, 'tokens credit counter');
  });

  it('amount leases: a budget, a cost usage limit and a tokens rate limit with room for many answers are leased, and still end at most one answer over', async () => {
    // Room for 80 answers under the cost limit: shares are taken (an eighth of what is left, up to 4 estimates at
    // first) and shrink to exact reservations near the limit (amount-leases.ts).
    const who = await tenant('multi leased', { credit_limit: 100 * COST_PER_REQUEST });
    const cost = await createPolicy(gateway, 'usage-limits', { ...POLICY_BASE, name: 'multi leased cost', type: 'requests', unit: 'rpd', value: 100_000, credit_limit: { type: 'cost', value: 80 * COST_PER_REQUEST }, periodic_reset: 'monthly', workspace_id: who.workspaceId });
    const tokens = await createPolicy(gateway, 'rate-limits', { ...POLICY_BASE, name: 'multi leased tokens', type: 'tokens', unit: 'rpd', value: 400 * TOKENS_PER_REQUEST, workspace_id: who.workspaceId });
    const admitted = admittedOf(await concurrently(CONCURRENCY, (index) => send(index, who)), 412);
    expect(admitted).toBeLessThanOrEqual(81);
    // Every process gives its unused shares back once it idles (1 s here); this one at once.
    await returnAllQuotaLeases();
    await settlesAt(() => creditCounter(cost, { workspace_id: who.workspaceId }), admitted * COST_PER_REQUEST, 'leased cost counter');
    await settlesAt(() => rateCounter(tokens, { workspace_id: who.workspaceId }), admitted * TOKENS_PER_REQUEST, 'leased tokens counter');
    await settlesAt(async () => (await new WorkspaceRepository().getWorkspace(who.workspaceId))?.budget_current_usage ?? 0, admitted * COST_PER_REQUEST, 'leased budget usage');
  });

  it('a workspace provider’s budget and requests limit (x-gw-provider: @slug)', async () => {
    const who = await tenant('multi provider');
    const slug = `multi-${Date.now()}`;
    const integration = await admin<{ id: string }>('POST', '/v1/integrations', {
      name: `integration ${slug}`,
      slug: `int-${slug}`,
      provider: 'openai',
      credential: 'sk-multi-stored',
      custom_host: upstream.url,
      shared_with_workspaces: [who.workspaceId],
    });
    const provider = await admin<{ id: string; slug: string }>('POST', `/v1/providers?workspace_id=${who.workspaceId}`, {
      integration_id: integration.id,
      slug,
      budget: { limit_usd: 10 * COST_PER_REQUEST, period: 'monthly' },
      rate_limits: [{ type: 'requests', unit: 'rpd', value: 150 }],
    });
    const ref = { id: provider.id, slug, integrationId: integration.id, integrationSlug: `int-${slug}` };
    const admitted = admittedOf(await concurrently(CONCURRENCY, (index) => send(index, who, { 'x-gw-provider': `@${slug}` })), 412);
    expect(admitted).toBeLessThanOrEqual(11);
    await settlesAt(() => providerCounter(ref, { budget: 'monthly' }), admitted * COST_PER_REQUEST, 'provider budget');
    // The refused requests gave their slots back; the other processes' unused leases go back once they idle.
    await settlesAt(() => providerCounter(ref, { type: 'requests', unit: 'rpd' }), admitted, 'provider requests counter');
  });
});
