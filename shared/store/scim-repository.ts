import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { isConditionalCheckFailure } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { prefixedItems, queryAll } from './paged-query.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

/** The attributes an identity provider sends for a user, as SCIM keeps them (organisation users and workspace identities). */
export interface ScimUserAttributes {
  user_name: string;
  external_id?: string;
  given_name?: string;
  family_name?: string;
  display_name?: string;
  emails: Array<{ value: string; type?: string; primary?: boolean }>;
  active: boolean;
  /** Other attributes the identity provider sent (enterprise extension …), kept and returned as they were. */
  extra: Record<string, unknown>;
}

/**
 * What SCIM knows of a user beyond gw's organisation user (shared/store/user-repository.ts): the identity
 * provider's userName and externalId, name parts, e-mails, `active`, and enterprise-extension attributes it sends.
 */
export interface ScimUserRecord extends ScimUserAttributes {
  user_id: string;
  organisation_id: string;
  /**
   * `scim`: SCIM created the user, so SCIM manages it (may deactivate it). `adopted`: gw had the user first (users
   * API, bootstrap, JWT) and SCIM linked it; SCIM may update it but never deactivate it. Records written before
   * this field existed count as adopted: the safe reading.
   */
  origin?: 'scim' | 'adopted';
  /**
   * The workspace of the workspace SCIM key that created the user (that key sees the users it provisioned). Written
   * no more: such keys now provision workspace identities (scim-identity-repository.ts), and organisation admin keys
   * never set it (records they wrote before carry the admin key's workspace, which then sees them).
   */
  provisioned_in?: string;
  created_at: string;
  updated_at: string;
}

/** A SCIM group: a workspace linked to the identity provider's group (id = workspace id). */
export interface ScimGroupRecord {
  workspace_id: string;
  organisation_id: string;
  display_name: string;
  external_id?: string;
  created_at: string;
  updated_at: string;
}

export class ScimUserNameTakenError extends Error {
  constructor() {
    super('userName already provisioned');
    this.name = 'ScimUserNameTakenError';
  }
}

/**
 * SCIM records live in the organisation's item collection: `SCIMUSER#<user id>`, `SCIMUSERNAME#<lower userName>`
 * (a uniqueness claim) and `SCIMGROUP#<workspace id>`. Lists read the organisation's SCIM records by prefix.
 */
export class ScimRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  async claimUserName(organisationId: string, userName: string, userId: string): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({ TableName: this.table, Item: { ...userNameKey(organisationId, userName), user_id: userId }, ConditionExpression: 'attribute_not_exists(pk) OR user_id = :id', ExpressionAttributeValues: { ':id': userId } }),
      );
    } catch (error) {
      if (isConditionalCheckFailure(error)) throw new ScimUserNameTakenError();
      throw error;
    }
  }

  async releaseUserName(organisationId: string, userName: string, userId: string): Promise<void> {
    try {
      await this.client.send(
        new DeleteCommand({ TableName: this.table, Key: userNameKey(organisationId, userName), ConditionExpression: 'user_id = :id', ExpressionAttributeValues: { ':id': userId } }),
      );
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
  }

  /** The organisation user holding an e-mail address (from the user repository's uniqueness claim). */
  async userIdByEmail(organisationId: string, email: string): Promise<string | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: { pk: `ORG#${organisationId}`, sk: `USEREMAIL#${email.toLowerCase()}` } }));
    return result.Item?.user_id as string | undefined;
  }

  async putUser(record: ScimUserRecord): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.table, Item: { pk: `ORG#${record.organisation_id}`, sk: `SCIMUSER#${record.user_id}`, ...record } }));
  }

  async getUser(organisationId: string, userId: string): Promise<ScimUserRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: { pk: `ORG#${organisationId}`, sk: `SCIMUSER#${userId}` } }));
    return result.Item ? strip<ScimUserRecord>(result.Item) : undefined;
  }

  listUsers(organisationId: string): Promise<ScimUserRecord[]> {
    return this.prefixed<ScimUserRecord>(organisationId, 'SCIMUSER#');
  }

  async deleteUser(organisationId: string, userId: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.table, Key: { pk: `ORG#${organisationId}`, sk: `SCIMUSER#${userId}` } }));
  }

  async putGroup(record: ScimGroupRecord): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.table, Item: { pk: `ORG#${record.organisation_id}`, sk: `SCIMGROUP#${record.workspace_id}`, ...record } }));
  }

  async getGroup(organisationId: string, workspaceId: string): Promise<ScimGroupRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: { pk: `ORG#${organisationId}`, sk: `SCIMGROUP#${workspaceId}` } }));
    return result.Item ? strip<ScimGroupRecord>(result.Item) : undefined;
  }

  listGroups(organisationId: string): Promise<ScimGroupRecord[]> {
    return this.prefixed<ScimGroupRecord>(organisationId, 'SCIMGROUP#');
  }

  async deleteGroup(organisationId: string, workspaceId: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.table, Key: { pk: `ORG#${organisationId}`, sk: `SCIMGROUP#${workspaceId}` } }));
  }

  private prefixed<T>(organisationId: string, prefix: string): Promise<T[]> {
    return queryAll(prefixedItems(this.table, `ORG#${organisationId}`, prefix).input, (item) => strip<T>(item));
  }
}

function userNameKey(organisationId: string, userName: string) {
  return { pk: `ORG#${organisationId}`, sk: `SCIMUSERNAME#${userName.toLowerCase()}` };
}

function strip<T>(item: Record<string, unknown>): T {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest as T;
}
