import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localLambdaContext } from '../../../infra/local/api-gateway-event.js';
import { scheduledEvent } from '../../../infra/local/server.js';
import { restoreBudgets } from '../../../shared/control-plane/workspaces/budget-restorer.js';
import { WorkspaceBudgetRepository } from '../../../shared/store/workspace-budget-repository.js';
import { WorkspaceRepository, type BudgetReset, type WorkspaceRecord } from '../../../shared/store/workspace-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { storeBudget } from '../enforcement/enforcement-support.js';

type ScheduledHandler = (event: unknown, context: unknown) => Promise<{ reset: number; reactivated: number }>;

let gateway: TestGateway;
let handler: ScheduledHandler;
const workspaces = () => new WorkspaceRepository();
const budgets = () => new WorkspaceBudgetRepository();

beforeAll(async () => {
  gateway = await startTestGateway({ GW_LOCAL_SCHEDULE_INTERVAL_MS: '0' });
  handler = (await import('../../../functions/restore-budgets/handler.js')).handler as unknown as ScheduledHandler;
});
afterAll(async () => {
  await gateway?.close();
});

const invoke = () => handler(scheduledEvent('restore-budgets', 'us-east-1'), localLambdaContext('gw-restore-budgets'));

interface BudgetState {
  limit: number | null;
  usage: number;
  status: 'active' | 'exhausted';
  reset?: BudgetReset;
  nextResetAt?: string | null;
}

/** A workspace whose budget is in the given state, stored as the control plane and gateway leave it. */
async function workspaceWith(state: BudgetState): Promise<string> {
  const id = randomUUID();
  const record: WorkspaceRecord = {
    id,
    organisation_id: gateway.bootstrap.organisationId,
    name: `budget ${id.slice(0, 8)}`,
    slug: `budget-${id.slice(0, 8)}`,
    created_at: new Date().toISOString(),
    budget_credit_limit: state.limit,
    budget_periodic_reset: state.reset ?? 'none',
    budget_current_usage: state.usage,
    budget_status: state.status,
    budget_last_reset_at: null,
    budget_next_reset_at: state.nextResetAt ?? null,
  };
  await workspaces().createWorkspace(record);
  return id;
}

/** Marks a budget exhausted the way a gateway charge does (usage must have reached the limit). */
async function exhaust(workspaceId: string): Promise<void> {
  await workspaces().setCreditLimit(workspaceId, 1, new Date().toISOString());
  expect(await budgets().markExhausted(workspaceId)).toBe(true);
}

const read = async (workspaceId: string) => (await workspaces().getWorkspace(workspaceId))!;
const queued = async () => (await budgets().exhaustedWorkspaces(1000)).workspaceIds;

describe('functions/restore-budgets', () => {
  it('applies due periodic resets, re-activates exhausted budgets whose limit is now above usage, and is idempotent', async () => {
    const dueAt = new Date(Date.now() - 3_600_000).toISOString();
    const due = await workspaceWith({ limit: 3, usage: 5, status: 'exhausted', reset: 'monthly', nextResetAt: dueAt });
    const notYet = await workspaceWith({ limit: 3, usage: 2, status: 'active', reset: 'weekly', nextResetAt: new Date(Date.now() + 86_400_000).toISOString() });
    const raised = await workspaceWith({ limit: 1, usage: 5, status: 'active' });
    await exhaust(raised);
    // The limit went up without the status following (a write this worker is the safety net for).
    await storeBudget(raised, { creditLimit: 50, usage: 5, status: 'exhausted' });
    const stillExhausted = await workspaceWith({ limit: 1, usage: 5, status: 'active' });
    await exhaust(stillExhausted);

    const first = await invoke();
    expect(first).toEqual({ reset: 1, reactivated: 1 });

    const afterReset = await read(due);
    expect(afterReset).toMatchObject({ budget_current_usage: 0, budget_status: 'active', budget_last_reset_at: dueAt });
    const nextReset = new Date(afterReset.budget_next_reset_at!);
    expect(nextReset.getTime()).toBeGreaterThan(Date.now());
    expect(nextReset.getUTCDate()).toBe(1);
    expect(await read(notYet)).toMatchObject({ budget_current_usage: 2, budget_last_reset_at: null });
    expect((await read(raised)).budget_status).toBe('active');
    expect((await read(stillExhausted)).budget_status).toBe('exhausted');
    expect(await queued()).toContain(stillExhausted);
    expect(await queued()).not.toContain(raised);

    const snapshot = await Promise.all([due, notYet, raised, stillExhausted].map(read));
    expect(await invoke()).toEqual({ reset: 0, reactivated: 0 });
    expect(await Promise.all([due, notYet, raised, stillExhausted].map(read))).toEqual(snapshot);
  });

  it('resets by the clock it is given (an injected clock past the next reset)', async () => {
    const nextResetAt = new Date(Date.now() + 30 * 60_000).toISOString();
    const workspaceId = await workspaceWith({ limit: 10, usage: 7, status: 'active', reset: 'weekly', nextResetAt });
    expect((await restoreBudgets(new Date())).reset).toBe(0);
    expect((await read(workspaceId)).budget_current_usage).toBe(7);

    const later = new Date(Date.parse(nextResetAt) + 60_000);
    const result = await restoreBudgets(later);
    expect(result.reset).toBe(1);
    const reset = await read(workspaceId);
    expect(reset).toMatchObject({ budget_current_usage: 0, budget_last_reset_at: nextResetAt });
    // The following Monday 00:00 UTC after the injected time.
    const following = new Date(reset.budget_next_reset_at!);
    expect(following.getUTCDay()).toBe(1);
    expect(following.getTime()).toBeGreaterThan(later.getTime());
    expect(following.getTime() - later.getTime()).toBeLessThanOrEqual(7 * 86_400_000);
    expect((await restoreBudgets(later)).reset).toBe(0);
  });
});
