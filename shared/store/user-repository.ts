import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { isConditionalCheckFailure, updateExpression } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { keys } from './keys.js';
import { prefixedItems, queryAll, queryPage, type PagedResult } from './paged-query.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

/** Role in the organisation: owners and admins manage it; members work in the workspaces they belong to. */
export type OrganisationRole = 'owner' | 'admin' | 'member';
/** Role in one workspace: admins and managers may, among other things, create API keys for its members. */
export type WorkspaceRole = 'admin' | 'manager' | 'member';
export type UserStatus = 'invited' | 'active';

export interface WorkspaceMembership {
  workspace_id: string;
  role: WorkspaceRole;
}

export interface UserRecord {
  id: string;
  organisation_id: string;
  /** Lower-cased; unique inside the organisation. */
  email: string;
  name?: string;
  role: OrganisationRole;
  status: UserStatus;
  workspaces: WorkspaceMembership[];
  created_at: string;
  updated_at?: string;
  invited_by?: string;
}

export interface MembershipRecord extends WorkspaceMembership {
  user_id: string;
  organisation_id: string;
  created_at: string;
}

export class EmailTakenError extends Error {
  constructor() {
    super('e-mail address already belongs to a user of this organisation');
    this.name = 'EmailTakenError';
  }
}

const STORAGE_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'];

/**
 * Users live in their organisation's item collection (`ORG#<org>`, `USER#<id>`), so a lookup by id can never
 * cross organisations; workspace memberships live in the workspace's collection (`WS#<ws>`, `MEMBER#<user>`)
 * and are mirrored on the user record, each write a single conditional item write.
 */
