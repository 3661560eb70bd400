import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { isConditionalCheckFailure, updateExpression } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { keys } from './keys.js';
import { gsi1Children, queryAll, queryPage, type PagedResult } from './paged-query.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

export type ApiKeyStatus = 'active' | 'revoked' | 'expired';
/** Organisation admin keys manage the whole organisation; workspace keys are confined to one workspace. */
export type ApiKeyKind = 'admin' | 'workspace';

export type RotationPeriod = 'weekly' | 'monthly' | 'custom';

/** When a key's secret should be replaced; gw only stores it and reports `rotation_due` (it never holds the secret). */
export interface RotationPolicy {
  period: RotationPeriod;
  /** Days between rotations; required with `custom`. */
  interval_days?: number;
  /** How long the previous secret keeps working after a rotation, unless the rotate call says otherwise. */
  transition_period_ms?: number;
}

/** What is stored for an API key. The raw key never is: only its SHA-256. */
export interface ApiKeyRecord {
  id: string;
  key_hash: string;
  /** A masked form safe to show in lists, e.g. `gwk_AbC1…xYz9`. */
  masked: string;
  name: string;
  kind: ApiKeyKind;
  /** `service` keys belong to an automation, `user` keys to a person (user_id). */
  type: 'service' | 'user';
  user_id?: string;
  organisation_id: string;
  /** The workspace the key works in; admin keys carry the default workspace for gateway calls. */
  workspace_id: string;
  scopes: string[];
  status: ApiKeyStatus;
  /** ISO-8601 time after which the key is refused, or absent for keys that do not expire. */
  expires_at?: string;
  created_at: string;
  description?: string;
  metadata?: Record<string, string>;
  updated_at?: string;
  revoked_at?: string;
  /** The key id (or `jwt:<sub>`) that created this key. */
  created_by?: string;
  /**
   * For a service key made by a user's key (or by a service key that itself carries one): that user. What the key
   * may see follows its maker's role, so a key never sees more than the key that minted it (analytics/visibility.ts).
   */
  made_by_user_id?: string;
  rotation_policy?: RotationPolicy;
  next_rotation_at?: string;
  last_rotated_at?: string;
  /** Set on the record of a secret replaced by a rotation: it works until `expires_at`, then never again. */
  previous_secret?: boolean;
}

/** The id → hash pointer: get/update/revoke by id cost one extra GetItem; the gateway's lookup by hash costs one. */
export interface ApiKeyPointer {
  id: string;
  key_hash: string;
  /** Hashes of secrets replaced by rotations that may still be in their transition period. */
  previous_key_hashes: string[];
  organisation_id: string;
  workspace_id: string;
  kind: ApiKeyKind;
}

export type ApiKeyChanges = Partial<Pick<ApiKeyRecord, 'name' | 'description' | 'metadata' | 'scopes'>> & {
  /** null removes the expiry. */
  expires_at?: string | null;
  rotation_policy?: RotationPolicy | null;
  next_rotation_at?: string | null;
};

export interface ApiKeyListFilter {
  status?: ApiKeyStatus;
  user_id?: string;
  /** true: only keys whose next_rotation_at has passed; false: only the others. */
  rotation_due?: boolean;
  /** The key's workspace (for admin keys: their home workspace). */
  workspace_id?: string;
}

const STORAGE_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'];

