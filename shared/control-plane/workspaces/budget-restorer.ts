import { logger } from '../../observability/logger.js';
import { WorkspaceBudgetRepository } from '../../store/workspace-budget-repository.js';
import { nextBudgetReset } from './budget.js';

export interface BudgetRestoreResult {
  /** Budgets whose periodic reset this pass applied (usage back to 0, status active). */
  reset: number;
  /** Exhausted budgets this pass made active again because their limit is now above usage (or gone). */
  reactivated: number;
}

/**
 * One pass of the restore worker. The gateway already admits by the numbers (a raised limit or a due reset
 * admits the next request at once); this pass makes the stored state say so for budgets nobody charged since:
 * 1. every budget whose periodic reset time has passed (gsi2 reset queue) starts a new period;
 * 2. every budget marked exhausted (gsi2 exhausted queue) whose limit is above its usage becomes active.
 * Each change is a conditional write on the state it replaces: idempotent, and safe beside a concurrent pass.
 */
export async function restoreBudgets(now = new Date(), batchSize = 100): Promise<BudgetRestoreResult> {
  const budgets = new WorkspaceBudgetRepository();
  const result: BudgetRestoreResult = { reset: 0, reactivated: 0 };
  for (;;) {
    const due = await budgets.dueForReset(now.toISOString(), batchSize);
    let appliedThisBatch = 0;
    for (const { workspaceId, dueAt, periodicReset } of due) {
      const next = nextBudgetReset(periodicReset, now);
      if (next !== null && (await budgets.applyReset(workspaceId, dueAt, next))) appliedThisBatch++;
    }
    result.reset += appliedThisBatch;
    // Applied resets leave the queue's due range; stop when a batch changes nothing (another pass took it).
    if (due.length < batchSize || appliedThisBatch === 0) break;
  }
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await budgets.exhaustedWorkspaces(batchSize, startKey);
    for (const workspaceId of page.workspaceIds) {
      if (await budgets.reactivate(workspaceId)) result.reactivated++;
      const budget = await budgets.read(workspaceId);
      // Still exhausted stays queued; active (here or by a limit change) or gone leaves the queue.
      if (!budget || budget.status !== 'exhausted') await budgets.clearExhaustedMarker(workspaceId);
    }
    startKey = page.nextKey;
  } while (startKey);
  if (result.reset > 0 || result.reactivated > 0) logger.info('budgets restored', { ...result });
  return result;
}
