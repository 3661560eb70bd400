import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { isConditionalCheckFailure } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { keys } from './keys.js';
import { queryAll, queryPage, type PagedResult } from './paged-query.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

import type { CreditLimitType, PeriodicReset, PolicyEnforcement, PolicyKind, PolicyStatus, PolicyType, PolicyUnit } from './policy-values.js';

// The vocabulary's values live in policy-values.ts, which the control plane's schemas read; this module's readers
// get the types of a record's fields from here.
export type { CreditLimitType, PeriodicReset, PolicyEnforcement, PolicyKind, PolicyStatus, PolicyType, PolicyUnit } from './policy-values.js';

/**
 * `key` is `api_key`, `workspace_id`, `virtual_key`, `provider`, `model` or `metadata.<name>`; `value` is the
 * exact value to match, or `*` for any value. Stored values are normalised: `workspace_id` holds the workspace
 * id (never a slug), `provider` the canonical provider slug, `api_key` the API key id.
 */
export interface PolicyCondition {
  key: string;
  value: string;
}

export interface PolicyGroupBy {
  key: string;
}

/** The budget of a usage-limit policy: `cost` in USD, or `tokens`. */
export interface CreditLimit {
  type: CreditLimitType;
  value: number;
}

/**
 * A stored policy, exactly what the gateway's enforcement reads. Conditions are ANDed; each key appears at most
 * once in `conditions` and in `group_by`. Archived policies are kept (readable) and skipped by enforcement.
 */
export interface PolicyRecord {
  id: string;
  kind: PolicyKind;
  name?: string;
  conditions: PolicyCondition[];
  group_by: PolicyGroupBy[];
  type: PolicyType;
  unit: PolicyUnit;
  value: number;
  /** Tokens and credit limits: reserve the estimate at admission (default when absent) or check softly. */
  enforcement?: PolicyEnforcement;
  /** Usage-limit policies only. */
  credit_limit?: CreditLimit;
  /** Usage-limit policies only: when the credit usage starts again from zero. */
  periodic_reset?: PeriodicReset;
  status: PolicyStatus;
  workspace_id: string;
  organisation_id: string;
  created_at: string;
  updated_at: string;
  archived_at?: string;
  /** `organisation` when an organisation admin key created it: a workspace key may only lower its value then. */
  set_by?: 'organisation' | 'workspace';
  /** Starts at 1; every change adds 1 and is written only if nobody changed the policy in between. */
  version: number;
}

export interface PolicyListFilter {
  kind?: PolicyKind;
  status?: PolicyStatus;
  limit: number;
  startKey?: Record<string, unknown>;
}

/** Raised when an update lost a race with another writer (the stored version moved on). */
export class PolicyVersionConflictError extends Error {
  constructor(readonly policyId: string) {
    super(`policy ${policyId} was changed by another writer`);
    this.name = 'PolicyVersionConflictError';
  }
}

const STORAGE_ATTRIBUTES = new Set(['pk', 'sk', 'gsi1pk', 'gsi1sk']);
const KIND_SORT_PREFIX: Record<PolicyKind, string> = { rate_limit: 'RATE_LIMIT#', usage_limit: 'USAGE_LIMIT#' };

/**
 * Policies live in their workspace's partition (`WS#<id>#POLICIES`, sort key `<KIND>#<id>`), so the gateway reads
 * every policy of a workspace with one Query. gsi1 lists an organisation's policies; a pointer item finds a policy
 * by id alone. Ids are time-ordered (UUIDv7), so both orders are creation order.
 */
