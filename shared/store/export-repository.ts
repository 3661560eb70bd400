import { BatchGetCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { updateExpression } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { queryPage } from './paged-query.js';
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
 * The workspace's list of exports: one small entry per export in one partition, sorted by creation time, so
 * GET /v1/exports is a Query (newest first) instead of a scan. The record itself stays under its own key (where
 * GET /v1/exports/{id} reads it); the entry only points at it. Not a GSI: the local store (dynalite) cannot add an
 * index to a table that already exists, and a data directory from before this list would lose its exports.
 */
const listPartition = (workspaceId: string) => `WS#${workspaceId}#EXPORTS`;
const listEntryKey = (record: Pick<ExportRecord, 'workspace_id' | 'created_at' | 'id'>) => ({ pk: listPartition(record.workspace_id), sk: `EXPORT#${record.created_at}#${record.id}` });

export interface ExportPage {
  records: ExportRecord[];
  /** Where the next page starts, or undefined on the last page. */
  nextKey?: Record<string, unknown>;
}

const BATCH_GET_MAX_KEYS = 100;

/**
 * Export jobs, kept in the logs table under their workspace (expiring with the logs' retention). The table no
 * longer holds request logs (they are the log engine's); it keeps export jobs and the model-config log store.
 */
export class ExportRepository {
  private readonly table = tableName(settings(), LOGS_TABLE);

  async create(record: ExportRecord): Promise<void> {
    const ttl = Math.floor(Date.parse(record.created_at) / 1000) + settings().LOG_RETENTION_DISPLAY * DAY_SECONDS;
    // The list entry first: should the record's write fail, the entry points at nothing and the list skips it;
    // the other order could leave an export that exists but is never listed.
    await dynamoDocumentClient().send(new PutCommand({ TableName: this.table, Item: { ...listEntryKey(record), export_id: record.id, ttl } }));
    await dynamoDocumentClient().send(
      new PutCommand({ TableName: this.table, Item: { ...exportKey(record.workspace_id, record.id), ttl, ...record }, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  }

  /** One page of the workspace's exports, newest first. Entries past retention, or whose record is gone, are left out. */
  async list(workspaceId: string, page: { limit: number; startKey?: Record<string, unknown> }): Promise<ExportPage> {
    const partition = listPartition(workspaceId);
    const now = Math.floor(Date.now() / 1000);
    const { items, nextKey } = await queryPage<{ export_id: string; ttl?: number }>({
      input: { TableName: this.table, KeyConditionExpression: 'pk = :partition', ExpressionAttributeValues: { ':partition': partition }, ScanIndexForward: false },
      keyAttributes: ['pk', 'sk'],
      partition: { attribute: 'pk', value: partition },
      limit: page.limit,
      startKey: page.startKey,
      // TTL deletion is only clean-up (and dynalite has none): an expired entry is gone for readers.
      keep: (entry) => entry.ttl === undefined || entry.ttl > now,
    });
    const records = await this.getMany(workspaceId, items.map((entry) => entry.export_id));
    return { records, nextKey };
  }

  async get(workspaceId: string, id: string): Promise<ExportRecord | undefined> {
    const result = await dynamoDocumentClient().send(new GetCommand({ TableName: this.table, Key: exportKey(workspaceId, id), ConsistentRead: true }));
    return result.Item ? toRecord(result.Item) : undefined;
  }

  /** The records of these ids in this workspace, in the order asked; ids without a record are left out. */
  private async getMany(workspaceId: string, ids: string[]): Promise<ExportRecord[]> {
    const found = new Map<string, ExportRecord>();
    let pending: Array<Record<string, unknown>> = ids.map((id) => exportKey(workspaceId, id));
    // BatchGetItem takes at most 100 keys and may hand some back unprocessed: retry those.
    for (let round = 0; pending.length > 0 && round < 5; round++) {
      const batch = pending.slice(0, BATCH_GET_MAX_KEYS);
      const result = await dynamoDocumentClient().send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: batch, ConsistentRead: true } } }));
      for (const item of result.Responses?.[this.table] ?? []) {
        const record = toRecord(item);
        found.set(record.id, record);
      }
      pending = [...((result.UnprocessedKeys?.[this.table]?.Keys ?? []) as Array<Record<string, unknown>>), ...pending.slice(BATCH_GET_MAX_KEYS)];
    }
    return ids.map((id) => found.get(id)).filter((record): record is ExportRecord => record !== undefined);
  }

  async update(workspaceId: string, id: string, changes: Partial<Pick<ExportRecord, 'status' | 'completed_at' | 'row_count' | 'engine_job_id' | 'outputs' | 'error'>>): Promise<void> {
    await dynamoDocumentClient().send(new UpdateCommand({ TableName: this.table, Key: exportKey(workspaceId, id), ...updateExpression(changes) }));
  }
}

function toRecord(item: Record<string, unknown>): ExportRecord {
  const { pk: _pk, sk: _sk, ttl: _ttl, ...record } = item;
  return record as unknown as ExportRecord;
}
