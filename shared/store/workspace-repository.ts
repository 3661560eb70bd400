import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sumUsd } from '../observability/pricing/usd.js';
import { settings } from '../settings.js';
import { BudgetCounterRepository, budgetEpoch } from './budget-counter-repository.js';
import { isConditionalCheckFailure, updateExpression } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { keys } from './keys.js';
import { gsi1Children, queryPage, type PagedResult } from './paged-query.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

export interface OrganisationRecord {
  id: string;
  name: string;
  created_at: string;
}

export type BudgetReset = 'none' | 'weekly' | 'monthly';
export type BudgetStatus = 'active' | 'exhausted';

/**
 * Budget and API-key settings are flat attributes (not a nested map) so the budget worker can
 * `ADD budget_current_usage :cost` and conditions can compare them in one expression.
 */
export interface WorkspaceRecord {
  id: string;
  /** Never stored: set on a copy read for a caller who may not see usage, so the view hides budget usage. */
  usage_hidden?: boolean;
  organisation_id: string;
  name: string;
  slug: string;
  created_at: string;
  updated_at?: string;
  description?: string;
  metadata?: Record<string, string>;
  /** Spending ceiling of the workspace; absent or null means unlimited. */
  budget_credit_limit?: number | null;
  budget_periodic_reset?: BudgetReset;
  budget_current_usage?: number;
  budget_status?: BudgetStatus;
  budget_last_reset_at?: string | null;
  budget_next_reset_at?: string | null;
  /** API-key rules of the workspace: per-workspace maximum count, default and maximum expiry (days). */
  max_api_keys?: number | null;
  api_key_default_expiry_days?: number | null;
  api_key_max_expiry_days?: number | null;
  /** Active workspace keys, kept by conditional increments so the maximum holds under concurrency. */
  active_api_keys?: number;
  /** Guardrail ids run on every gateway request of the workspace (read alone by the guardrail repository). */
  default_guardrails?: string[];
  /** Observability settings (request bodies in logs, analytics visibility); absent fields mean on. */
  settings?: { log_request_bodies?: boolean; membersViewAnalytics?: boolean; managersViewAnalytics?: boolean; unpriced_models?: 'reserve' | 'refuse' };
}

export type WorkspaceChanges = Partial<
  Pick<WorkspaceRecord, 'name' | 'description' | 'metadata' | 'max_api_keys' | 'api_key_default_expiry_days' | 'api_key_max_expiry_days' | 'budget_periodic_reset' | 'budget_next_reset_at' | 'default_guardrails' | 'settings'>
>;

export class SlugTakenError extends Error {
  constructor(readonly slug: string) {
    super(`slug '${slug}' is taken`);
    this.name = 'SlugTakenError';
  }
}

export class WorkspaceRepository {
  private readonly client = dynamoDocumentClient();
  private readonly budgetCounters = new BudgetCounterRepository();
  private readonly table = tableName(settings(), MAIN_TABLE);

