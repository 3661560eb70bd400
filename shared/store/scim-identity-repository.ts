import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { isConditionalCheckFailure } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { prefixedItems, queryAll } from './paged-query.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';
import type { ScimUserAttributes } from './scim-repository.js';

/**
 * A user a workspace-confined SCIM key provisioned: the identity provider's view of one person in one workspace.
 * Its userName and e-mail are unique only inside that workspace, so provisioning one never consults (and never
 * reveals) the organisation's other users. It is tied to an organisation user (`user_id`) only when that is
 * safe: the user was already a member of the workspace at provisioning, or an organisation admin linked it. Until
 * then it is pending: no organisation user, so nothing can sign in as it or be granted to it.
 */
export interface ScimIdentityRecord extends ScimUserAttributes {
  id: string;
  organisation_id: string;
  workspace_id: string;
  /** The address it links by (lower-cased), from the first create; the SCIM `emails` may change, this does not. */
  email: string;
  /** The identity is a member of its workspace's SCIM group; it becomes a workspace membership once linked and active. */
  in_group: boolean;
  /** The organisation user it stands for; absent while pending. */
  user_id?: string;
  linked_at?: string;
  linked_by?: string;
  created_at: string;
  updated_at: string;
  /**
   * How many times the record was written (absent on records written before it was kept): each write is conditional
   * on the version it read, so of two changes made from one state (two admins' links, a link and a deprovisioning)
   * exactly one lands. Internal: neither the SCIM resource nor the admin's view shows it.
   */
  version?: number;
}

/** A conditional write lost: the identity was changed (`current`) or removed (`current` undefined) since it was read. */
export class ScimIdentityChangedError extends Error {
  constructor(readonly current: ScimIdentityRecord | undefined) {
    super(current ? 'the SCIM identity changed since it was read' : 'the SCIM identity is gone');
    this.name = 'ScimIdentityChangedError';
  }
}

/** Another identity of the workspace already stands for this organisation user (its link claim is taken). */
export class ScimIdentityUserTakenError extends Error {
  constructor() {
    super('the user is already linked to another SCIM identity of this workspace');
    this.name = 'ScimIdentityUserTakenError';
  }
}

export class ScimIdentityTakenError extends Error {
  constructor(readonly attribute: 'userName' | 'email') {
    super(`${attribute} already provisioned in this workspace`);
    this.name = 'ScimIdentityTakenError';
  }
}

/**
 * Identities live in their organisation's SCIM-identity collection (`SCIMIDS#<org>`): `IDENT#<workspace>#<id>`,
 * the workspace-scoped uniqueness claims `NAME#<workspace>#<lower userName>` and `EMAIL#<workspace>#<lower
 * e-mail>`, and `LINK#<workspace>#<user id>`, the one identity of the workspace a user is linked to, and `BYID#<id>`, the workspace of
 * an identity (for reads by id alone). A workspace's identities are one Query by prefix; an organisation admin reads all of them by the
 * partition. Every multi-item change is a sequence of single conditional writes (the local store has no
 * transactions); a failed claim gives back the claims made before it.
 */
