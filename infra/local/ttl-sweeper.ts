import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { recordedClient } from '../../shared/store/recording/sdk-recording-middleware.js';
import { deleteItems } from './store/delete-items.js';
import { pages } from './store/pages.js';

/**
 * The embedded store (dynalite) keeps every item forever: DynamoDB's TTL deletion does not exist there. This
 * sweeper does its job locally: every `intervalMs` it scans each table for items whose `ttl` attribute (epoch
 * seconds) has passed and deletes them, so caches, counters and export jobs stay bounded in a long-running
 * local gw. Reads already ignore expired items; this only frees the space. It runs where the store runs (the
 * store process, see store/housekeeping.ts), never against a real DynamoDB, which applies TTL itself.
 */
export interface TtlSweeper {
  /** One pass now; resolves with how many items were deleted. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

const PAGE = 500;

/** A table to sweep; `aheadSeconds` deletes items that long before their TTL. */
export interface SweptTable {
  name: string;
  partitionKey: string;
  sortKey: string;
  aheadSeconds?: number;
}

/** Housekeeping's client for a local store: the credentials are dummies (the store checks none). */
export function localStoreClient(endpoint: string, region: string): DynamoDBClient {
  // Recorded like every client (outside any function: local housekeeping, which has no counterpart on AWS).
  return recordedClient(new DynamoDBClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }), 'dynamodb');
}

export function startTtlSweeper(options: { endpoint: string; region: string; tables: () => SweptTable[]; intervalMs: number; now?: () => number }): TtlSweeper {
  const client = localStoreClient(options.endpoint, options.region);
  const now = options.now ?? Date.now;
  let running: Promise<number> | undefined;

  const sweep = (): Promise<number> => {
    running ??= sweepAll().finally(() => (running = undefined));
    return running;
  };

  async function sweepAll(): Promise<number> {
    let deleted = 0;
    for (const table of options.tables()) deleted += await sweepExpired(client, table, Math.floor(now() / 1000));
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

/** Deletes the items of one table whose `ttl` is before `nowSeconds` (plus the table's `aheadSeconds`). */
export async function sweepExpired(client: DynamoDBClient, table: SweptTable, nowSeconds: number): Promise<number> {
  let deleted = 0;
  for await (const expired of pages((ExclusiveStartKey) =>
    client.send(
      new ScanCommand({
        TableName: table.name,
        FilterExpression: '#ttl < :now',
        ExpressionAttributeNames: { '#ttl': 'ttl', '#pk': table.partitionKey, '#sk': table.sortKey },
        ExpressionAttributeValues: { ':now': { N: String(nowSeconds + Math.max(0, table.aheadSeconds ?? 0)) } },
        ProjectionExpression: '#pk, #sk',
        Limit: PAGE,
        ExclusiveStartKey,
      }),
    ),
  )) {
    await deleteItems(client, table.name, expired);
    deleted += expired.length;
  }
  return deleted;
}
