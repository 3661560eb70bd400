import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { dynamoDocumentClient } from '../store/dynamo-client.js';
import { LOGS_TABLE, tableName } from '../store/table-definitions.js';

/** One gateway request as recorded in the logs table. Bodies and credentials are never part of it. */
export interface RequestLogRecord {
  trace_id: string;
  request_id: string;
  organisation_id: string;
  workspace_id: string;
  api_key_id: string;
  endpoint: string;
  provider?: string;
  model?: string;
  stream: boolean;
  status: number;
  outcome: 'success' | 'error';
  error_code?: string;
  latency_ms: number;
  usage?: Record<string, unknown>;
  metadata: Record<string, string>;
  created_at: string;
}

const DAY_SECONDS = 86_400;

export async function writeRequestLog(record: RequestLogRecord): Promise<void> {
  const { GW_REQUEST_LOGS, LOG_RETENTION_DISPLAY } = settings();
  if (!GW_REQUEST_LOGS) return;
  await dynamoDocumentClient().send(
    new PutCommand({
      TableName: tableName(settings(), LOGS_TABLE),
      Item: {
        pk: `TRACE#${record.trace_id}`,
        sk: `${record.created_at}#${record.request_id}`,
        gsi1pk: `WS#${record.workspace_id}#LOGS`,
        gsi1sk: `${record.created_at}#${record.request_id}`,
        ttl: Math.floor(Date.parse(record.created_at) / 1000) + LOG_RETENTION_DISPLAY * DAY_SECONDS,
        ...record,
      },
    }),
  );
}
