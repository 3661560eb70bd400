import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { logKeys } from './log-keys.js';
import { LOGS_TABLE, tableName } from './table-definitions.js';

/** One hourly rollup item: the counters of one group key in one hour. */
export interface RollupItem {
  bucket: string;
  key: string;
  requests?: number;
  errors?: number;
  prompt_tokens?: number;
  completion_tokens?: number;
  cost?: number;
  cache_hits?: number;
  [latencyBucket: `lat_${string}`]: number | undefined;
}

/**
 * Reads hourly rollups: one partition per (workspace or organisation, dimension), sort key `<hour>#<key>`, so a
 * time range is one key condition and analytics never read logs.
 */
export class RollupRepository {
  private readonly table = tableName(settings(), LOGS_TABLE);

  async range(scope: 'WS' | 'ORG', id: string, dimension: string, fromHour: string, toHour: string): Promise<RollupItem[]> {
    const items: RollupItem[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await dynamoDocumentClient().send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': logKeys.rollupPartition(scope, id, dimension), ':from': fromHour, ':to': `${toHour}~` },
          ExclusiveStartKey: startKey,
        }),
      );
      items.push(...((result.Items ?? []) as RollupItem[]));
      startKey = result.LastEvaluatedKey;
    } while (startKey);
    return items;
  }
}
