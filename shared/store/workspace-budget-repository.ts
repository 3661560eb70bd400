import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { isConditionalCheckFailure } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { keys } from './keys.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';
import type { BudgetReset, BudgetStatus, WorkspaceRecord } from './workspace-repository.js';

/** The budget attributes of a workspace record (see WorkspaceRecord), as enforcement reads them. */
export interface WorkspaceBudget {
  workspaceId: string;
  /** USD; null means no budget. */
  creditLimit: number | null;
  periodicReset: BudgetReset;
  currentUsage: number;
  status: BudgetStatus;
  nextResetAt: string | null;
}

/** Sparse gsi2 partition of workspaces whose budget was marked exhausted: the restore worker's queue. */
export const EXHAUSTED_BUDGET_INDEX = 'WORKSPACE#BUDGET_EXHAUSTED';
const markerKey = (workspaceId: string) => ({ pk: `BUDGETFLAG#${workspaceId}`, sk: 'EXHAUSTED' });

const BUDGET_ATTRIBUTES = ['id', 'budget_credit_limit', 'budget_periodic_reset', 'budget_current_usage', 'budget_status', 'budget_next_reset_at'];
const NAMES = {
  '#limit': 'budget_credit_limit',
  '#reset': 'budget_periodic_reset',
  '#usage': 'budget_current_usage',
  '#status': 'budget_status',
  '#next': 'budget_next_reset_at',
};

export type ChargeResult = { charged: true; budget: WorkspaceBudget } | { charged: false; reason: 'reset_due' | 'no_workspace' };

/**
 * The workspace budget, kept on the workspace item with single-item conditional writes only: charges `ADD`
 * to the usage, a status change is conditional on the numbers that justify it, and a periodic reset is
 * conditional on the reset time it replaces, so concurrent writers (gateway Lambdas, the restore worker, a
 * limit change in the control plane) can run in any order and never undo each other.
 */
export class WorkspaceBudgetRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  async read(workspaceId: string): Promise<WorkspaceBudget | undefined> {
    const result = await this.client.send(
      new GetCommand({
        TableName: this.table,
        Key: keys.workspace(workspaceId),
        ConsistentRead: true,
        ProjectionExpression: BUDGET_ATTRIBUTES.map((_, index) => `#p${index}`).join(', '),
        ExpressionAttributeNames: Object.fromEntries(BUDGET_ATTRIBUTES.map((name, index) => [`#p${index}`, name])),
      }),
    );
    return result.Item ? toBudget(result.Item) : undefined;
  }

  /**
   * The budget and the workspace's `settings` (for `unpriced_models`) in one read of the workspace item: what the
   * enforcement snapshot needs of it (enforcement/snapshot-cache.ts), so a snapshot reads the item once, not twice.
   */
  async readWithSettings(workspaceId: string): Promise<{ budget: WorkspaceBudget; settings: WorkspaceRecord['settings'] } | undefined> {
    const attributes = [...BUDGET_ATTRIBUTES, 'settings'];
    const result = await this.client.send(
      new GetCommand({
        TableName: this.table,
        Key: keys.workspace(workspaceId),
        ConsistentRead: true,
        ProjectionExpression: attributes.map((_, index) => `#p${index}`).join(', '),
        ExpressionAttributeNames: Object.fromEntries(attributes.map((name, index) => [`#p${index}`, name])),
      }),
    );
    return result.Item ? { budget: toBudget(result.Item), settings: result.Item.settings as WorkspaceRecord['settings'] } : undefined;
  }

  /** Adds `amount` USD to the usage, unless a periodic reset is due (apply it first, then charge again). */
  async charge(workspaceId: string, amount: number, now: Date): Promise<ChargeResult> {
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.workspace(workspaceId),
          UpdateExpression: 'ADD #usage :amount',
          ConditionExpression: 'attribute_exists(pk) AND NOT (#reset IN (:weekly, :monthly) AND #next <= :now)',
          ExpressionAttributeNames: { '#usage': NAMES['#usage'], '#reset': NAMES['#reset'], '#next': NAMES['#next'] },
          ExpressionAttributeValues: { ':amount': amount, ':weekly': 'weekly', ':monthly': 'monthly', ':now': now.toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { charged: true, budget: toBudget(result.Attributes ?? {}) };
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      return { charged: false, reason: (await this.read(workspaceId)) ? 'reset_due' : 'no_workspace' };
    }
  }

  /**
   * Admission's reservation: adds `amount` USD to the usage only while the usage is below the limit (and no
   * reset is due), in one conditional write, so concurrent requests cannot all pass a nearly spent budget.
   * Settlement later adds the difference to the real cost (see enforcement/settlement.ts).
   */
  async reserve(workspaceId: string, amount: number, now: Date): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.workspace(workspaceId),
          UpdateExpression: 'ADD #usage :amount',
          ConditionExpression:
            'attribute_exists(pk) AND (NOT attribute_type(#limit, :number) OR attribute_not_exists(#usage) OR #usage < #limit) AND NOT (#reset IN (:weekly, :monthly) AND #next <= :now)',
          ExpressionAttributeNames: { '#usage': NAMES['#usage'], '#limit': NAMES['#limit'], '#reset': NAMES['#reset'], '#next': NAMES['#next'] },
          ExpressionAttributeValues: { ':amount': amount, ':number': 'N', ':weekly': 'weekly', ':monthly': 'monthly', ':now': now.toISOString() },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  /** Sets `exhausted` if usage has reached the limit at this instant, and queues the workspace for the restorer. */
  async markExhausted(workspaceId: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.workspace(workspaceId),
          UpdateExpression: 'SET #status = :exhausted',
          ConditionExpression: 'attribute_exists(pk) AND attribute_type(#limit, :number) AND #usage >= #limit',
          ExpressionAttributeNames: { '#status': NAMES['#status'], '#limit': NAMES['#limit'], '#usage': NAMES['#usage'] },
          ExpressionAttributeValues: { ':exhausted': 'exhausted', ':number': 'N' },
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
   * Sets `active` again when usage is below the limit (or there is no limit any more). False when the
   * budget is still exhausted, or was not marked exhausted.
   */
  async reactivate(workspaceId: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.workspace(workspaceId),
          UpdateExpression: 'SET #status = :active',
          ConditionExpression: 'attribute_exists(pk) AND #status = :exhausted AND (NOT attribute_type(#limit, :number) OR #usage < #limit)',
          ExpressionAttributeNames: { '#status': NAMES['#status'], '#limit': NAMES['#limit'], '#usage': NAMES['#usage'] },
          ExpressionAttributeValues: { ':active': 'active', ':exhausted': 'exhausted', ':number': 'N' },
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
      .map(toBudget)
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

function toBudget(item: Record<string, unknown>): WorkspaceBudget {
  const limit = item.budget_credit_limit;
  return {
    workspaceId: String(item.id),
    creditLimit: typeof limit === 'number' ? limit : null,
    periodicReset: (item.budget_periodic_reset as BudgetReset | undefined) ?? 'none',
    currentUsage: Number(item.budget_current_usage ?? 0),
    status: (item.budget_status as BudgetStatus | undefined) ?? 'active',
    nextResetAt: typeof item.budget_next_reset_at === 'string' ? item.budget_next_reset_at : null,
  };
}
