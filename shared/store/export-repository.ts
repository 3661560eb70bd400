import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { updateExpression } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { LOGS_TABLE, tableName } from './table-definitions.js';

export type ExportStatus = 'pending' | 'running' | 'completed' | 'failed';
export type ExportFormat = 'jsonl' | 'parquet' | 'csv';

/** A data export job: the filters it was asked with, its engine job, and where its files are once written. */
export interface ExportRecord {
  id: string;
  workspace_id: string;
  organisation_id: string;
  created_by: string;
  status: ExportStatus;
  filters: Record<string, unknown>;
  created_at: string;
  completed_at?: string;
  /** Unset on jobs made before formats existed: JSON Lines. */
  format?: ExportFormat;
  row_count?: number;
  /** The log engine's job (DuckDB COPY, Athena UNLOAD) writing the files. */
  engine_job_id?: string;
  /** The engine's output files once completed: local paths, or (AWS) what the engine hands out. */
  outputs?: string[];
  error?: string;
  /** True when its creator may not see tokens and cost (membersViewAnalytics): the file is written without them. */
  usage_hidden?: boolean;
}

const DAY_SECONDS = 86_400;

const exportKey = (workspaceId: string, exportId: string) => ({ pk: `WS#${workspaceId}#EXPORT#${exportId}`, sk: 'EXPORT' });

/**
 * Export jobs, kept in the logs table under their workspace (expiring with the logs' retention). The table no
 * longer holds request logs (they are the log engine's); it keeps export jobs and the model-config log store.
 */
export class ExportRepository {
  private readonly table = tableName(settings(), LOGS_TABLE);

  async create(record: ExportRecord): Promise<void> {
    const ttl = Math.floor(Date.parse(record.created_at) / 1000) + settings().LOG_RETENTION_DISPLAY * DAY_SECONDS;
    await dynamoDocumentClient().send(
      new PutCommand({ TableName: this.table, Item: { ...exportKey(record.workspace_id, record.id), ttl, ...record }, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  }

  async get(workspaceId: string, id: string): Promise<ExportRecord | undefined> {
    const result = await dynamoDocumentClient().send(new GetCommand({ TableName: this.table, Key: exportKey(workspaceId, id), ConsistentRead: true }));
    if (!result.Item) return undefined;
    const { pk: _pk, sk: _sk, ttl: _ttl, ...record } = result.Item;
    return record as ExportRecord;
  }

  async update(workspaceId: string, id: string, changes: Partial<Pick<ExportRecord, 'status' | 'completed_at' | 'row_count' | 'engine_job_id' | 'outputs' | 'error'>>): Promise<void> {
    await dynamoDocumentClient().send(new UpdateCommand({ TableName: this.table, Key: exportKey(workspaceId, id), ...updateExpression(changes) }));
  }
}
