import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { chat, expectedError, storeBudget, storePolicyDirectly, viaMock } from './enforcement-support.js';

// POLICY_ENABLED=OFF: no policy is enforced (the policies API is off too, so the policy is stored directly);
// the workspace budget, governed by USAGE_LIMITS_ENABLED, still is.
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started), { POLICY_ENABLED: 'OFF', GW_POLICY_CACHE_TTL_MS: '0' });

describe('POLICY_ENABLED=OFF', () => {
  it('does not enforce a stored rate-limit policy', async () => {
    await storePolicyDirectly(gateway, { kind: 'rate_limit', name: 'one only', value: 1 });
    const statuses = [];
    for (let index = 0; index < 3; index++) statuses.push((await chat(gateway, viaMock(upstream))).status);
    expect(statuses).toEqual([200, 200, 200]);
  });

  it('still enforces an exhausted workspace budget', async () => {
    await storeBudget(gateway.bootstrap.workspaceId, { creditLimit: 1, usage: 1, status: 'exhausted' });
    const refused = await chat(gateway, viaMock(upstream));
    expect(refused.status).toBe(412);
    expect(refused.body).toEqual(expectedError('budget_exhausted', 'budget_exceeded_error', 'is exhausted: $1 used of its $1 credit limit'));
    await storeBudget(gateway.bootstrap.workspaceId, { creditLimit: null, usage: 1, status: 'active' });
  });
});
