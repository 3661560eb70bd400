import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { keys } from './keys.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

export interface OrganisationRecord {
  id: string;
  name: string;
  created_at: string;
}

export interface WorkspaceRecord {
  id: string;
  organisation_id: string;
  name: string;
  slug: string;
  created_at: string;
}

export class WorkspaceRepository {
  private readonly client = dynamoDocumentClient();
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

  async createWorkspace(record: WorkspaceRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...keys.workspace(record.id),
          gsi1pk: keys.workspacesOfOrganisation(record.organisation_id),
          gsi1sk: `${record.created_at}#${record.id}`,
          ...record,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getWorkspace(workspaceId: string): Promise<WorkspaceRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.workspace(workspaceId) }));
    return result.Item as WorkspaceRecord | undefined;
  }
}
