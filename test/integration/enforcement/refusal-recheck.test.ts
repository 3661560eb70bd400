import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyRepository } from '../../../shared/store/policy-repository.js';
import { WorkspaceRepository } from '../../../shared/store/workspace-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { createKey } from '../control-plane/policies-support.js';
import { chat, createPolicy, creditCounter, eventually, viaMock } from './enforcement-support.js';

// A policy cache far longer than the test, and changes written straight to the store (as a control-plane
// Lambda in another process would): only the re-check of a refusal can notice them.
const pricingDir = mkdtempSync(join(tmpdir(), 'gw-enforcement-recheck-'));
writeFileSync(join(pricingDir, 'openai.json'), JSON.stringify({ models: { 'recheck-model': { input_per_mtok: 100_000, output_per_mtok: 50_000 } } }));

let gateway: TestGateway;
let upstream: MockUpstream;

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway({ GW_POLICY_CACHE_TTL_MS: '300000', MODEL_CONFIGS_PRICING_LOCAL_PATH: pricingDir });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  rmSync(pricingDir, { recursive: true, force: true });
});

async function tenant(name: string, creditLimit?: number) {
  const response = await fetch(`${gateway.url}/v1/workspaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey },
    body: JSON.stringify({ name, ...(creditLimit === undefined ? {} : { budget: { credit_limit: creditLimit } }) }),
  });
  const { id } = (await response.json()) as { id: string };
  const key = await createKey({ organisationId: gateway.bootstrap.organisationId, workspaceId: id, scopes: ['completions:write'] });
  return { workspaceId: id, send: (metadata: Record<string, string> = {}) => chat(gateway, { ...viaMock(upstream, metadata), 'x-gw-api-key': key.raw }, { model: 'recheck-model', messages: [{ role: 'user', content: 'Hi' }] }) };
}

describe('a refusal is re-checked against the store, never made from memory alone', () => {
  it('a budget limit raised in another process admits the next request, whatever the cache holds', async () => {
    const who = await tenant('recheck budget', 1.5);
    expect((await who.send()).status).toBe(200);
    await eventually(async () => ((await new WorkspaceRepository().getWorkspace(who.workspaceId))?.budget_status === 'exhausted' ? true : undefined), 'exhausted');
    expect((await who.send()).status).toBe(412);
    await new WorkspaceRepository().setCreditLimit(who.workspaceId, 5, new Date().toISOString());
    expect((await who.send()).status).toBe(200);
  });

  it('a usage limit raised in another process admits the next request', async () => {
    const who = await tenant('recheck usage limit');
    const policy = await createPolicy(gateway, 'usage-limits', {
      name: 'recheck credit',
      conditions: [{ key: 'workspace_id', value: '*' }],
      group_by: [{ key: 'workspace_id' }],
      type: 'requests',
      unit: 'rpd',
      value: 1_000,
      credit_limit: { type: 'cost', value: 1 },
      workspace_id: who.workspaceId,
    });
    expect((await who.send()).status).toBe(200);
    await eventually(async () => ((await creditCounter(policy, { workspace_id: who.workspaceId })) === 1.5 ? true : undefined), 'the charge');
    expect((await who.send()).status).toBe(412);
    const repository = new PolicyRepository();
    await repository.replace({ ...policy, credit_limit: { type: 'cost', value: 10 }, version: policy.version + 1 }, policy.version);
    expect((await who.send()).status).toBe(200);
  });
});
