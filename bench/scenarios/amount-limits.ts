import { jsonCall } from '../measure/http-probe.js';
import { rateLimitsEnforced, type HotPathScenario, type ScenarioContext } from './hot-path.js';
import { checkChatJson, gwChat } from './requests.js';

/**
 * Amount limits on the AWS-shaped rows (issues #48, #44): one matching tokens rate-limit policy, one matching cost
 * usage limit. Each request reserves its estimate before its call (docs/enforcement.md): from this process's amount
 * lease in steady state (shared/gateway/enforcement/amount-leases.ts), so no store round trip before the first byte.
 * Limits far above what the bench sends, on a metadata user of their own, so only these rows' requests match.
 */
function amountScenario(name: string, user: string, path: 'rate-limits' | 'usage-limits', limit: Record<string, unknown>): HotPathScenario {
  return {
    name,
    async setup(context: ScenarioContext) {
      const notEnforced = await rateLimitsEnforced(context);
      if (notEnforced) return { unavailable: notEnforced };
      const created = await jsonCall(`${context.endpoints.gwUrl}/v1/policies/${path}`, 'POST', { 'x-gw-api-key': context.adminKey }, {
        name: `bench ${user}`,
        conditions: [{ key: 'metadata._user', value: user }],
        group_by: [{ key: 'workspace_id' }],
        ...limit,
        ...(context.tenant.workspaceId ? { workspace_id: context.tenant.workspaceId } : {}),
      });
      if (created.status !== 201 && created.status !== 200) throw new Error(`POST /v1/policies/${path} answered ${created.status}: ${JSON.stringify(created.json).slice(0, 500)}`);
      return { request: gwChat(context.endpoints, 'fast', false, { 'x-gw-metadata': JSON.stringify({ _user: user }) }), check: checkChatJson };
    },
  };
}

export const tokensPolicyScenario = amountScenario('1 matching tokens rate-limit policy', 'bench-tokens-limit', 'rate-limits', { type: 'tokens', unit: 'rpm', value: 1_000_000_000 });

export const costPolicyScenario = amountScenario('1 matching cost usage limit', 'bench-cost-limit', 'usage-limits', {
  type: 'requests',
  unit: 'rpd',
  value: 1_000_000_000,
  credit_limit: { type: 'cost', value: 1_000_000_000 },
  periodic_reset: 'monthly',
});
