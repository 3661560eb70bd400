import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReconcileReport, reconcile, type ReconcileReport } from '../../../shared/gateway/enforcement/reconcile.js';
import { returnAllQuotaLeases } from '../../../shared/gateway/enforcement/quota-leases.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { WorkspaceBudgetRepository } from '../../../shared/store/workspace-budget-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { openAIDialectsMockHandler } from '../../support/mock-openai-dialects.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { createKey } from '../control-plane/policies-support.js';
import { concurrently, eventually, type Answer, adminCall, postAs } from './enforcement-support.js';

// Issue #41, proof that the numbers agree: after a concurrent mixed load (chat, streamed chat, Responses,
// embeddings, an unpriced model; some refused by the budget), analytics' totals equal the sum of the logged
// requests, and the workspace budget was charged exactly what they cost. Prices with many decimals, so a sum
// of doubles would drift where gw's fixed-point sums do not.
const MODEL = 'reconcile-model';
const UNPRICED_MODEL = 'reconcile-model-nobody-prices';
const pricingDir = mkdtempSync(join(tmpdir(), 'gw-reconcile-'));
writeFileSync(join(pricingDir, 'openai.json'), JSON.stringify({ models: { [MODEL]: { input_per_mtok: 0.1234567, output_per_mtok: 3.3333333 } } }));

let gateway: TestGateway;
let upstream: MockUpstream;
beforeAll(async () => {
  const dialects = openAIDialectsMockHandler();
  const embeddings = openAIMockHandler();
  upstream = await startMockUpstream(async (request) => ({ ...(await (request.path.endsWith('/embeddings') ? embeddings(request) : dialects(request))), delayMs: 10 }));
  gateway = await startTestGateway({ GW_POLICY_CACHE_TTL_MS: '100', MODEL_CONFIGS_PRICING_LOCAL_PATH: pricingDir });
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  rmSync(pricingDir, { recursive: true, force: true });
});

const admin = <T>(method: string, path: string, body: unknown): Promise<T> => adminCall<T>(gateway, method, path, body);

const post = (key: string, path: string, body: unknown, headers: Record<string, string>): Promise<Answer> => postAs(gateway, key, path, body, headers);

/** A mixed load of `count` requests at once through a virtual key. */
async function mixedLoad(key: string, virtualKey: string, count: number): Promise<Answer[]> {
  const headers = { 'x-gw-virtual-key': virtualKey };
  return concurrently(count, (index) => {
    switch (index % 5) {
      case 0:
        return post(key, '/v1/chat/completions', { model: MODEL, max_tokens: 30, messages: [{ role: 'user', content: `Hi ${index}` }] }, headers);
      case 1:
        return post(key, '/v1/chat/completions', { model: MODEL, max_tokens: 30, stream: true, messages: [{ role: 'user', content: `Hi ${index}` }] }, headers);
      case 2:
        return post(key, '/v1/responses', { model: MODEL, max_output_tokens: 30, input: `Hi ${index}` }, headers);
      case 3:
        return post(key, '/v1/embeddings', { model: MODEL, input: `text ${index}` }, headers);
      default:
        return post(key, '/v1/chat/completions', { model: UNPRICED_MODEL, max_tokens: 30, messages: [{ role: 'user', content: `Hi ${index}` }] }, headers);
    }
  });
}

/** Reconciles once every answered request's log record is in the engine. */
async function reconciled(workspaceId: string, from: string, answered: number): Promise<ReconcileReport> {
  return eventually(async () => {
    await drainAllBackgroundWork();
    // A live lease counts as used until given back (docs/enforcement.md): reconcile reads after they went back.
    await returnAllQuotaLeases();
    const report = await reconcile({ workspaceId, from, to: new Date(Date.now() + 60_000).toISOString() });
    return report.logged.requests >= answered ? report : undefined;
  }, `${answered} logged requests`);
}

describe('reconciliation: analytics, request logs and budget charges agree', { timeout: 240_000 }, () => {
  it('after a concurrent mixed load, with some requests refused by the budget, the numbers agree to 1e-10 USD', async () => {
    const from = new Date(Date.now() - 1_000).toISOString();
    const workspace = await admin<{ id: string }>('POST', '/v1/workspaces', { name: 'reconcile load', budget: { credit_limit: 0.01 } });
    const key = await createKey({ organisationId: gateway.bootstrap.organisationId, workspaceId: workspace.id, scopes: ['completions:write'] });
    const virtualKey = await admin<{ id: string }>('POST', `/v1/virtual-keys?workspace_id=${workspace.id}`, { name: 'reconcile key', provider: 'openai', credential: 'sk-reconcile', custom_host: upstream.url });

    const answers = await mixedLoad(key.raw, virtualKey.id, 150);
    for (const answer of answers) expect([200, 412]).toContain(answer.status);
    // Refused requests are logged too (with no cost): every answer has its record.
    const report = await reconciled(workspace.id, from, answers.length);
    expect(formatReconcileReport(report)).toContain('the numbers agree');
    expect(report.differences).toEqual([]);
    expect(report.logged.requests).toBe(answers.length);
    expect(report.logged.unpricedRequests).toBeGreaterThan(0);
    expect('charged' in report.budget && report.budget.charged).toBeGreaterThan(0);
    expect(answers.some((answer) => answer.status === 412)).toBe(true);
  });

  it('prints a charge the logs cannot account for as a difference', async () => {
    const from = new Date(Date.now() - 1_000).toISOString();
    const workspace = await admin<{ id: string }>('POST', '/v1/workspaces', { name: 'reconcile drift', budget: { credit_limit: 100 } });
    const key = await createKey({ organisationId: gateway.bootstrap.organisationId, workspaceId: workspace.id, scopes: ['completions:write'] });
    const virtualKey = await admin<{ id: string }>('POST', `/v1/virtual-keys?workspace_id=${workspace.id}`, { name: 'drift key', provider: 'openai', credential: 'sk-reconcile', custom_host: upstream.url });
    const answers = await mixedLoad(key.raw, virtualKey.id, 10);
    expect((await reconciled(workspace.id, from, answers.length)).differences).toEqual([]);

    // A charge no request explains (a lost settlement, a double charge) is found and named.
    await new WorkspaceBudgetRepository().charge(workspace.id, 0.0000000003, new Date());
    const report = await reconcile({ workspaceId: workspace.id, from, to: new Date(Date.now() + 60_000).toISOString() });
    expect(report.differences).toHaveLength(1);
    expect(report.differences[0]).toMatch(/^workspace budget \(charged ≠ logged cost \+ unpriced tokens at default rates\): \$[\d.]+ ≠ \$[\d.]+$/);
    expect(formatReconcileReport(report)).toContain('1 difference(s)');
  });

  it('says why the budget is not compared when the range does not cover its period', async () => {
    const workspace = await admin<{ id: string }>('POST', '/v1/workspaces', { name: 'reconcile partial', budget: { credit_limit: 100 } });
    const report = await reconcile({ workspaceId: workspace.id, from: new Date(Date.now() + 3_600_000).toISOString(), to: new Date(Date.now() + 7_200_000).toISOString() });
    expect(report.budget).toEqual({ skipped: expect.stringContaining('before --from') });
    expect(report.differences).toEqual([]);
  });
});
