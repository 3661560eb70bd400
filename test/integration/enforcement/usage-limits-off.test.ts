import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { chat, createPolicy, expectedError, storeBudget, storePolicyDirectly, viaMock } from './enforcement-support.js';

// USAGE_LIMITS_ENABLED=OFF: neither usage-limit policies nor the workspace budget are enforced; rate limits are.
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started), { USAGE_LIMITS_ENABLED: 'OFF', GW_POLICY_CACHE_TTL_MS: '0' });

describe('USAGE_LIMITS_ENABLED=OFF', () => {
  it('ignores an exhausted budget and an exhausted usage limit, and still enforces rate limits', async () => {
    await storeBudget(gateway.bootstrap.workspaceId, { creditLimit: 1, usage: 5, status: 'exhausted' });
    // The usage-limit API is off with the flag, so the policy is stored directly: 1 token, already used up.
    await storePolicyDirectly(gateway, { kind: 'usage_limit', name: 'tiny', value: 1_000, credit_limit: { type: 'tokens', value: 1 }, periodic_reset: 'none' });
    expect((await chat(gateway, viaMock(upstream, { _user: 'off' }))).status).toBe(200);
    expect((await chat(gateway, viaMock(upstream, { _user: 'off' }))).status).toBe(200);

    await createPolicy(gateway, 'rate-limits', { name: 'rate still on', conditions: [{ key: 'metadata._user', value: 'rated' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpd', value: 1 });
    expect((await chat(gateway, viaMock(upstream, { _user: 'rated' }))).status).toBe(200);
    const refused = await chat(gateway, viaMock(upstream, { _user: 'rated' }));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(expectedError('rate_limit_exceeded', 'rate_limit_error', '"rate still on"'));
  });
});
