import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { keys } from './keys.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

export type ApiKeyStatus = 'active' | 'revoked' | 'expired';
/** Organisation admin keys manage the whole organisation; workspace keys are confined to one workspace. */
export type ApiKeyKind = 'admin' | 'workspace';

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
}

export class ApiKeyRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.apiKeyByHash(keyHash) }));
    return result.Item as ApiKeyRecord | undefined;
  }

  /** Creates a key record; refuses to overwrite an existing hash. */
  async create(record: ApiKeyRecord): Promise<void> {
    const expiryIndex =
      record.status === 'active' && record.expires_at
        ? { gsi2pk: keys.activeKeyExpiryIndex, gsi2sk: `${record.expires_at}#${record.id}` }
        : {};
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...keys.apiKeyByHash(record.key_hash),
          gsi1pk: keys.apiKeysOfOrganisation(record.organisation_id),
          gsi1sk: `APIKEY#${record.id}`,
          ...expiryIndex,
          ...record,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }
}
