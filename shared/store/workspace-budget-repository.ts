import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { subtractUsd, sumUsd } from '../observability/pricing/usd.js';
import { settings } from '../settings.js';
import { BudgetCounterRepository, budgetEpoch, type BudgetCounters } from './budget-counter-repository.js';
import { isConditionalCheckFailure } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { keys } from './keys.js';
import type { LeaseTake, Taken } from './lease-records.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';
import type { BudgetReset, BudgetStatus, WorkspaceRecord } from './workspace-repository.js';

/** The budget of a workspace (its settings on the workspace record, its usage on counter items), as enforcement reads it. */
export interface WorkspaceBudget {
  workspaceId: string;
  /** USD; null means no budget. */
  creditLimit: number | null;
  periodicReset: BudgetReset;
  /** USD used in this period (reservations in flight included): `settledUsage` plus the gate. */
  currentUsage: number;
  /**
   * The part of the usage not on the gate item: the legacy attribute plus the charge shards' sum as read. Never
   * below the real one between reads (budget-counter-repository.ts), so `limit - settledUsage` is a safe headroom.
   */
  settledUsage: number;
  status: BudgetStatus;
  nextResetAt: string | null;
  /** The period's counters (budgetEpoch of the last reset). */
  epoch: string;
}

/** Sparse gsi2 partition of workspaces whose budget was marked exhausted: the restore worker's queue. */
export const EXHAUSTED_BUDGET_INDEX = 'WORKSPACE#BUDGET_EXHAUSTED';
const markerKey = (workspaceId: string) => ({ pk: `BUDGETFLAG#${workspaceId}`, sk: 'EXHAUSTED' });

const BUDGET_ATTRIBUTES = ['id', 'budget_credit_limit', 'budget_periodic_reset', 'budget_current_usage', 'budget_status', 'budget_next_reset_at', 'budget_last_reset_at'];
const NAMES = {
  '#limit': 'budget_credit_limit',
  '#reset': 'budget_periodic_reset',
  '#usage': 'budget_current_usage',
  '#status': 'budget_status',
  '#next': 'budget_next_reset_at',
};

/** Where a charge goes: the period a reservation was made in, and whether the budget had a limit then. */
export interface BudgetPeriodRef {
  epoch: string;
  gated: boolean;
}

export type ChargeResult = { charged: true; epoch: string; gated: boolean; gate?: number } | { charged: false; reason: 'reset_due' | 'no_workspace' };

/**
 * The workspace budget. Its settings stay on the workspace item; its usage lives on un-indexed, sharded counter
 * items (budget-counter-repository.ts), so a charge writes neither the workspace item nor its index entries.
 * `budget_current_usage` on the workspace item is the usage written before the counters existed: read as a base
 * while it exists, never added to again, and zeroed by the next periodic reset. Status changes and periodic
 * resets stay single-item conditional writes on the workspace item, so concurrent writers (gateway Lambdas, the
 * restore worker, a limit change in the control plane) never undo each other.
 */
