import { BatchGetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { badRequest } from '../http/errors.js';
import type { RequestLogRecord } from '../observability/log-record.js';
import { settings } from '../settings.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { isIndexedLogValue, logKeys, type LogIndexField } from './log-keys.js';
import { LOGS_TABLE, tableName } from './table-definitions.js';

/** The filters of GET /v1/logs (and exports); all optional, all combined with AND. */
export interface LogFilter {
  trace_id?: string;
  metadata?: Record<string, string>;
  provider?: string;
  model?: string;
  /** An HTTP status, or `error` for every failed request. */
  status?: number | 'error';
  cache_status?: string;
  api_key_id?: string;
  virtual_key_id?: string;
  from?: string;
  to?: string;
}

export interface LogPage {
  items: RequestLogRecord[];
  nextKey?: Record<string, unknown>;
}

const STORAGE_ATTRIBUTES = new Set(['pk', 'sk', 'gsi1pk', 'gsi1sk', 'ttl']);
const MAX_ROUND_TRIPS = 25;
const READ_STEP = 50;
const DAY_MS = 86_400_000;

/** How one list call is served: which key it queries, and what is left to check on the records. */
interface Plan {
  input: Omit<QueryCommandInput, 'Limit' | 'ExclusiveStartKey'>;
  keyAttributes: readonly string[];
  partition: { attribute: string; value: string };
  /** Rows are index rows pointing at records (ref_pk/ref_sk), not records. */
  pointers: boolean;
}

/**
 * Reads request logs. Every filter is a key condition: the trace partition, one index-row partition, or the
 * workspace time line (gsi1), each ranged by time in its sort key; the remaining filters of a combined query
 * are checked on the records read (docs/architecture.md, "Logs table access patterns").
 */
export class LogRepository {
  private readonly table = tableName(settings(), LOGS_TABLE);
  private readonly client = dynamoDocumentClient();

  async list(workspaceId: string, filter: LogFilter, limit: number, startKey?: Record<string, unknown>): Promise<LogPage> {
    const plan = this.plan(workspaceId, filter);
    if (startKey) checkCursor(plan, startKey);
    const kept: Array<{ row: Record<string, unknown>; record: RequestLogRecord }> = [];
    let exclusiveStartKey = startKey;
    for (let trip = 0; trip < MAX_ROUND_TRIPS; trip++) {
      const result = await this.client.send(new QueryCommand({ ...plan.input, Limit: Math.max(limit + 1 - kept.length, READ_STEP), ExclusiveStartKey: exclusiveStartKey }));
      const rows = result.Items ?? [];
      const records = plan.pointers ? await this.resolve(rows) : rows;
      rows.forEach((row, index) => {
        const record = records[index] as RequestLogRecord | undefined;
        if (record && record.workspace_id === workspaceId && matches(record, filter)) kept.push({ row, record: present(record) });
      });
      if (kept.length > limit) {
        const page = kept.slice(0, limit);
        const last = page[page.length - 1].row;
        return { items: page.map((entry) => entry.record), nextKey: Object.fromEntries(plan.keyAttributes.map((name) => [name, last[name]])) };
      }
      exclusiveStartKey = result.LastEvaluatedKey;
      if (!exclusiveStartKey) return { items: kept.map((entry) => entry.record) };
    }
    return { items: kept.map((entry) => entry.record), nextKey: exclusiveStartKey };
  }

  /** One record by id, only inside `workspaceId` (another workspace's record is simply not found). */
  async get(workspaceId: string, id: string): Promise<RequestLogRecord | undefined> {
    const result = await this.client.send(
      new QueryCommand({ TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': logKeys.index(workspaceId, 'id', id) }, Limit: 1 }),
    );
    const [record] = (await this.resolve(result.Items ?? [])) as Array<RequestLogRecord | undefined>;
    if (!record || record.workspace_id !== workspaceId || record.created_at < retentionCutoff()) return undefined;
    return present(record);
  }

  /** Every request of a trace in the workspace, oldest first (a trace is a handful of requests). */
  async trace(workspaceId: string, traceId: string): Promise<RequestLogRecord[]> {
    const records: RequestLogRecord[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND sk >= :from',
          FilterExpression: 'workspace_id = :ws',
          ExpressionAttributeValues: { ':pk': logKeys.tracePartition(traceId), ':from': retentionCutoff(), ':ws': workspaceId },
          ExclusiveStartKey: startKey,
        }),
      );
      records.push(...((result.Items ?? []) as RequestLogRecord[]).map(present));
      startKey = result.LastEvaluatedKey;
    } while (startKey && records.length < 1_000);
    return records;
  }

  private plan(workspaceId: string, filter: LogFilter): Plan {
    const { from, to } = timeRange(filter);
    const range = { ':from': from, ':to': to };
    if (filter.trace_id) {
      const partition = logKeys.tracePartition(filter.trace_id);
      return {
        input: { TableName: this.table, KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to', ExpressionAttributeValues: { ':pk': partition, ...range }, ScanIndexForward: false },
        keyAttributes: ['pk', 'sk'],
        partition: { attribute: 'pk', value: partition },
        pointers: false,
      };
    }
    const index = drivingIndex(filter);
    if (index) {
      const partition = logKeys.index(workspaceId, index[0], index[1]);
      return {
        input: { TableName: this.table, KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to', ExpressionAttributeValues: { ':pk': partition, ...range }, ScanIndexForward: false },
        keyAttributes: ['pk', 'sk'],
        partition: { attribute: 'pk', value: partition },
        pointers: true,
      };
    }
    const partition = logKeys.workspaceTimeline(workspaceId);
    return {
      input: {
        TableName: this.table,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': partition, ...range },
        ScanIndexForward: false,
      },
      keyAttributes: ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
      partition: { attribute: 'gsi1pk', value: partition },
      pointers: false,
    };
  }

  /** The records index rows point at, in the rows' order (undefined where a record is gone). */
  private async resolve(rows: Array<Record<string, unknown>>): Promise<Array<Record<string, unknown> | undefined>> {
    const found = new Map<string, Record<string, unknown>>();
    const keys = rows.map((row) => ({ pk: row.ref_pk as string, sk: row.ref_sk as string }));
    for (let start = 0; start < keys.length; start += 100) {
      let pending: Array<Record<string, unknown>> | undefined = keys.slice(start, start + 100);
      for (let round = 0; pending && pending.length > 0 && round < 5; round++) {
        const result = await this.client.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: pending } } }));
        for (const item of result.Responses?.[this.table] ?? []) found.set(`${String(item.pk)}\u0000${String(item.sk)}`, item);
        pending = result.UnprocessedKeys?.[this.table]?.Keys as Array<Record<string, unknown>> | undefined;
      }
    }
    return keys.map((key) => found.get(`${key.pk}\u0000${key.sk}`));
  }
}