export class UserRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  /** Claims the e-mail address, then writes the user and its memberships; the claim is given back on failure. */
  async create(user: UserRecord): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...keys.userEmail(user.organisation_id, user.email), user_id: user.id },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailure(error)) throw new EmailTakenError();
      throw error;
    }
    try {
      await this.client.send(
        new PutCommand({ TableName: this.table, Item: { ...keys.user(user.organisation_id, user.id), ...user }, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
    } catch (error) {
      await this.client.send(new DeleteCommand({ TableName: this.table, Key: keys.userEmail(user.organisation_id, user.email) }));
      throw error;
    }
    for (const membership of user.workspaces) await this.putMembership(user, membership, user.created_at);
  }

  async get(organisationId: string, userId: string): Promise<UserRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.user(organisationId, userId), ConsistentRead: true }));
    return result.Item ? toUser(result.Item) : undefined;
  }

  async getMembership(workspaceId: string, userId: string): Promise<MembershipRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.workspaceMember(workspaceId, userId), ConsistentRead: true }));
    return result.Item ? (strip(result.Item) as unknown as MembershipRecord) : undefined;
  }

  async list(organisationId: string, filter: { role?: OrganisationRole; status?: UserStatus }, limit: number, startKey?: Record<string, unknown>): Promise<PagedResult<UserRecord>> {
    const partition = keys.organisation(organisationId).pk;
    const page = await queryPage<Record<string, unknown>>({
      ...prefixedItems(this.table, partition, keys.userSortPrefix),
      limit,
      startKey,
      keep: (item) => (filter.role === undefined || item.role === filter.role) && (filter.status === undefined || item.status === filter.status),
    });
    return { items: page.items.map(toUser), nextKey: page.nextKey };
  }

  /** Members of one workspace, as user records, in membership order. */
  async listMembers(
    workspaceId: string,
    organisationId: string,
    filter: { role?: OrganisationRole; status?: UserStatus },
    limit: number,
    startKey?: Record<string, unknown>,
  ): Promise<PagedResult<UserRecord>> {
    const partition = keys.workspace(workspaceId).pk;
    const page = await queryPage<Record<string, unknown>>({
      ...prefixedItems(this.table, partition, keys.memberSortPrefix),
      limit,
      startKey,
    });
    const userIds = page.items.map((item) => item.user_id as string);
    const users = await this.getMany(organisationId, userIds);
    const kept = users.filter((user) => (filter.role === undefined || user.role === filter.role) && (filter.status === undefined || user.status === filter.status));
    return { items: kept, nextKey: page.nextKey };
  }

  /** Whether any user is a member of the workspace (one item read at most). */
  async hasMembers(workspaceId: string): Promise<boolean> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :partition AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':partition': keys.workspace(workspaceId).pk, ':prefix': keys.memberSortPrefix },
        Limit: 1,
      }),
    );
    return (result.Items ?? []).length > 0;
  }

  /** Every membership item of a workspace (for a forced workspace deletion). */
  async membersOf(workspaceId: string): Promise<MembershipRecord[]> {
    return queryAll(prefixedItems(this.table, keys.workspace(workspaceId).pk, keys.memberSortPrefix).input, (item) => strip(item) as unknown as MembershipRecord);
  }

  /**
   * Updates name/role and replaces the memberships: the user record first (conditional on existence), then
   * one membership item per workspace added, changed or removed.
   */
  async update(
    user: UserRecord,
    changes: { name?: string; role?: OrganisationRole; status?: UserStatus; workspaces?: WorkspaceMembership[] },
    now: string,
  ): Promise<UserRecord | undefined> {
    let updated: UserRecord;
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.user(user.organisation_id, user.id),
          ...updateExpression({ name: changes.name, role: changes.role, status: changes.status, workspaces: changes.workspaces, updated_at: now }),
          ConditionExpression: 'attribute_exists(pk)',
          ReturnValues: 'ALL_NEW',
        }),
      );
      updated = toUser(result.Attributes ?? {});
    } catch (error) {
      if (isConditionalCheckFailure(error)) return undefined;
      throw error;
    }
    if (changes.workspaces) {
      const wanted = new Map(changes.workspaces.map((membership) => [membership.workspace_id, membership]));
      for (const old of user.workspaces) {
        if (!wanted.has(old.workspace_id)) await this.deleteMembership(old.workspace_id, user.id);
      }
      for (const membership of wanted.values()) {
        const old = user.workspaces.find((candidate) => candidate.workspace_id === membership.workspace_id);
        if (!old || old.role !== membership.role) await this.putMembership(user, membership, now);
      }
    }
    return updated;
  }

  /** Removes a membership from both sides (the user record keeps the other workspaces). */
  async removeMembership(user: UserRecord, workspaceId: string, now: string): Promise<void> {
    await this.update(user, { workspaces: user.workspaces.filter((membership) => membership.workspace_id !== workspaceId) }, now);
  }

  /** Removes the user, its memberships and its e-mail claim. */
  async delete(user: UserRecord): Promise<void> {
    for (const membership of user.workspaces) await this.deleteMembership(membership.workspace_id, user.id);
    await this.client.send(new DeleteCommand({ TableName: this.table, Key: keys.user(user.organisation_id, user.id) }));
    await this.client.send(new DeleteCommand({ TableName: this.table, Key: keys.userEmail(user.organisation_id, user.email) }));
  }

  private async putMembership(user: UserRecord, membership: WorkspaceMembership, now: string): Promise<void> {
    const item: MembershipRecord = { ...membership, user_id: user.id, organisation_id: user.organisation_id, created_at: now };
    await this.client.send(new PutCommand({ TableName: this.table, Item: { ...keys.workspaceMember(membership.workspace_id, user.id), ...item } }));
  }

  private async deleteMembership(workspaceId: string, userId: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.table, Key: keys.workspaceMember(workspaceId, userId) }));
  }

  private async getMany(organisationId: string, userIds: string[]): Promise<UserRecord[]> {
    if (userIds.length === 0) return [];
    const found = new Map<string, UserRecord>();
    let pending: Array<Record<string, unknown>> = userIds.map((id) => keys.user(organisationId, id));
    // BatchGetItem takes at most 100 keys and may hand some back unprocessed: retry those.
    for (let round = 0; pending.length > 0 && round < 5; round++) {
      const batch = pending.slice(0, 100);
      const result = await this.client.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: batch, ConsistentRead: true } } }));
      for (const item of result.Responses?.[this.table] ?? []) {
        const user = toUser(item);
        found.set(user.id, user);
      }
      pending = [...((result.UnprocessedKeys?.[this.table]?.Keys ?? []) as Array<Record<string, unknown>>), ...pending.slice(100)];
    }
    return userIds.map((id) => found.get(id)).filter((user): user is UserRecord => user !== undefined);
  }
}

function strip(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !STORAGE_ATTRIBUTES.includes(name)));
}

function toUser(item: Record<string, unknown>): UserRecord {
  const user = strip(item) as unknown as UserRecord;
  return { ...user, workspaces: user.workspaces ?? [] };
}
