import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReconcileReport, reconcile, type ReconcileReport } from '../../../shared/gateway/enforcement/reconcile.js';
import { resetPeriod } from '../../../shared/gateway/enforcement/windows.js';
import { returnAllQuotaLeases } from '../../../shared/gateway/enforcement/quota-leases.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { sumUsd } from '../../../shared/observability/pricing/usd.js';
import { CounterRepository, counterKey } from '../../../shared/store/counter-repository.js';
import type { PolicyRecord } from '../../../shared/store/policy-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { openAIDialectsMockHandler } from '../../support/mock-openai-dialects.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { createKey } from '../control-plane/policies-support.js';
import { startMediaMock, type MediaMock } from '../passthrough/media-mock.js';
import { concurrently, createPolicy, eventually, viaMock, type Answer, adminCall, postAs } from './enforcement-support.js';
import { createWorkspaceProvider, type WorkspaceProvider } from './provider-support.js';

// Issue #41, proof that the numbers agree for every limit, not only the workspace budget: after a concurrent
// mixed load (chat, Responses, Messages, prompt completions, pass-through, embeddings; streamed and not; through a
// header provider, virtual keys, an inline config and a workspace provider; two API keys), every counter of cost or
// tokens (usage limits of cost and of tokens, tokens rate limits grouped by API key, user or virtual key, a
// workspace provider's budget and tokens limit) holds exactly what the logged requests used. Then the two ways
// money goes wrong are each found and named: a charge without a log, and a log without a charge.
const MODEL = 'limits-model';
const pricingDir = mkdtempSync(join(tmpdir(), 'gw-reconcile-limits-'));
writeFileSync(join(pricingDir, 'openai.json'), JSON.stringify({ models: { [MODEL]: { input_per_mtok: 0.1234567, output_per_mtok: 3.3333333 } } }));

let gateway: TestGateway;
let upstream: MockUpstream;
let media: MediaMock;
let from: string;
beforeAll(async () => {
  from = new Date(Date.now() - 1_000).toISOString();
  const dialects = openAIDialectsMockHandler();
  const embeddings = openAIMockHandler();
  upstream = await startMockUpstream(async (request) => ({ ...(await (request.path.endsWith('/embeddings') ? embeddings(request) : dialects(request))), delayMs: 10 }));
  media = await startMediaMock();
  gateway = await startTestGateway({ GW_POLICY_CACHE_TTL_MS: '100', MODEL_CONFIGS_PRICING_LOCAL_PATH: pricingDir });
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await media?.close();
  rmSync(pricingDir, { recursive: true, force: true });
});

const admin = <T>(method: string, path: string, body: unknown): Promise<T> => adminCall<T>(gateway, method, path, body);

const post = (key: string, path: string, body: unknown, headers: Record<string, string>): Promise<Answer> => postAs(gateway, key, path, body, headers);

interface Setup {
  keys: [string, string];
  virtualKey: string;
  mediaKey: string;
  promptId: string;
  provider: WorkspaceProvider;
  policies: Record<'cost' | 'vkTokens' | 'userTokens' | 'providerTokens', PolicyRecord>;
}

let setup: Setup;