export class PolicyRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  /**
   * Writes the id pointer first, then the policy. There are no transactions locally: a pointer whose policy write
   * failed points at nothing and reads as "not found".
   */
  async create(record: PolicyRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...keys.policyById(record.id), workspace_id: record.workspace_id, organisation_id: record.organisation_id, kind: record.kind },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    await this.client.send(new PutCommand({ TableName: this.table, Item: this.item(record), ConditionExpression: 'attribute_not_exists(pk)' }));
  }

  async findById(policyId: string): Promise<PolicyRecord | undefined> {
    const pointer = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.policyById(policyId), ConsistentRead: true }));
    if (!pointer.Item) return undefined;
    const { workspace_id: workspaceId, kind } = pointer.Item as { workspace_id: string; kind: PolicyKind };
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: policyKey(workspaceId, kind, policyId), ConsistentRead: true }));
    return result.Item ? toRecord(result.Item) : undefined;
  }

  /** Replaces a policy, only if its stored version is still `expectedVersion`. */
  async replace(record: PolicyRecord, expectedVersion: number): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: this.item(record),
          ConditionExpression: 'attribute_exists(pk) AND #version = :expected',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':expected': expectedVersion },
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailure(error)) throw new PolicyVersionConflictError(record.id);
      throw error;
    }
  }

  /** One page of a workspace's policies, newest first. */
  async listByWorkspace(workspaceId: string, filter: PolicyListFilter): Promise<PagedResult<PolicyRecord>> {
    return this.page(undefined, 'pk', 'sk', keys.policiesOfWorkspace(workspaceId), filter);
  }

  /** One page of an organisation's policies across its workspaces, newest first. */
  async listByOrganisation(organisationId: string, filter: PolicyListFilter): Promise<PagedResult<PolicyRecord>> {
    return this.page('gsi1', 'gsi1pk', 'gsi1sk', keys.policiesOfOrganisation(organisationId), filter);
  }

  /**
   * Every active policy of a workspace, for the gateway's admission check: one Query (more only past DynamoDB's
   * 1 MB page), strongly consistent so a policy is enforced as soon as its creation returned.
   */
  async listActivePolicies(workspaceId: string): Promise<PolicyRecord[]> {
    const active = {
      TableName: this.table,
      KeyConditionExpression: 'pk = :partition',
      FilterExpression: '#status = :active',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':partition': keys.policiesOfWorkspace(workspaceId), ':active': 'active' },
      ConsistentRead: true,
    };
    return queryAll(active, toRecord);
  }

  private async page(
    indexName: string | undefined,
    partitionAttribute: string,
    sortAttribute: string,
    partition: string,
    filter: PolicyListFilter,
  ): Promise<PagedResult<PolicyRecord>> {
    const names: Record<string, string> = { '#partition': partitionAttribute };
    const values: Record<string, unknown> = { ':partition': partition };
    let keyCondition = '#partition = :partition';
    if (filter.kind) {
      names['#sort'] = sortAttribute;
      values[':kind'] = KIND_SORT_PREFIX[filter.kind];
      keyCondition += ' AND begins_with(#sort, :kind)';
    }
    if (filter.status) {
      names['#status'] = 'status';
      values[':status'] = filter.status;
    }
    const page = await queryPage<Record<string, unknown>>({
      input: {
        TableName: this.table,
        IndexName: indexName,
        KeyConditionExpression: keyCondition,
        FilterExpression: filter.status ? '#status = :status' : undefined,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
      },
      keyAttributes: indexName ? ['pk', 'sk', partitionAttribute, sortAttribute] : ['pk', 'sk'],
      partition: { attribute: partitionAttribute, value: partition },
      limit: filter.limit,
      startKey: filter.startKey,
    });
    return { items: page.items.map(toRecord), nextKey: page.nextKey };
  }

  private item(record: PolicyRecord): Record<string, unknown> {
    const sortKey = `${KIND_SORT_PREFIX[record.kind]}${record.id}`;
    return {
      ...policyKey(record.workspace_id, record.kind, record.id),
      gsi1pk: keys.policiesOfOrganisation(record.organisation_id),
      gsi1sk: sortKey,
      ...record,
    };
  }
}

/** For the gateway: every active policy of a workspace (see PolicyRepository.listActivePolicies). */
export function listActivePolicies(workspaceId: string): Promise<PolicyRecord[]> {
  return new PolicyRepository().listActivePolicies(workspaceId);
}

function policyKey(workspaceId: string, kind: PolicyKind, policyId: string): { pk: string; sk: string } {
  return { pk: keys.policiesOfWorkspace(workspaceId), sk: `${KIND_SORT_PREFIX[kind]}${policyId}` };
}

function toRecord(item: Record<string, unknown>): PolicyRecord {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !STORAGE_ATTRIBUTES.has(name))) as unknown as PolicyRecord;
}