  async createOrganisation(record: OrganisationRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...keys.organisation(record.id), ...record },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getOrganisation(organisationId: string): Promise<OrganisationRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.organisation(organisationId), ConsistentRead: true }));
    return result.Item as OrganisationRecord | undefined;
  }

  /**
   * Creates a workspace. Its slug is claimed first with its own conditional write (no transactions in the local
   * store); if the workspace write then fails, the claim is given back.
   */
  async createWorkspace(record: WorkspaceRecord): Promise<WorkspaceRecord> {
    const stored: WorkspaceRecord = { budget_credit_limit: null, budget_periodic_reset: 'none', budget_current_usage: 0, budget_status: 'active', active_api_keys: 0, ...record };
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...keys.workspaceSlug(record.organisation_id, record.slug), workspace_id: record.id },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailure(error)) throw new SlugTakenError(record.slug);
      throw error;
    }
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...keys.workspace(record.id),
            gsi1pk: keys.workspacesOfOrganisation(record.organisation_id),
            gsi1sk: `${record.created_at}#${record.id}`,
            ...resetIndex(stored),
            ...stored,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      await this.client.send(new DeleteCommand({ TableName: this.table, Key: keys.workspaceSlug(record.organisation_id, record.slug) }));
      throw error;
    }
    return stored;
  }

  /**
   * The workspace with its budget usage (the legacy attribute plus its budget counters, one more read);
   * `{ usage: false }` skips that read for callers that only need its settings.
   */
  async getWorkspace(workspaceId: string, options: { usage?: boolean } = {}): Promise<WorkspaceRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.workspace(workspaceId), ConsistentRead: true }));
    if (!result.Item) return undefined;
    const record = toWorkspace(result.Item);
    return options.usage === false ? record : this.withBudgetUsage(record);
  }

  /** Adds the usage on the workspace's budget counters (budget-counter-repository.ts) to the legacy attribute. */
  private async withBudgetUsage(record: WorkspaceRecord): Promise<WorkspaceRecord> {
    const counters = await this.budgetCounters.read(record.id, budgetEpoch(record.budget_last_reset_at));
    return { ...record, budget_current_usage: sumUsd([record.budget_current_usage ?? 0, counters.gate, counters.shards]) };
  }

  async findWorkspaceIdBySlug(organisationId: string, slug: string): Promise<string | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.workspaceSlug(organisationId, slug), ConsistentRead: true }));
    return result.Item?.workspace_id as string | undefined;
  }

  async listWorkspaces(organisationId: string, limit: number, startKey?: Record<string, unknown>): Promise<PagedResult<WorkspaceRecord>> {
    const partition = keys.workspacesOfOrganisation(organisationId);
    const page = await queryPage<Record<string, unknown>>({
      ...gsi1Children(this.table, partition),
      limit,
      startKey,
    });
    return { items: await Promise.all(page.items.map((item) => this.withBudgetUsage(toWorkspace(item)))), nextKey: page.nextKey };
  }

  /** Applies changes to an existing workspace; undefined when it does not exist. */
  async updateWorkspace(workspaceId: string, changes: WorkspaceChanges, now: string): Promise<WorkspaceRecord | undefined> {
    const set: Record<string, unknown> = { ...changes, updated_at: now };
    const remove: string[] = [];
    if (changes.budget_periodic_reset !== undefined) {
      const index = resetIndex({ id: workspaceId, budget_periodic_reset: changes.budget_periodic_reset, budget_next_reset_at: changes.budget_next_reset_at });
      if (index.gsi2pk) Object.assign(set, index);
      else remove.push('gsi2pk', 'gsi2sk');
    }
    const expression = updateExpression(set, remove);
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.workspace(workspaceId),
          ...expression,
          ConditionExpression: 'attribute_exists(pk)',
          ReturnValues: 'ALL_NEW',
        }),
      );
      return await this.withBudgetUsage(toWorkspace(result.Attributes ?? {}));
    } catch (error) {
      if (isConditionalCheckFailure(error)) return undefined;
      throw error;
    }
  }

  /**
   * Sets the credit limit and the status it implies against the usage read just before: `active` when usage is
   * below the new limit (a raised limit reopens an exhausted workspace at once), `exhausted` otherwise. Usage
   * lives on counter items (no single write can compare it), and admission decides by the numbers anyway.
   */
  async setCreditLimit(workspaceId: string, creditLimit: number | null, now: string): Promise<WorkspaceRecord | undefined> {
    const current = await this.getWorkspace(workspaceId);
    if (!current) return undefined;
    const status: BudgetStatus = creditLimit !== null && (current.budget_current_usage ?? 0) >= creditLimit ? 'exhausted' : 'active';
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.workspace(workspaceId),
          UpdateExpression: 'SET #limit = :limit, #status = :status, #updated = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#limit': 'budget_credit_limit', '#status': 'budget_status', '#updated': 'updated_at' },
          ExpressionAttributeValues: { ':limit': creditLimit, ':status': status, ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return this.withBudgetUsage(toWorkspace(result.Attributes ?? {}));
    } catch (error) {
      if (isConditionalCheckFailure(error)) return undefined;
      throw error;
    }
  }

  /** Deletes the workspace and gives its slug back. */
  async deleteWorkspace(workspace: WorkspaceRecord): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.table, Key: keys.workspace(workspace.id) }));
    await this.client.send(new DeleteCommand({ TableName: this.table, Key: keys.workspaceSlug(workspace.organisation_id, workspace.slug) }));
  }

  /**
   * Takes one of the workspace's API-key slots: an atomic conditional increment, so concurrent creations can
   * never pass the maximum. False when the workspace is full (or gone).
   */
  async reserveApiKeySlot(workspaceId: string, maximum: number | null): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.workspace(workspaceId),
          UpdateExpression: 'ADD #count :one',
          ConditionExpression: maximum === null ? 'attribute_exists(pk)' : 'attribute_exists(pk) AND (attribute_not_exists(#count) OR #count < :max)',
          ExpressionAttributeNames: { '#count': 'active_api_keys' },
          ExpressionAttributeValues: maximum === null ? { ':one': 1 } : { ':one': 1, ':max': maximum },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  /** Gives a slot back when a key stops being active (revoked, expired) or its creation failed. */
  async releaseApiKeySlot(workspaceId: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.workspace(workspaceId),
          UpdateExpression: 'ADD #count :minusOne',
          ConditionExpression: 'attribute_exists(pk) AND #count > :zero',
          ExpressionAttributeNames: { '#count': 'active_api_keys' },
          ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
  }
}

/** The gsi2 entry of a workspace whose budget resets periodically (read by the budget-restore worker). */
function resetIndex(record: Pick<WorkspaceRecord, 'id' | 'budget_periodic_reset' | 'budget_next_reset_at'>): { gsi2pk?: string; gsi2sk?: string } {
  if (!record.budget_periodic_reset || record.budget_periodic_reset === 'none' || !record.budget_next_reset_at) return {};
  return { gsi2pk: keys.workspaceBudgetResetIndex, gsi2sk: `${record.budget_next_reset_at}#${record.id}` };
}

const STORAGE_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'];

/** A stored item as a record, with the defaults of workspaces created before budgets existed. */
function toWorkspace(item: Record<string, unknown>): WorkspaceRecord {
  const record = Object.fromEntries(Object.entries(item).filter(([name]) => !STORAGE_ATTRIBUTES.includes(name))) as unknown as WorkspaceRecord;
  return {
    ...record,
    budget_credit_limit: record.budget_credit_limit ?? null,
    budget_periodic_reset: record.budget_periodic_reset ?? 'none',
    budget_current_usage: record.budget_current_usage ?? 0,
    budget_status: record.budget_status ?? 'active',
    active_api_keys: record.active_api_keys ?? 0,
  };
}