/**
 * The most selective filter that has an index, in this order; undefined when only time (or a value without index
 * rows, such as `status=200` or `cache_status=DISABLED`) filters: the time line is read and the records are checked.
 */
function drivingIndex(filter: LogFilter): [LogIndexField, string] | undefined {
  const metadata = Object.entries(filter.metadata ?? {});
  if (metadata.length > 0) return [`meta.${metadata[0][0]}`, metadata[0][1]];
  if (filter.virtual_key_id) return ['virtual_key', filter.virtual_key_id];
  if (filter.api_key_id) return ['api_key', filter.api_key_id];
  if (filter.model) return ['model', filter.model];
  if (typeof filter.status === 'number' && isIndexedLogValue('status', String(filter.status))) return ['status', String(filter.status)];
  if (filter.cache_status && isIndexedLogValue('cache_status', filter.cache_status)) return ['cache_status', filter.cache_status];
  if (filter.provider) return ['provider', filter.provider];
  if (filter.status === 'error') return ['outcome', 'error'];
  return undefined;
}

function matches(record: RequestLogRecord, filter: LogFilter): boolean {
  if (filter.trace_id !== undefined && record.trace_id !== filter.trace_id) return false;
  for (const [name, value] of Object.entries(filter.metadata ?? {})) if (record.metadata?.[name] !== value) return false;
  if (filter.provider !== undefined && record.provider !== filter.provider) return false;
  if (filter.model !== undefined && record.model !== filter.model) return false;
  if (filter.status === 'error' ? record.outcome !== 'error' : filter.status !== undefined && record.status !== filter.status) return false;
  if (filter.cache_status !== undefined && record.cache_status !== filter.cache_status) return false;
  if (filter.api_key_id !== undefined && record.api_key_id !== filter.api_key_id) return false;
  if (filter.virtual_key_id !== undefined && record.virtual_key_id !== filter.virtual_key_id) return false;
  return true;
}

/** The oldest time reads may return: LOG_RETENTION_DISPLAY days ago (expired items may linger before TTL). */
export function retentionCutoff(now = Date.now()): string {
  return new Date(now - settings().LOG_RETENTION_DISPLAY * DAY_MS).toISOString();
}

/** The sort-key range of a query: `from` raised to the retention bound, `to` inclusive. */
function timeRange(filter: LogFilter): { from: string; to: string } {
  const cutoff = retentionCutoff();
  const from = filter.from && filter.from > cutoff ? filter.from : cutoff;
  // '~' sorts after every character of a `<created_at>#<id>` key, so records at exactly `to` are included.
  const to = filter.to ? `${filter.to}~` : '9999~';
  return { from, to };
}

function checkCursor(plan: Plan, startKey: Record<string, unknown>): void {
  const names = Object.keys(startKey).sort();
  const expected = [...plan.keyAttributes].sort();
  const ok = names.length === expected.length && names.every((name, index) => name === expected[index] && typeof startKey[name] === 'string') && startKey[plan.partition.attribute] === plan.partition.value;
  if (!ok) throw badRequest('invalid_cursor', 'cursor does not belong to this list; pass next_cursor from the previous page unchanged', 'cursor');
}

function present(item: Record<string, unknown> | RequestLogRecord): RequestLogRecord {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !STORAGE_ATTRIBUTES.has(name))) as unknown as RequestLogRecord;
}
