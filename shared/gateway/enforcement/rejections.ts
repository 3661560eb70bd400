import { GatewayError } from '../../http/errors.js';
import type { PolicyRecord } from '../../store/policy-repository.js';
import type { WorkspaceBudget } from '../../store/workspace-budget-repository.js';
import { secondsUntil, UNIT_LABELS, type CountingWindow } from './windows.js';

/** A policy's name for messages: `"sixty a minute" (0190…)`, or just the id when it has no name. */
export function policyLabel(policy: PolicyRecord): string {
  return policy.name ? `${JSON.stringify(policy.name)} (${policy.id})` : policy.id;
}

export interface RateRejection {
  policy: PolicyRecord;
  window: CountingWindow;
  /** The counter's value when it refused, if known. */
  used?: number;
}

/**
 * The 429 of a rate-limit policy, with `retry-after` and `x-ratelimit-reset` (seconds until the window ends),
 * `x-ratelimit-limit` and `x-ratelimit-remaining` (in the policy's unit: requests or tokens).
 */
export function rateLimitedError(rejection: RateRejection, now: number): GatewayError {
  const { policy, window } = rejection;
  const seconds = secondsUntil(window.end, now);
  const remaining = rejection.used === undefined ? 0 : Math.max(0, Math.floor(policy.value - rejection.used));
  const what = policy.type === 'requests' ? 'requests' : 'tokens';
  return new GatewayError(
    429,
    'rate_limit_exceeded',
    `Rate limit exceeded: policy ${policyLabel(policy)} allows ${policy.value} ${what} per ${UNIT_LABELS[policy.unit]}; retry in ${seconds} s`,
    {
      headers: {
        'retry-after': String(seconds),
        'x-ratelimit-limit': String(policy.value),
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(seconds),
      },
    },
  );
}

/** The 412 of an exhausted workspace budget, naming the workspace, its usage and its limit. */
export function budgetExhaustedError(budget: WorkspaceBudget): GatewayError {
  const reset = budget.periodicReset !== 'none' && budget.nextResetAt ? `; it resets at ${budget.nextResetAt}` : '';
  return new GatewayError(
    412,
    'budget_exhausted',
    `The budget of workspace ${budget.workspaceId} is exhausted: ${usd(budget.currentUsage)} used of its ${usd(budget.creditLimit ?? 0)} credit limit${reset}. Raise the limit to resume at once`,
  );
}

/** The 412 of an exhausted usage-limit policy. */
export function usageLimitExhaustedError(policy: PolicyRecord, used: number, period: CountingWindow): GatewayError {
  const limit = policy.credit_limit!;
  const amount = (value: number) => (limit.type === 'cost' ? usd(value) : `${value} tokens`);
  const reset = Number.isFinite(period.end) ? `; it resets at ${new Date(period.end).toISOString()}` : '';
  return new GatewayError(
    412,
    'usage_limit_exhausted',
    `Usage limit ${policyLabel(policy)} is exhausted: ${amount(used)} used of its ${amount(limit.value)} credit limit${reset}`,
  );
}

function usd(value: number): string {
  return `$${Number(value.toFixed(6))}`;
}
