import type { WorkspaceBudget, WorkspaceBudgetRepository } from '../../store/workspace-budget-repository.js';
import { resetPeriod } from './windows.js';

/** True when the budget's periodic reset time has passed, whether or not anyone applied it yet. */
export function resetDue(budget: WorkspaceBudget, now: number): boolean {
  return budget.periodicReset !== 'none' && budget.nextResetAt !== null && Date.parse(budget.nextResetAt) <= now;
}

/**
 * Exhausted means: there is a limit, usage has reached it, and no reset is due. Decided by the numbers, not by
 * the stored status, so a limit raised above usage admits the next request even before the status says so.
 */
export function budgetExhausted(budget: WorkspaceBudget | undefined, now: number): budget is WorkspaceBudget {
  return budget !== undefined && budget.creditLimit !== null && !resetDue(budget, now) && budget.currentUsage >= budget.creditLimit;
}

/** When a budget that resets now next resets: the end of the period that contains `now`. */
export function nextResetAfter(budget: WorkspaceBudget, now: number): string {
  return new Date(resetPeriod(budget.periodicReset, now).end).toISOString();
}

/**
 * Charges a response's cost to the workspace budget. A reset that is due is applied first (only one of several
 * concurrent writers applies it), so the cost lands in the new period. When usage reaches the limit the status
 * becomes `exhausted` (conditional on the numbers at that instant) and the workspace joins the restorer's queue.
 */
export async function chargeWorkspaceBudget(
  repository: WorkspaceBudgetRepository,
  workspaceId: string,
  cost: number,
  now: Date,
  /** Called with the budget as the charge left it, before the status write (the numbers already decide). */
  onCharged: (budget: WorkspaceBudget) => void = () => undefined,
): Promise<WorkspaceBudget | undefined> {
  let result = await repository.charge(workspaceId, cost, now);
  if (!result.charged && result.reason === 'reset_due') {
    await applyDueReset(repository, workspaceId, now.getTime());
    result = await repository.charge(workspaceId, cost, now);
  }
  if (!result.charged) return undefined;
  const { budget } = result;
  onCharged(budget);
  if (budget.creditLimit !== null && budget.currentUsage >= budget.creditLimit && budget.status !== 'exhausted') {
    await repository.markExhausted(workspaceId);
  }
  return budget;
}

/** Applies the reset of a budget if one is due. True when this call applied it. */
export async function applyDueReset(repository: WorkspaceBudgetRepository, workspaceId: string, now: number): Promise<boolean> {
  const budget = await repository.read(workspaceId);
  if (!budget || !resetDue(budget, now)) return false;
  return repository.applyReset(workspaceId, budget.nextResetAt!, nextResetAfter(budget, now));
}