/** The bootstrap workspace (workspace providers live there) with a budget, every kind of cost or tokens limit, and two callers. */
async function limitsEverywhere(): Promise<Setup> {
  const workspaceId = gateway.bootstrap.workspaceId;
  await admin('PATCH', `/v1/workspaces/${workspaceId}`, { budget: { credit_limit: 1_000 } });
  const keys = await Promise.all([1, 2].map(() => createKey({ organisationId: gateway.bootstrap.organisationId, workspaceId, scopes: ['completions:write', 'prompts:render'] })));
  const virtualKey = await admin<{ id: string }>('POST', `/v1/virtual-keys?workspace_id=${workspaceId}`, { name: 'limits vk', provider: 'openai', credential: 'sk-limits', custom_host: upstream.url });
  const mediaKey = await admin<{ id: string }>('POST', `/v1/virtual-keys?workspace_id=${workspaceId}`, { name: 'limits media vk', provider: 'openai', credential: 'sk-media', custom_host: media.url });
  const prompt = await admin<{ id: string }>('POST', `/v1/prompts?workspace_id=${workspaceId}`, { name: 'limits prompt', messages: [{ role: 'user', content: 'Say hi to {{name}}' }], model: MODEL, hyperparameters: { max_tokens: 30 } });
  const provider = await createWorkspaceProvider(gateway, upstream.url, 'limits-provider', { budget: { limit_usd: 1_000, period: 'monthly' }, rate_limits: [{ type: 'tokens', unit: 'rpd', value: 10_000_000 }] });
  const large = { type: 'requests', unit: 'rpd', value: 1_000_000 };
  const policies = {
    cost: await createPolicy(gateway, 'usage-limits', { name: 'limits cost per key', conditions: [{ key: 'workspace_id', value: '*' }], group_by: [{ key: 'api_key' }], ...large, credit_limit: { type: 'cost', value: 1_000 }, periodic_reset: 'monthly' }),
    vkTokens: await createPolicy(gateway, 'usage-limits', { name: 'limits vk tokens', conditions: [{ key: 'virtual_key', value: virtualKey.id }], group_by: [{ key: 'virtual_key' }], ...large, credit_limit: { type: 'tokens', value: 10_000_000 } }),
    userTokens: await createPolicy(gateway, 'rate-limits', { name: 'limits user tokens', conditions: [{ key: 'metadata._user', value: '*' }], group_by: [{ key: 'metadata._user' }], type: 'tokens', unit: 'rpd', value: 10_000_000 }),
    providerTokens: await createPolicy(gateway, 'rate-limits', { name: 'limits @provider tokens', conditions: [{ key: 'provider', value: `@${provider.slug}` }], group_by: [{ key: 'provider' }], type: 'tokens', unit: 'rph', value: 10_000_000 }),
  };
  return { keys: [keys[0].raw, keys[1].raw], virtualKey: virtualKey.id, mediaKey: mediaKey.id, promptId: prompt.id, provider, policies };
}

/** Every entry point that uses tokens, streamed and not, over every credential path, from two keys and three users. */
function mixedLoad(count: number): Promise<Answer[]> {
  return concurrently(count, (index) => {
    const key = setup.keys[index % 2];
    const metadata = JSON.stringify({ _user: `user-${index % 3}` });
    const vk = { 'x-gw-virtual-key': setup.virtualKey, 'x-gw-metadata': metadata };
    const stream = index % 16 >= 8;
    switch (index % 8) {
      case 0:
        return post(key, '/v1/chat/completions', { model: MODEL, max_tokens: 30, stream, messages: [{ role: 'user', content: `Hi ${index}` }] }, vk);
      case 1:
        return post(key, '/v1/responses', { model: MODEL, max_output_tokens: 30, stream, input: `Hi ${index}` }, vk);
      case 2:
        return post(key, '/v1/messages', { model: MODEL, max_tokens: 30, stream, messages: [{ role: 'user', content: `Hi ${index}` }] }, viaMock(upstream, { _user: `user-${index % 3}` }));
      case 3:
        return post(key, `/v1/prompts/${setup.promptId}/completions`, { variables: { name: `Ada ${index}` }, stream }, vk);
      case 4:
        return post(key, '/v1/images/generations', { model: 'gpt-image-1', prompt: `fox ${index}` }, { 'x-gw-virtual-key': setup.mediaKey, 'x-gw-metadata': metadata });
      case 5:
        return post(key, '/v1/chat/completions', { model: MODEL, max_tokens: 30, stream, messages: [{ role: 'user', content: `Hi ${index}` }] }, { 'x-gw-provider': `@${setup.provider.slug}`, 'x-gw-metadata': metadata });
      case 6:
        return post(key, '/v1/embeddings', { model: MODEL, input: `text ${index}` }, { 'x-gw-config': JSON.stringify({ virtual_key: setup.virtualKey }), 'x-gw-metadata': metadata });
      default:
        return post(key, '/v1/chat/completions', { model: 'limits-model-nobody-prices', max_tokens: 30, stream, messages: [{ role: 'user', content: `Hi ${index}` }] }, vk);
    }
  });
}

async function reconciled(answered: number): Promise<ReconcileReport> {
  return eventually(async () => {
    await drainAllBackgroundWork();
    // A live lease counts as used until given back (docs/enforcement.md): reconcile reads after they went back.
    await returnAllQuotaLeases();
    const report = await reconcile({ workspaceId: gateway.bootstrap.workspaceId, from });
    return report.logged.requests >= answered ? report : undefined;
  }, `${answered} logged requests`);
}

