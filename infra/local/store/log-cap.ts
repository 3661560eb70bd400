import { QueryCommand, ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { logIndexEntries, logKeys, type IndexedLogFields } from '../../../shared/store/log-keys.js';
import { deleteBlobs } from './blob-sweep.js';
import { deleteItems } from './delete-items.js';
import { pages } from './pages.js';
import type { StoreWriteControl } from './write-pressure.js';

const PAGE = 1_000;
const RECORD_PREFIX = 'TRACE#';
const TIMELINE_INDEX = 'gsi1';

/**
 * The count cap of the local request logs: keeps the newest `maxRecords` records and deletes the rest, oldest
 * first, each with its index rows. It leans on the logs table's keys (shared/store/log-keys.ts): every record
 * (`pk = TRACE#…`) is on its workspace's time line (gsi1, `<created_at>#<id>`), and its index rows carry the
 * same sort key under keys made from the record's own fields (`logIndexEntries`). So the cost follows the
 * records, not the table: one scan of the time line index (one entry per record, not the four or more index rows
 * beside each), then, per workspace, one range query for the records at or before the cutoff, whose keys and
 * index-row keys are deleted. Rollups and export jobs of the same table are on no time line and never touched.
 * The deletes run with the store's incoming batch writes held back (`writes`, when the cap runs beside the store),
 * so a store driven harder than it can write and trim at once slows its writers instead of outgrowing the cap.
 * Bodies a record kept in the local blob folder (`*_body_ref`) go with it when `blobDirectory` is given.
 * Returns how many records went.
 */
export async function capLogRecords(
  client: DynamoDBClient,
  table: string,
  maxRecords: number,
  options: { writes?: StoreWriteControl; blobDirectory?: string } = {},
): Promise<number> {
  const timeKeys: string[] = [];
  const timelines = new Set<string>();
  for await (const items of pages((ExclusiveStartKey) =>
    client.send(
      new ScanCommand({
        TableName: table,
        IndexName: TIMELINE_INDEX,
        FilterExpression: 'begins_with(#pk, :record)',
        ExpressionAttributeNames: { '#pk': 'pk', '#line': 'gsi1pk', '#at': 'gsi1sk' },
        ExpressionAttributeValues: { ':record': { S: RECORD_PREFIX } },
        ProjectionExpression: '#line, #at',
        Limit: PAGE,
        ExclusiveStartKey,
      }),
    ),
  )) {
    for (const item of items) {
      if (!item.gsi1pk?.S || !item.gsi1sk?.S) continue;
      timelines.add(item.gsi1pk.S);
      timeKeys.push(item.gsi1sk.S);
    }
  }

  const excess = timeKeys.length - maxRecords;
  if (excess <= 0) return 0;
  timeKeys.sort();
  const cutoff = timeKeys[excess - 1];
  const deleteAll = async () => {
    let deleted = 0;
    for (const timeline of timelines) deleted += await deleteUpTo(client, table, timeline, cutoff, options.blobDirectory);
    return deleted;
  };
  return options.writes ? options.writes.prioritise(deleteAll) : deleteAll();
}

/** Deletes the records of one time line whose sort key is at or before `cutoff`, with their index rows. */
async function deleteUpTo(client: DynamoDBClient, table: string, timeline: string, cutoff: string, blobDirectory: string | undefined): Promise<number> {
  let deleted = 0;
  for await (const items of pages((ExclusiveStartKey) =>
    client.send(
      new QueryCommand({
        TableName: table,
        IndexName: TIMELINE_INDEX,
        KeyConditionExpression: '#line = :line AND #at <= :cutoff',
        FilterExpression: 'begins_with(#pk, :record)',
        ExpressionAttributeNames: { '#line': 'gsi1pk', '#at': 'gsi1sk', '#pk': 'pk', '#sk': 'sk', '#status': 'status', '#model': 'model' },
        ExpressionAttributeValues: { ':line': { S: timeline }, ':cutoff': { S: cutoff }, ':record': { S: RECORD_PREFIX } },
        ProjectionExpression: '#pk, #sk, workspace_id, id, api_key_id, #status, outcome, virtual_key_id, provider, #model, cache_status, metadata, request_body_ref, response_body_ref',
        Limit: PAGE,
        ExclusiveStartKey,
      }),
    ),
  )) {
    const keys: Array<Record<string, AttributeValue>> = [];
    const blobs: string[] = [];
    for (const item of items) {
      const { pk, sk } = item;
      if (!pk?.S || !sk?.S) continue;
      keys.push({ pk, sk });
      for (const ref of [item.request_body_ref?.S, item.response_body_ref?.S]) if (ref) blobs.push(ref);
      const workspaceId = item.workspace_id?.S;
      if (workspaceId) for (const [field, value] of logIndexEntries(indexedFields(item), { withUnindexed: true })) keys.push({ pk: { S: logKeys.index(workspaceId, field, value) }, sk });
      deleted++;
    }
    await deleteItems(client, table, keys);
    // After the record: a body without its record is unreachable, a record without its body would show null.
    if (blobDirectory && blobs.length > 0) await deleteBlobs(blobDirectory, blobs);
  }
  return deleted;
}

/** The record's indexed fields, read from the stored item (what the writer put there, shared/observability/request-log.ts). */
function indexedFields(item: Record<string, AttributeValue>): IndexedLogFields {
  const text = (name: string) => item[name]?.S ?? null;
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(item.metadata?.M ?? {})) if (value.S !== undefined) metadata[name] = value.S;
  return {
    id: text('id') ?? '',
    api_key_id: text('api_key_id') ?? '',
    status: item.status?.N ?? item.status?.S ?? '',
    outcome: text('outcome') ?? '',
    virtual_key_id: text('virtual_key_id'),
    provider: text('provider'),
    model: text('model'),
    cache_status: text('cache_status'),
    metadata,
  };
}