export class WorkspaceBudgetRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);
  private readonly counters = new BudgetCounterRepository();

  async read(workspaceId: string): Promise<WorkspaceBudget | undefined> {
    const item = await this.workspaceItem(workspaceId, BUDGET_ATTRIBUTES);
    if (!item) return undefined;
    const epoch = budgetEpoch(item.budget_last_reset_at as string | null | undefined);
    return toBudget(item, await this.counters.read(workspaceId, epoch));
  }

  /** The workspace item's given attributes, read consistently. */
  private async workspaceItem(workspaceId: string, attributes: readonly string[]): Promise<Record<string, unknown> | undefined> {
    const result = await this.client.send(
      new GetCommand({
        TableName: this.table,
        Key: keys.workspace(workspaceId),
        ConsistentRead: true,
        ProjectionExpression: attributes.map((_, index) => `#p${index}`).join(', '),
        ExpressionAttributeNames: Object.fromEntries(attributes.map((name, index) => [`#p${index}`, name])),
      }),
    );
    return result.Item;
  }

  /**
   * The budget and the workspace's `settings` (for `unpriced_models`) in one read of the workspace item, plus the
   * budget's counters: what the enforcement snapshot needs (enforcement/snapshot-cache.ts), so it reads the item once.
   */
  async readWithSettings(workspaceId: string): Promise<{ budget: WorkspaceBudget; settings: WorkspaceRecord['settings'] } | undefined> {
    const item = await this.workspaceItem(workspaceId, [...BUDGET_ATTRIBUTES, 'settings']);
    if (!item) return undefined;
    // Enforcement reads usage only against a limit: a workspace without one costs no counter read (a cold
    // workspace's first request keeps two store round trips in sequence, hot-caches/cold-workspace.test.ts).
    const limited = typeof item.budget_credit_limit === 'number';
    const epoch = budgetEpoch(item.budget_last_reset_at as string | null | undefined);
    const counters = limited ? await this.counters.read(workspaceId, epoch) : { gate: 0, shards: 0 };
    return { budget: toBudget(item, counters), settings: item.settings as WorkspaceRecord['settings'] };
  }

  /**
   * Adds `amount` USD to the usage. With `period` (what admission reserved in) the charge goes to that period's
   * counters, even after a reset: it settles a reservation made there. Without, to the current period, unless a
   * periodic reset is due (apply it first, then charge again).
   */
  async charge(workspaceId: string, amount: number, now: Date, period?: BudgetPeriodRef): Promise<ChargeResult> {
    let target = period;
    if (!target) {
      const budget = await this.read(workspaceId);
      if (!budget) return { charged: false, reason: 'no_workspace' };
      if (budget.periodicReset !== 'none' && budget.nextResetAt !== null && budget.nextResetAt <= now.toISOString()) return { charged: false, reason: 'reset_due' };
      target = { epoch: budget.epoch, gated: budget.creditLimit !== null };
    }
    const gate = await this.counters.charge(workspaceId, target.epoch, amount, target.gated);
    return { charged: true, epoch: target.epoch, gated: target.gated, gate };
  }

  /**
   * Admission's reservation: adds `amount` USD to the gate of the budget's period only while the usage is below
   * the limit (see BudgetCounterRepository), in one conditional write, so concurrent requests cannot all pass a
   * nearly spent budget. The caller applies a due reset first. `fits`: a lease, whole under the limit or refused,
   * recorded on the gate (`lease`). Admitted: the gate's new value; refused: with the gate item if the store gave it.
   */
  async reserve(budget: WorkspaceBudget, amount: number, fits = false, lease?: LeaseTake): Promise<Taken> {
    if (budget.creditLimit === null) return { admitted: true, count: 0 };
    return this.counters.reserve(budget.workspaceId, budget.epoch, amount, subtractUsd(budget.creditLimit, budget.settledUsage), fits, lease);
  }

  /** The gate's lease records and writes (budget-counter-repository.ts), for enforcement's budget account. */
  get gateLeases(): Pick<BudgetCounterRepository, 'writeLease' | 'reclaimLease' | 'leaseRecords'> {
    return this.counters;
  }

  /**
   * Sets `exhausted` if usage has reached the limit (read now), and queues the workspace for the restorer. The
   * write is conditional on the limit it was compared with, so a limit changed meanwhile is not overruled.
   */
  async markExhausted(workspaceId: string): Promise<boolean> {
    const budget = await this.read(workspaceId);
    if (!budget || budget.creditLimit === null || budget.currentUsage < budget.creditLimit) return false;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.workspace(workspaceId),
          UpdateExpression: 'SET #status = :exhausted',
          ConditionExpression: 'attribute_exists(pk) AND #limit = :limit',
          ExpressionAttributeNames: { '#status': NAMES['#status'], '#limit': NAMES['#limit'] },
          ExpressionAttributeValues: { ':exhausted': 'exhausted', ':limit': budget.creditLimit },
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
    await this.client.send(
      new UpdateCommand({
        TableName: this.table,
        Key: markerKey(workspaceId),
        UpdateExpression: 'SET gsi2pk = :index, gsi2sk = :id, workspace_id = :id',
        ExpressionAttributeValues: { ':index': EXHAUSTED_BUDGET_INDEX, ':id': workspaceId },
      }),
    );
    return true;
  }

  /**
   * Sets `active` again when usage (read now) is below the limit, or there is no limit any more; conditional on
   * that limit. False when the budget is still exhausted, or was not marked exhausted.
   */
  async reactivate(workspaceId: string): Promise<boolean> {
    const budget = await this.read(workspaceId);
    if (!budget || budget.status !== 'exhausted') return false;
    if (budget.creditLimit !== null && budget.currentUsage >= budget.creditLimit) return false;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.workspace(workspaceId),
          UpdateExpression: 'SET #status = :active',
          ConditionExpression: `attribute_exists(pk) AND #status = :exhausted AND ${budget.creditLimit === null ? 'NOT attribute_type(#limit, :number)' : '#limit = :limit'}`,
          ExpressionAttributeNames: { '#status': NAMES['#status'], '#limit': NAMES['#limit'] },
          ExpressionAttributeValues: { ':active': 'active', ':exhausted': 'exhausted', ...(budget.creditLimit === null ? { ':number': 'N' } : { ':limit': budget.creditLimit }) },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  /**
   * Starts a new budget period: usage 0, status active, the next reset moved on (and the reset queue with it).
   * Only if the stored next reset is still `dueAt`, so of several concurrent resets exactly one applies.
   */
  async applyReset(workspaceId: string, dueAt: string, nextResetAt: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.workspace(workspaceId),
          UpdateExpression: 'SET #usage = :zero, #status = :active, #last = :due, #next = :following, gsi2sk = :queued',
          ConditionExpression: 'attribute_exists(pk) AND #next = :due AND #reset IN (:weekly, :monthly)',
          ExpressionAttributeNames: { '#usage': NAMES['#usage'], '#status': NAMES['#status'], '#next': NAMES['#next'], '#reset': NAMES['#reset'], '#last': 'budget_last_reset_at' },
          ExpressionAttributeValues: {
            ':zero': 0,
            ':active': 'active',
            ':due': dueAt,
            ':following': nextResetAt,
            ':queued': `${nextResetAt}#${workspaceId}`,
            ':weekly': 'weekly',
            ':monthly': 'monthly',
          },
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
    await this.clearExhaustedMarker(workspaceId);
    return true;
  }

  /** Takes a workspace out of the restorer's exhausted queue (the marker item stays, unindexed). */
  async clearExhaustedMarker(workspaceId: string): Promise<void> {
    await this.client.send(new UpdateCommand({ TableName: this.table, Key: markerKey(workspaceId), UpdateExpression: 'REMOVE gsi2pk, gsi2sk' }));
  }

  /** Workspaces whose periodic reset is at or before `before` (ISO), oldest first. */
  async dueForReset(before: string, limit: number): Promise<Array<{ workspaceId: string; dueAt: string; periodicReset: BudgetReset }>> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :partition AND gsi2sk <= :before',
        ExpressionAttributeValues: { ':partition': keys.workspaceBudgetResetIndex, ':before': `${before}#~` },
        Limit: limit,
      }),
    );
    return (result.Items ?? [])
      .map((item) => toBudget(item, { gate: 0, shards: 0 }))
      .filter((budget) => budget.nextResetAt !== null && budget.periodicReset !== 'none')
      .map((budget) => ({ workspaceId: budget.workspaceId, dueAt: budget.nextResetAt!, periodicReset: budget.periodicReset }));
  }

  /** One page of the workspaces marked exhausted. */
  async exhaustedWorkspaces(limit: number, startKey?: Record<string, unknown>): Promise<{ workspaceIds: string[]; nextKey?: Record<string, unknown> }> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :partition',
        ExpressionAttributeValues: { ':partition': EXHAUSTED_BUDGET_INDEX },
        Limit: limit,
        ExclusiveStartKey: startKey,
      }),
    );
    return { workspaceIds: (result.Items ?? []).map((item) => String(item.workspace_id)), nextKey: result.LastEvaluatedKey };
  }
}

function toBudget(item: Record<string, unknown>, counters: BudgetCounters): WorkspaceBudget {
  const limit = item.budget_credit_limit;
  const settledUsage = sumUsd([Number(item.budget_current_usage ?? 0), counters.shards]);
  return {
    workspaceId: String(item.id),
    creditLimit: typeof limit === 'number' ? limit : null,
    periodicReset: (item.budget_periodic_reset as BudgetReset | undefined) ?? 'none',
    currentUsage: sumUsd([settledUsage, counters.gate]),
    settledUsage,
    status: (item.budget_status as BudgetStatus | undefined) ?? 'active',
    nextResetAt: typeof item.budget_next_reset_at === 'string' ? item.budget_next_reset_at : null,
    epoch: budgetEpoch(item.budget_last_reset_at as string | null | undefined),
  };
}
