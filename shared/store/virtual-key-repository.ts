import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { isConditionalCheckFailure } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { keys } from './keys.js';
import { gsi1Children, queryPage } from './paged-query.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

/** The secret parts of a virtual key, kept only in the SecretStore as one JSON document. */
export interface VirtualKeySecret {
  api_key?: string;
  vertex_service_account_json?: string;
  aws_access_key_id?: string;
  aws_secret_access_key?: string;
  aws_session_token?: string;
}

export type VirtualKeySecretField = keyof VirtualKeySecret;

/** What DynamoDB holds for a virtual key: metadata and non-secret provider settings, never the credential. */
export interface VirtualKeyRecord {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  /** Canonical provider slug. */
  provider: string;
  /** Which secret fields are stored (names only), so lists can say what a key carries without reading it. */
  secret_fields: VirtualKeySecretField[];
  azure?: { resource_name?: string; deployment_id?: string; api_version?: string; model_name?: string };
  vertex?: { project_id?: string; region?: string; batch_bucket?: string; batch_prefix?: string };
  /** role_arn (with external_id, session_name): a role the gateway assumes for Bedrock; not secrets. */
  aws?: { region?: string; role_arn?: string; external_id?: string; session_name?: string; batch_bucket?: string; batch_prefix?: string; batch_role_arn?: string };
  custom_host?: string;
  /** Origins besides custom_host a request may send the credential to (shared/gateway/stored-credential-host.ts). */
  allowed_custom_hosts?: string[];
  created_at: string;
  updated_at: string;
}

export interface RecordPage<T> {
  items: T[];
  /** Where the next page starts, or undefined on the last page. */
  nextKey?: Record<string, unknown>;
}

const STORED_KEY_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk'];

/** The secret's name in the SecretStore, which adds the stack's prefix (`<stackName>/virtual-keys/<ws>/<id>`). */
export function virtualKeySecretName(workspaceId: string, virtualKeyId: string): string {
  return `${VIRTUAL_KEY_SECRETS}${workspaceId}/${virtualKeyId}`;
}

/** Virtual-key credentials sit under this relative prefix; before it existed they were named `<ws>/<id>`. */
export const VIRTUAL_KEY_SECRETS = 'virtual-keys/';

export class VirtualKeyRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  async create(record: VirtualKeyRecord): Promise<void> {
    await this.client.send(
      new PutCommand({ TableName: this.table, Item: this.item(record), ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  }

  /** Replaces an existing record; false when it no longer exists (deleted meanwhile). */
  async replace(record: VirtualKeyRecord): Promise<boolean> {
    try {
      await this.client.send(new PutCommand({ TableName: this.table, Item: this.item(record), ConditionExpression: 'attribute_exists(pk)' }));
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  async get(workspaceId: string, virtualKeyId: string): Promise<VirtualKeyRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.virtualKey(workspaceId, virtualKeyId) }));
    return result.Item ? stripKeys<VirtualKeyRecord>(result.Item) : undefined;
  }

  /** The workspace's virtual keys, newest first. A cursor from another list is refused (400 invalid_cursor). */
  async list(workspaceId: string, limit: number, startKey?: Record<string, unknown>): Promise<RecordPage<VirtualKeyRecord>> {
    const partition = keys.virtualKeysOfWorkspace(workspaceId);
    const page = await queryPage({
      ...gsi1Children(this.table, partition, 'newest-first'),
      limit,
      startKey,
    });
    return { items: page.items.map((item) => stripKeys<VirtualKeyRecord>(item)), nextKey: page.nextKey };
  }

  /** Deletes the record; the deleted record, or undefined when there was none. */
  async delete(workspaceId: string, virtualKeyId: string): Promise<VirtualKeyRecord | undefined> {
    const result = await this.client.send(
      new DeleteCommand({ TableName: this.table, Key: keys.virtualKey(workspaceId, virtualKeyId), ReturnValues: 'ALL_OLD' }),
    );
    return result.Attributes ? stripKeys<VirtualKeyRecord>(result.Attributes) : undefined;
  }

  private item(record: VirtualKeyRecord): Record<string, unknown> {
    return {
      ...keys.virtualKey(record.workspace_id, record.id),
      gsi1pk: keys.virtualKeysOfWorkspace(record.workspace_id),
      gsi1sk: `${record.created_at}#${record.id}`,
      ...record,
    };
  }
}

export function stripKeys<T>(item: Record<string, unknown>): T {
  const copy: Record<string, unknown> = { ...item };
  for (const attribute of STORED_KEY_ATTRIBUTES) delete copy[attribute];
  return copy as T;
}
