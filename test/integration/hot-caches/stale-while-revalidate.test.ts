import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { hashApiKey } from '../../../shared/auth/api-key-secrets.js';
import { ApiKeyRepository } from '../../../shared/store/api-key-repository.js';
import { ConfigRepository } from '../../../shared/store/config-repository.js';
import { PolicyRepository, type PolicyRecord } from '../../../shared/store/policy-repository.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { call } from '../control-plane/policies-support.js';
import { chat, eventually, viaMock } from '../enforcement/enforcement-support.js';
import { createKeyDirectly, installStoreReadGate, revokeElsewhere, sleep, type StoreReadGate } from './hot-cache-support.js';

/**
 * Stale-while-revalidate through the real gateway (issue #23): short TTLs and a long maximum staleness, so an
 * entry past its TTL is served from memory while one background read refreshes it. Changes are written to the
 * store directly, as another process would make them, so this process's forget-after-change hooks do not help.
 */
const TTL_MS = 200;
let gateway: TestGateway;
let upstream: MockUpstream;
let gate: StoreReadGate;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started), {
  GW_AUTH_CACHE_TTL_MS: String(TTL_MS),
  GW_POLICY_CACHE_TTL_MS: String(TTL_MS),
  GW_CONFIG_CACHE_TTL_MS: String(TTL_MS),
  GW_CACHE_MAX_STALE_MS: '600000',
});
beforeAll(() => {
  gate = installStoreReadGate();
});

describe('hot caches past their TTL', () => {
  it('answer the first request after the TTL with no store read before the response, then refresh in the background', async () => {
    const { raw, record } = await createKeyDirectly(gateway);
    const headers = { ...viaMock(upstream, { _user: 'swr-key' }), 'x-gw-api-key': raw };
    expect((await chat(gateway, headers)).status).toBe(200);
    await drainAllBackgroundWork();
    await revokeElsewhere(record);
    await sleep(TTL_MS + 50);

    gate.resetCount();
    gate.hold();
    try {
      const answer = await chat(gateway, headers);
      // Served from the stale entries while the refresh reads (API key, policy snapshot) are still held.
      expect(answer.status).toBe(200);
      expect(gate.held(), 'background refreshes were started and are still waiting').toBeGreaterThanOrEqual(1);
      expect(gate.releasedBySafetyTimeout(), 'no read was waited for').toBe(0);
    } finally {
      gate.release();
    }
    // The refresh lands: the key revoked elsewhere is refused from the next request on.
    const refused = await eventually(async () => {
      const next = await chat(gateway, headers);
      return next.status === 401 ? next : undefined;
    }, 'the revocation to take effect');
    expect(refused.body).toMatchObject({ error: { code: 'api_key_revoked' } });
  });

  it('share one background refresh between concurrent requests of a stale entry', async () => {
    const { raw } = await createKeyDirectly(gateway);
    const headers = { ...viaMock(upstream, { _user: 'swr-shared' }), 'x-gw-api-key': raw };
    expect((await chat(gateway, headers)).status).toBe(200);
    await drainAllBackgroundWork();
    await sleep(TTL_MS + 50);

    gate.resetCount();
    gate.hold();
    try {
      const answers = await Promise.all(Array.from({ length: 10 }, () => chat(gateway, headers)));
      expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
      // One read per stale entry, not one per request: the key, the workspace's policies, its budget with its
      // unpriced-models setting (one item, both the enforcement snapshot's), its observability settings
      // (GW_POLICY_CACHE_TTL_MS) and its default guardrails (GW_CONFIG_CACHE_TTL_MS).
      expect(gate.reads()).toBeLessThanOrEqual(5);
      expect(gate.releasedBySafetyTimeout()).toBe(0);
    } finally {
      gate.release();
    }
  });

  it('put a policy created elsewhere in force once the refresh of the stale snapshot lands', async () => {
    const headers = viaMock(upstream, { _user: 'swr-policy' });
    expect((await chat(gateway, headers)).status).toBe(200);
    const now = new Date().toISOString();
    const { workspace_id, organisation_id } = await adminScope(gateway);
    const policy: PolicyRecord = {
      id: `pol-${randomUUID()}`,
      kind: 'rate_limit',
      name: 'swr policy',
      conditions: [{ key: 'metadata._user', value: 'swr-policy' }],
      group_by: [{ key: 'api_key' }],
      type: 'requests',
      unit: 'rpd',
      value: 1,
      status: 'active',
      workspace_id,
      organisation_id,
      created_at: now,
      updated_at: now,
      version: 1,
    };
    await new PolicyRepository().create(policy);
    await sleep(TTL_MS + 50);

    // Within TTL + one refresh: the stale snapshot may admit one more request, then the policy counts.
    const refused = await eventually(async () => {
      const answer = await chat(gateway, headers);
      return answer.status === 429 ? answer : undefined;
    }, 'the new policy to refuse');
    expect(refused.body).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
  });
});

describe('saved configs past GW_CONFIG_CACHE_TTL_MS', () => {
  it('serve the cached version with no store read before the response, then the update once the refresh lands', async () => {
    const target = { provider: 'openai', api_key: 'sk-provider-secret', custom_host: upstream.url };
    const created = await call<{ id: string }>(gateway, 'POST', '/v1/configs', { body: { name: 'swr config', config: { ...target, override_params: { temperature: 0.1 } } } });
    expect(created.status).toBe(201);
    const headers = { 'x-gw-config': created.body.id };
    const temperatureSent = async () => {
      const before = upstream.requests.length;
      expect((await chat(gateway, headers)).status).toBe(200);
      return (upstream.requests[before].json as { temperature?: number }).temperature;
    };
    expect(await temperatureSent()).toBe(0.1);
    await drainAllBackgroundWork();
    // Updated in the store directly, as another instance would: only the TTL brings the update into this process
    // (an update through this process's control plane would drop the cached entry at once).
    await updateConfigElsewhere(created.body.id, { temperature: 0.9 });
    await sleep(TTL_MS + 50);

    gate.resetCount();
    gate.hold();
    try {
      expect(await temperatureSent(), 'the stale version answers while its refresh is held').toBe(0.1);
      expect(gate.held()).toBeGreaterThanOrEqual(1);
      expect(gate.releasedBySafetyTimeout()).toBe(0);
    } finally {
      gate.release();
    }
    await eventually(async () => ((await temperatureSent()) === 0.9 ? true : undefined), 'the updated config to be used');
  });
});

/** A new version of a saved config written to the store as another process would, its sealed credential kept. */
async function updateConfigElsewhere(id: string, overrideParams: Record<string, unknown>): Promise<void> {
  const repository = new ConfigRepository();
  const current = (await repository.get((await adminScope(gateway)).workspace_id, id))!;
  const config = { ...(current.config as Record<string, unknown>), override_params: overrideParams };
  if (!(await repository.update(current, { config, secret_ref: current.secret_ref }, new Date().toISOString()))) throw new Error('the config was not updated');
}

async function adminScope(gateway: TestGateway): Promise<{ workspace_id: string; organisation_id: string }> {
  const record = (await new ApiKeyRepository().findByHash(hashApiKey(gateway.apiKey)))!;
  return { workspace_id: record.workspace_id, organisation_id: record.organisation_id };
}