export class ApiKeyRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  /** The gateway's hot path: one GetItem by the hash of the presented key. */
  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.apiKeyByHash(keyHash) }));
    return result.Item ? toRecord(result.Item) : undefined;
  }

  /** Creates a key record and its id pointer; refuses to overwrite an existing hash or id. */
  async create(record: ApiKeyRecord): Promise<void> {
    await this.putRecord(record);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...keys.apiKeyById(record.id), ...pointerOf(record, []) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      await this.client.send(new DeleteCommand({ TableName: this.table, Key: keys.apiKeyByHash(record.key_hash) }));
      throw error;
    }
  }

  async findPointer(keyId: string): Promise<ApiKeyPointer | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.apiKeyById(keyId), ConsistentRead: true }));
    if (!result.Item) return undefined;
    const { pk: _pk, sk: _sk, ...pointer } = result.Item;
    return { previous_key_hashes: [], ...pointer } as unknown as ApiKeyPointer;
  }

  /** The current record of a key by id (strongly consistent). */
  async findById(keyId: string): Promise<{ pointer: ApiKeyPointer; record: ApiKeyRecord } | undefined> {
    const pointer = await this.findPointer(keyId);
    if (!pointer) return undefined;
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.apiKeyByHash(pointer.key_hash), ConsistentRead: true }));
    return result.Item ? { pointer, record: toRecord(result.Item) } : undefined;
  }

  /** Workspace keys of one workspace, oldest first; `status` compares against the clock, like the gateway. */
  async listOfWorkspace(workspaceId: string, filter: ApiKeyListFilter, limit: number, startKey?: Record<string, unknown>, now = Date.now()) {
    return this.list(keys.apiKeysOfWorkspace(workspaceId), filter, limit, startKey, now);
  }

  async listAdminKeys(organisationId: string, filter: ApiKeyListFilter, limit: number, startKey?: Record<string, unknown>, now = Date.now()) {
    return this.list(keys.apiKeysOfOrganisation(organisationId), filter, limit, startKey, now);
  }

  /** Active secrets whose expiry is at or before `before` (ISO), oldest first: the expiry worker's queue. */
  async dueForExpiry(before: string, limit: number): Promise<ApiKeyRecord[]> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :partition AND gsi2sk <= :before',
        // `#` sorts before every id character, so `<before>#~` includes every key expiring exactly at `before`.
        ExpressionAttributeValues: { ':partition': keys.activeKeyExpiryIndex, ':before': `${before}#~` },
        Limit: limit,
      }),
    );
    return (result.Items ?? []).map(toRecord);
  }

  /** Every key record (current secrets only) of a workspace, for workspace deletion and user removal. */
  async allOfWorkspace(workspaceId: string): Promise<ApiKeyRecord[]> {
    return queryAll(gsi1Children(this.table, keys.apiKeysOfWorkspace(workspaceId)).input, toRecord);
  }

  /**
   * Applies changes to the record of one secret (current or previous). The expiry index follows: an active
   * key with an expiry is in it, anything else leaves it. Undefined when the record is gone.
   */
  async updateSecret(keyHash: string, changes: ApiKeyChanges, now: string): Promise<ApiKeyRecord | undefined> {
    const current = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.apiKeyByHash(keyHash), ConsistentRead: true }));
    if (!current.Item) return undefined;
    const record = toRecord(current.Item);
    const set: Record<string, unknown> = { updated_at: now };
    const remove: string[] = [];
    for (const [attribute, value] of Object.entries(changes)) {
      if (value === null) remove.push(attribute);
      else if (value !== undefined) set[attribute] = value;
    }
    const expiresAt = changes.expires_at === undefined ? record.expires_at : (changes.expires_at ?? undefined);
    if (record.status === 'active' && expiresAt) Object.assign(set, expiryIndex(record.id, expiresAt));
    else remove.push('gsi2pk', 'gsi2sk');
    const expression = updateExpression(set, remove);
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.apiKeyByHash(keyHash),
          UpdateExpression: expression.UpdateExpression,
          // Only over the state read above: a concurrent revocation wins and is never undone by an update.
          ConditionExpression: 'attribute_exists(pk) AND #status_c = :status_c',
          ExpressionAttributeNames: { ...expression.ExpressionAttributeNames, '#status_c': 'status' },
          ExpressionAttributeValues: { ...expression.ExpressionAttributeValues, ':status_c': record.status },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toRecord(result.Attributes ?? {});
    } catch (error) {
      if (isConditionalCheckFailure(error)) return undefined;
      throw error;
    }
  }

  /**
   * Moves one secret from active to `revoked` or `expired` and takes it out of the expiry index. True when
   * this call made the change (false when it was not active any more), so callers count each change once.
   */
  async deactivateSecret(keyHash: string, status: 'revoked' | 'expired', now: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.apiKeyByHash(keyHash),
          UpdateExpression: `SET #status = :status, #updated = :now${status === 'revoked' ? ', #revoked = :now' : ''} REMOVE gsi2pk, gsi2sk`,
          ConditionExpression: 'attribute_exists(pk) AND #status = :active',
          ExpressionAttributeNames: { '#status': 'status', '#updated': 'updated_at', ...(status === 'revoked' ? { '#revoked': 'revoked_at' } : {}) },
          ExpressionAttributeValues: { ':status': status, ':now': now, ':active': 'active' },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  /**
   * Rotation, step by step with single-item conditional writes: store the new secret's record, swing the id
   * pointer to it (conditional on the pointer still naming the old secret, so two concurrent rotations cannot
   * both win), then demote the old secret: it leaves the list and works until `previousExpiresAt`.
   * Returns false (and removes the new record) when another rotation got there first.
   */
  async rotate(pointer: ApiKeyPointer, current: ApiKeyRecord, next: ApiKeyRecord, previousExpiresAt: string, now: string): Promise<boolean> {
    await this.putRecord(next);
    const stillInTransition = await this.previousStillValid(pointer.previous_key_hashes, now);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.apiKeyById(pointer.id),
          UpdateExpression: 'SET key_hash = :next, previous_key_hashes = :previous',
          ConditionExpression: 'key_hash = :current',
          ExpressionAttributeValues: { ':next': next.key_hash, ':current': current.key_hash, ':previous': [...stillInTransition, current.key_hash] },
        }),
      );
    } catch (error) {
      await this.client.send(new DeleteCommand({ TableName: this.table, Key: keys.apiKeyByHash(next.key_hash) }));
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
    const expiresAt = current.expires_at && current.expires_at < previousExpiresAt ? current.expires_at : previousExpiresAt;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.apiKeyByHash(current.key_hash),
          ...updateExpression({ previous_secret: true, expires_at: expiresAt, updated_at: now, ...expiryIndex(current.id, expiresAt) }, ['gsi1pk', 'gsi1sk']),
          ConditionExpression: 'attribute_exists(pk)',
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
    return true;
  }

  private async previousStillValid(hashes: string[], now: string): Promise<string[]> {
    const valid: string[] = [];
    for (const hash of hashes) {
      const record = await this.findByHash(hash);
      if (record && record.status === 'active' && (!record.expires_at || record.expires_at > now)) valid.push(hash);
    }
    return valid;
  }

  private async putRecord(record: ApiKeyRecord): Promise<void> {
    const listed = record.previous_secret
      ? {}
      : {
          gsi1pk: record.kind === 'admin' ? keys.apiKeysOfOrganisation(record.organisation_id) : keys.apiKeysOfWorkspace(record.workspace_id),
          gsi1sk: `${record.created_at}#${record.id}`,
        };
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...keys.apiKeyByHash(record.key_hash),
          ...listed,
          ...(record.status === 'active' && record.expires_at ? expiryIndex(record.id, record.expires_at) : {}),
          ...record,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  private async list(partition: string, filter: ApiKeyListFilter, limit: number, startKey: Record<string, unknown> | undefined, now: number): Promise<PagedResult<ApiKeyRecord>> {
    const page = await queryPage<Record<string, unknown>>({
      ...gsi1Children(this.table, partition),
      limit,
      startKey,
      keep: (item) => {
        const record = item as unknown as ApiKeyRecord;
        if (filter.user_id !== undefined && record.user_id !== filter.user_id) return false;
        if (filter.workspace_id !== undefined && record.workspace_id !== filter.workspace_id) return false;
        if (filter.rotation_due !== undefined && isRotationDue(record, now) !== filter.rotation_due) return false;
        return filter.status === undefined || effectiveStatus(record, now) === filter.status;
      },
    });
    return { items: page.items.map(toRecord), nextKey: page.nextKey };
  }
}

