import type { BudgetPeriodRef, WorkspaceBudget, WorkspaceBudgetRepository } from '../../store/workspace-budget-repository.js';
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
 * Charges a response's cost (or gives back a reservation) to the workspace budget: to the period admission
 * reserved in when `period` says it, else to the current one, a reset that is due being applied first (only one
 * of several concurrent writers applies it). When the gate shows usage at the limit, the status becomes
 * `exhausted` (decided on a fresh read) and the workspace joins the restorer's queue.
 */
export async function chargeWorkspaceBudget(
  repository: WorkspaceBudgetRepository,
  workspaceId: string,
  cost: number,
  now: Date,
  /** Called with what the charge wrote, so the process's snapshot follows its own charges. */
  onCharged: (charge: BudgetChargeNote) => void = () => undefined,
  period?: BudgetPeriodRef,
): Promise<boolean> {
  let result = await repository.charge(workspaceId, cost, now, period);
  if (!result.charged && result.reason === 'reset_due') {
    await applyDueReset(repository, workspaceId, now.getTime());
    result = await repository.charge(workspaceId, cost, now);
  }
  if (!result.charged) return false;
  onCharged({ workspaceId, epoch: result.epoch, amount: cost, gate: result.gate });
  return true;
}

/** What one charge wrote: the amount, and the gate's new value when it went to the gate. */
export interface BudgetChargeNote {
  workspaceId: string;
  epoch: string;
  amount: number;
  gate?: number;
}

/** Applies the reset of a budget if one is due. True when this call applied it. */
export async function applyDueReset(repository: WorkspaceBudgetRepository, workspaceId: string, now: number): Promise<boolean> {
  const budget = await repository.read(workspaceId);
  if (!budget || !resetDue(budget, now)) return false;
  return repository.applyReset(workspaceId, budget.nextResetAt!, nextResetAfter(budget, now));
}
