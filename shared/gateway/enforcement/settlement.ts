import { costOfUsage, tokenCounts } from '../../observability/pricing/index.js';
import type { RequestLogger } from '../../observability/logger.js';
import { chargeWorkspaceBudget } from './workspace-budget.js';
import { defaultEnforcementDependencies, type Admission, type EnforcementDependencies } from './admission.js';

export interface SettledUsage {
  usage?: Record<string, unknown>;
  /** Served from gw's response cache: nothing was used at a provider, so nothing is charged. */
  cacheHit: boolean;
  provider?: string;
  model?: string;
}

/**
 * After a response (or the end of its stream): prices it and charges what it really used to the counters it
 * was admitted under. Returns the cost for the request log: a number in USD, or null when the model has no
 * price. Never throws: a failed charge is logged, the request is already answered.
 */
export async function settleUsage(admission: Admission | undefined, settled: SettledUsage, log: RequestLogger, deps: EnforcementDependencies = defaultEnforcementDependencies()): Promise<number | null> {
  let cost: number | null = null;
  try {
    cost = settled.cacheHit ? 0 : await costOfUsage(settled.provider, settled.model, settled.usage);
  } catch (error) {
    log.error('could not price the response', { provider: settled.provider, model: settled.model, error: error as Error });
  }
  if (!admission?.claim()) return cost;
  const tokens = settled.cacheHit ? 0 : (tokenCounts(settled.usage)?.total ?? 0);
  const charges: Array<Promise<unknown>> = [];
  for (const counter of admission.tokenCounters) {
    // With a reservation, only the difference between the real tokens and the reserved ones is added.
    const delta = tokens - counter.reserved;
    if (delta !== 0) charges.push(deps.counters.add(counter.key, delta));
  }
  for (const { key, policy } of admission.creditCounters) {
    const amount = policy.credit_limit?.type === 'tokens' ? tokens : cost;
    if (amount === null) {
      log.warn('unpriced model: its cost is not charged to a cost usage limit', { policy_id: policy.id, provider: settled.provider, model: settled.model });
    } else if (amount > 0) {
      charges.push(deps.counters.add(key, amount));
    }
  }
  if (admission.chargesWorkspace && cost !== null && cost > 0) {
    // This process refuses as soon as its own charge exhausts the budget (others within the policy-cache TTL).
    charges.push(chargeWorkspaceBudget(deps.budgets, admission.workspaceId, cost, new Date(deps.now()), (budget) => deps.snapshots.updateBudget(budget)));
  }
  for (const result of await Promise.allSettled(charges)) {
    if (result.status === 'rejected') log.error('could not charge usage to a policy or budget', { error: result.reason as Error });
  }
  return cost;
}

/**
 * A request that ended without a response: token reservations are given back; request slots too when no
 * provider answered (gw refused it itself: bad input, unknown virtual key, a config without a match).
 */
export async function releaseAdmission(admission: Admission | undefined, reachedProvider: boolean, log: RequestLogger, deps: EnforcementDependencies = defaultEnforcementDependencies()): Promise<void> {
  if (!admission?.claim()) return;
  const releases: Array<Promise<void>> = [];
  for (const counter of admission.tokenCounters) if (counter.reserved > 0) releases.push(deps.counters.release(counter.key, counter.reserved));
  if (!reachedProvider) for (const key of admission.requestSlots) releases.push(deps.counters.release(key, 1));
  for (const result of await Promise.allSettled(releases)) {
    if (result.status === 'rejected') log.error('could not give back a policy counter', { error: result.reason as Error });
  }
}