/** The status a caller sees: an active key past its expiry is expired now, whether or not the worker has run. */
export function effectiveStatus(record: Pick<ApiKeyRecord, 'status' | 'expires_at'>, now = Date.now()): ApiKeyStatus {
  if (record.status === 'active' && record.expires_at !== undefined && Date.parse(record.expires_at) <= now) return 'expired';
  return record.status;
}

export function isRotationDue(record: Pick<ApiKeyRecord, 'next_rotation_at'>, now = Date.now()): boolean {
  return record.next_rotation_at !== undefined && Date.parse(record.next_rotation_at) <= now;
}

/** The gsi2 entry of an active key that expires: what the expiry worker queries. */
function expiryIndex(keyId: string, expiresAt: string): { gsi2pk: string; gsi2sk: string } {
  return { gsi2pk: keys.activeKeyExpiryIndex, gsi2sk: `${expiresAt}#${keyId}` };
}

function pointerOf(record: ApiKeyRecord, previous: string[]): ApiKeyPointer {
  return {
    id: record.id,
    key_hash: record.key_hash,
    previous_key_hashes: previous,
    organisation_id: record.organisation_id,
    workspace_id: record.workspace_id,
    kind: record.kind,
  };
}

function toRecord(item: Record<string, unknown>): ApiKeyRecord {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !STORAGE_ATTRIBUTES.includes(name))) as unknown as ApiKeyRecord;
}