export class ScimIdentityRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  /** Claims the userName and the e-mail inside the workspace, then writes the identity. */
  async create(identity: ScimIdentityRecord): Promise<void> {
    await this.claim(identity, 'userName', identity.user_name);
    try {
      await this.claim(identity, 'email', identity.email);
    } catch (error) {
      await this.release(identity, 'userName', identity.user_name);
      throw error;
    }
    await this.client.send(
      new PutCommand({ TableName: this.table, Item: { ...identityKey(identity.organisation_id, identity.workspace_id, identity.id), ...identity, version: 1 }, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    await this.pointAt(identity);
  }

  /**
   * The identity with this id, wherever its workspace: an admin's link names only the id. Two point reads (the
   * `BYID#` pointer, then the identity), not the organisation's whole list. Identities created before pointers
   * were written have none: for them (and for ids that do not exist) the list answers once and the pointer is
   * written, so the next read is a point read.
   */
  async findById(organisationId: string, id: string): Promise<ScimIdentityRecord | undefined> {
    const pointer = await this.client.send(new GetCommand({ TableName: this.table, Key: pointerKey(organisationId, id), ConsistentRead: true }));
    const workspaceId = pointer.Item?.workspace_id;
    if (typeof workspaceId === 'string') return this.get(organisationId, workspaceId, id);
    const found = (await this.list(organisationId)).find((identity) => identity.id === id);
    if (found) await this.pointAt(found);
    return found;
  }

  async get(organisationId: string, workspaceId: string, id: string): Promise<ScimIdentityRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: identityKey(organisationId, workspaceId, id), ConsistentRead: true }));
    return result.Item ? strip(result.Item) : undefined;
  }

  /** One workspace's identities, or (no workspace) every identity of the organisation. */
  async list(organisationId: string, workspaceId?: string): Promise<ScimIdentityRecord[]> {
    const { input } = prefixedItems(this.table, partition(organisationId), workspaceId === undefined ? 'IDENT#' : `IDENT#${workspaceId}#`);
    return queryAll({ ...input, ConsistentRead: true }, strip);
  }

  /** Moves the userName claim (a rename): the new one first, so a refused rename leaves the old one in place. */
  async rename(identity: ScimIdentityRecord, userName: string): Promise<void> {
    if (userName.toLowerCase() === identity.user_name.toLowerCase()) return;
    await this.claim(identity, 'userName', userName);
    await this.release(identity, 'userName', identity.user_name);
  }

  /**
   * Writes `next` over the identity as it was read: only if it is still there and no write came between (same
   * version). Throws ScimIdentityChangedError with the identity as it now is (undefined when gone) otherwise.
   */
  async replace(read: ScimIdentityRecord, next: ScimIdentityRecord): Promise<ScimIdentityRecord> {
    const stored: ScimIdentityRecord = { ...next, version: (read.version ?? 0) + 1 };
    const key = identityKey(read.organisation_id, read.workspace_id, read.id);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...key, ...stored },
          // A record from before versions were kept has none: it may be written once, by whoever is first.
          ...(read.version === undefined
            ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(version)' }
            : { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': read.version } }),
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailure(error)) throw new ScimIdentityChangedError(await this.get(read.organisation_id, read.workspace_id, read.id));
      throw error;
    }
    return stored;
  }

  /**
   * Claims `userId` for this identity in its workspace, before the link is written: one identity per user in a
   * workspace, so one identity's deprovisioning never undoes another's grant. A conditional write, not a read of
   * the other identities, so of any number of links made at once to one user exactly one gets the claim.
   * Throws ScimIdentityUserTakenError when another identity holds it; claiming again for the same identity is a no-op.
   */
  async claimUser(identity: ScimIdentityRecord, userId: string): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...userClaimKey(identity, userId), identity_id: identity.id },
          ConditionExpression: 'attribute_not_exists(pk) OR identity_id = :id',
          ExpressionAttributeValues: { ':id': identity.id },
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailure(error)) throw new ScimIdentityUserTakenError();
      throw error;
    }
  }

  /** Gives back a user claim whose link was not written (the link lost its race, or the identity went). */
  async releaseUser(identity: ScimIdentityRecord, userId: string): Promise<void> {
    await this.releaseKey(identity, userClaimKey(identity, userId));
  }

  private async claim(identity: ScimIdentityRecord, attribute: 'userName' | 'email', value: string): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...claimKey(identity, attribute, value), identity_id: identity.id },
          ConditionExpression: 'attribute_not_exists(pk) OR identity_id = :id',
          ExpressionAttributeValues: { ':id': identity.id },
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailure(error)) throw new ScimIdentityTakenError(attribute);
      throw error;
    }
  }

  private async release(identity: ScimIdentityRecord, attribute: 'userName' | 'email', value: string): Promise<void> {
    await this.releaseKey(identity, claimKey(identity, attribute, value));
  }

  /** Where an identity of this id lives; an identity's workspace never changes, so the pointer never goes stale. */
  private async pointAt(identity: ScimIdentityRecord): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.table, Item: { ...pointerKey(identity.organisation_id, identity.id), workspace_id: identity.workspace_id } }));
  }

  /** Deletes a claim only while this identity holds it. */
  private async releaseKey(identity: ScimIdentityRecord, key: { pk: string; sk: string }): Promise<void> {
    try {
      await this.client.send(
        new DeleteCommand({ TableName: this.table, Key: key, ConditionExpression: 'identity_id = :id', ExpressionAttributeValues: { ':id': identity.id } }),
      );
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
  }
}

const partition = (organisationId: string) => `SCIMIDS#${organisationId}`;

function identityKey(organisationId: string, workspaceId: string, id: string) {
  return { pk: partition(organisationId), sk: `IDENT#${workspaceId}#${id}` };
}

function pointerKey(organisationId: string, id: string) {
  return { pk: partition(organisationId), sk: `BYID#${id}` };
}

function claimKey(identity: ScimIdentityRecord, attribute: 'userName' | 'email', value: string) {
  return { pk: partition(identity.organisation_id), sk: `${attribute === 'userName' ? 'NAME' : 'EMAIL'}#${identity.workspace_id}#${value.toLowerCase()}` };
}

function userClaimKey(identity: ScimIdentityRecord, userId: string) {
  return { pk: partition(identity.organisation_id), sk: `LINK#${identity.workspace_id}#${userId}` };
}

function strip(item: Record<string, unknown>): ScimIdentityRecord {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest as unknown as ScimIdentityRecord;
}
