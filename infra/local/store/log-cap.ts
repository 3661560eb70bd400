import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { deleteItems } from './delete-items.js';

const PAGE = 1_000;
const RECORD_PREFIX = 'TRACE#';

/**
 * The count cap of the local request logs: keeps the newest `maxRecords` records and deletes the rest, oldest
 * first, each with its index rows. It leans on the logs table's keys (shared/store/log-keys.ts): a record is
 * `pk = TRACE#…` and every index row points back at it with `ref_pk`; both carry the same sort key,
 * `<created_at>#<id>`, so "older than the cutoff" is one comparison on `sk`. Rollups and export jobs of the same
 * table are neither (no `TRACE#`, no `ref_pk`) and are never touched. Returns how many records went.
 */
export async function capLogRecords(client: DynamoDBClient, table: string, maxRecords: number): Promise<number> {
  const sortKeys: string[] = [];
  await scanPages(client, table, { filter: 'begins_with(#pk, :record)', values: { ':record': { S: RECORD_PREFIX } } }, (items) => {
    for (const item of items) if (item.sk?.S) sortKeys.push(item.sk.S);
  });
  const excess = sortKeys.length - maxRecords;
  if (excess <= 0) return 0;
  sortKeys.sort();
  const cutoff = sortKeys[excess - 1];
  // The same sort key on a record and on its index rows: one pass deletes a record and everything pointing at it.
  await scanPages(
    client,
    table,
    { filter: '#sk <= :cutoff AND (begins_with(#pk, :record) OR attribute_exists(ref_pk))', values: { ':cutoff': { S: cutoff }, ':record': { S: RECORD_PREFIX } } },
    (items) => deleteItems(client, table, items),
  );
  return excess;
}

async function scanPages(
  client: DynamoDBClient,
  table: string,
  query: { filter: string; values: Record<string, AttributeValue> },
  onPage: (items: Array<Record<string, AttributeValue>>) => void | Promise<void>,
): Promise<void> {
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: query.filter,
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: query.values,
        ProjectionExpression: '#pk, #sk',
        Limit: PAGE,
        ExclusiveStartKey: startKey,
      }),
    );
    await onPage(page.Items ?? []);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
