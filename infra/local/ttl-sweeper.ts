import { DynamoDBClient, ScanCommand, BatchWriteItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';

/**
 * The embedded store (dynalite) keeps every item forever: DynamoDB's TTL deletion does not exist there. This
 * sweeper does its job locally: every `intervalMs` it scans each table for items whose `ttl` attribute (epoch
 * seconds) has passed and deletes them, so caches, counters and request logs stay bounded in a long-running
 * local gw. Reads already ignore expired items; this only frees the space.
 */
export interface TtlSweeper {
  /** One pass now; resolves with how many items were deleted. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

const PAGE = 500;
const DELETE_BATCH = 25;

/** A table to sweep; `aheadSeconds` deletes items that long before their TTL (the local log-retention cap). */
export interface SweptTable {
  name: string;
  partitionKey: string;
  sortKey: string;
  aheadSeconds?: number;
}

export function startTtlSweeper(options: { endpoint: string; region: string; tables: () => SweptTable[]; intervalMs: number; now?: () => number }): TtlSweeper {
  const client = new DynamoDBClient({ endpoint: options.endpoint, region: options.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const now = options.now ?? Date.now;
  let running: Promise<number> | undefined;

  const sweep = (): Promise<number> => {
    running ??= sweepAll().finally(() => (running = undefined));
    return running;
  };

  async function sweepAll(): Promise<number> {
    let deleted = 0;
    for (const table of options.tables()) deleted += await sweepTable(table);
    return deleted;
  }

  async function sweepTable(table: SweptTable): Promise<number> {
    let deleted = 0;
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({
          TableName: table.name,
          FilterExpression: '#ttl < :now',
          ExpressionAttributeNames: { '#ttl': 'ttl', '#pk': table.partitionKey, '#sk': table.sortKey },
          ExpressionAttributeValues: { ':now': { N: String(Math.floor(now() / 1000) + Math.max(0, table.aheadSeconds ?? 0)) } },
          ProjectionExpression: '#pk, #sk',
          Limit: PAGE,
          ExclusiveStartKey: startKey,
        }),
      );
      const expired = page.Items ?? [];
      for (let index = 0; index < expired.length; index += DELETE_BATCH) {
        const batch = expired.slice(index, index + DELETE_BATCH).map((Key) => ({ DeleteRequest: { Key } }));
        await client.send(new BatchWriteItemCommand({ RequestItems: { [table.name]: batch } }));
        deleted += batch.length;
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return deleted;
  }

  const timer = options.intervalMs > 0 ? setInterval(() => void sweep().catch((error: unknown) => console.error('gw local runtime: TTL sweep failed', error)), options.intervalMs) : undefined;
  timer?.unref();
  return {
    sweep,
    stop: async () => {
      clearInterval(timer);
      await running?.catch(() => undefined);
      client.destroy();
    },
  };
}
