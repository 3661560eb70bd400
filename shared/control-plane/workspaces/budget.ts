import type { BudgetReset } from '../../store/workspace-repository.js';

/**
 * When a periodic budget next resets: the coming Monday 00:00 UTC (weekly) or the 1st of next month
 * 00:00 UTC (monthly); null without a periodic reset. The budget worker resets usage then and moves this on.
 */
export function nextBudgetReset(reset: BudgetReset, now: Date): string | null {
  if (reset === 'none') return null;
  if (reset === 'monthly') return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
  const daysUntilMonday = ((8 - now.getUTCDay()) % 7) || 7;
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + daysUntilMonday)).toISOString();
}
