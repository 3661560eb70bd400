import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { updateExpression } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { logKeys } from './log-keys.js';
import { LOGS_TABLE, tableName } from './table-definitions.js';

export type ExportStatus = 'pending' | 'running' | 'completed' | 'failed';

/** A data export job: the filters it was asked with, and where its JSON Lines file is once written. */
export interface ExportRecord {
  id: string;
  workspace_id: string;
  organisation_id: string;
  created_by: string;
  status: ExportStatus;
  filters: Record<string, unknown>;
  created_at: string;
  completed_at?: string;
  row_count?: number;
  blob_key?: string;
  error?: string;
  /** True when its creator may not see tokens and cost (membersViewAnalytics): the file is written without them. */
  usage_hidden?: boolean;
}

const DAY_SECONDS = 86_400;

/** Export jobs, kept in the logs table under their workspace (expiring with the logs' retention). */
export class ExportRepository {
  private readonly table = tableName(settings(), LOGS_TABLE);

  async create(record: ExportRecord): Promise<void> {
    const ttl = Math.floor(Date.parse(record.created_at) / 1000) + settings().LOG_RETENTION_DISPLAY * DAY_SECONDS;
    await dynamoDocumentClient().send(
      new PutCommand({ TableName: this.table, Item: { ...logKeys.exportJob(record.workspace_id, record.id), ttl, ...record }, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  }

  async get(workspaceId: string, id: string): Promise<ExportRecord | undefined> {
    const result = await dynamoDocumentClient().send(new GetCommand({ TableName: this.table, Key: logKeys.exportJob(workspaceId, id), ConsistentRead: true }));
    if (!result.Item) return undefined;
    const { pk: _pk, sk: _sk, ttl: _ttl, ...record } = result.Item;
    return record as ExportRecord;
  }

  async update(workspaceId: string, id: string, changes: Partial<Pick<ExportRecord, 'status' | 'completed_at' | 'row_count' | 'blob_key' | 'error'>>): Promise<void> {
    await dynamoDocumentClient().send(new UpdateCommand({ TableName: this.table, Key: logKeys.exportJob(workspaceId, id), ...updateExpression(changes) }));
  }
}