describe('reconciliation of every limit counter', { timeout: 240_000 }, () => {
  it('after a concurrent mixed load over every entry point and credential path, every cost and tokens counter agrees with the logs', async () => {
    setup = await limitsEverywhere();
    const answers = await mixedLoad(96);
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    const report = await reconciled(answers.length);
    expect(report.differences, formatReconcileReport(report)).toEqual([]);
    expect(report.limits.skipped).toEqual([]);
    // Every limit was compared, and each holds what the load used (none is a trivial 0 = 0).
    const compared = (name: string) => report.limits.compared.filter((comparison) => comparison.limit.includes(name));
    for (const name of ['limits cost per key', 'limits vk tokens', 'limits user tokens', 'limits @provider tokens', `provider @${setup.provider.slug} budget`, `provider @${setup.provider.slug} tokens per rpd`]) {
      expect(compared(name).length, name).toBeGreaterThan(0);
      expect(compared(name).some((comparison) => comparison.charged > 0), name).toBe(true);
    }
    // Grouped limits are compared per group: two API keys, three users.
    expect(new Set(compared('limits cost per key').map((comparison) => comparison.group)).size).toBe(2);
    expect(new Set(compared('limits user tokens').map((comparison) => comparison.group)).size).toBe(3);
    expect('charged' in report.budget && report.budget.charged).toBeGreaterThan(0);
  });

  it('names a charge without a log and a log without a charge (a counter skewed either way)', async () => {
    const now = Date.now();
    const provider = setup.provider;
    const period = resetPeriod('monthly', now);
    // A charge no request explains: $0.0000000007 more on the workspace provider's budget.
    await new CounterRepository().add({ pk: counterKey(`provider-${provider.id}`, 'credit', 'usd', period.id), windowEnd: period.end }, 0.0000000007);
    // A request whose charge was lost: 5 tokens fewer on the virtual key's tokens limit than its logs used.
    const policy = setup.policies.vkTokens;
    const { groupOf } = await import('../../../shared/gateway/enforcement/policy-match.js');
    const group = groupOf(policy, (key) => (key === 'virtual_key' ? setup.virtualKey : undefined));
    await new CounterRepository().add({ pk: counterKey(policy.id, 'credit', group.hash, 'all'), windowEnd: Number.POSITIVE_INFINITY }, -5);

    const report = await reconcile({ workspaceId: gateway.bootstrap.workspaceId, from });
    expect(report.differences).toHaveLength(2);
    expect(report.differences).toContainEqual(expect.stringMatching(new RegExp(`^provider @${provider.slug} budget, period from \\S+: charged \\$[\\d.]+ ≠ logged \\$[\\d.]+$`)));
    expect(report.differences).toContainEqual(expect.stringMatching(new RegExp(`^policy "limits vk tokens" \\(${policy.id}\\) tokens limit, since it was created, virtual_key=${setup.virtualKey}: charged \\d+ tokens ≠ logged \\d+ tokens$`)));
    const skewed = report.limits.compared.find((comparison) => comparison.limit.startsWith('policy "limits vk tokens"'))!;
    expect(skewed.logged - skewed.charged).toBe(5);
    expect(formatReconcileReport(report)).toContain('2 difference(s)');
  });

  it('crash: a lease record a stopped process left on a counter is given back by reconcile, and a live one is named in the difference', async () => {
    const period = resetPeriod('monthly', Date.now());
    const key = { pk: counterKey(`provider-${setup.provider.id}`, 'credit', 'usd', period.id), windowEnd: period.end };
    const counters = new CounterRepository();
    const before = await counters.read(key, Date.now());
    // Two leases taken the way a gw process takes them: one whose process stopped long ago, one live.
    expect((await counters.incrementIfFits(key, 0.25, 1e9, { id: 'stopped', expiresAt: 1, renewal: false })).admitted).toBe(true);
    expect((await counters.incrementIfFits(key, 0.5, 1e9, { id: 'live', expiresAt: Date.now() + 60_000, renewal: false })).admitted).toBe(true);

    const report = await reconcile({ workspaceId: gateway.bootstrap.workspaceId, from });
    const budget = report.limits.compared.find((comparison) => comparison.limit === `provider @${setup.provider.slug} budget`)!;
    expect(budget.leases).toEqual({ held: 0.5, reclaimed: 0.25 });
    expect(budget.charged).toBe(sumUsd([before, 0.5]));
    expect(report.differences).toContainEqual(expect.stringContaining('(live leases hold $0.5)'));
    expect(formatReconcileReport(report)).toContain(`gave back 0.25 USD of leases whose process stopped: provider @${setup.provider.slug} budget`);
    expect((await counters.leaseRecords(key)).map((record) => record.id)).toEqual(['live']);
    // The live lease's holder gives it back as a gw process would.
    expect(await counters.writeLease(key, { kind: 'give-back', id: 'live', unused: 0.5 }, 0)).toBe(true);
    expect(await counters.leaseRecords(key)).toEqual([]);
    expect(await counters.read(key, Date.now())).toBe(before);
  });
});
