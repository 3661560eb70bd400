import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { badRequest } from '../http/errors.js';
import { dynamoDocumentClient } from './dynamo-client.js';

export type StoredItem = Record<string, unknown>;

export interface PagedQuery<Item> {
  /** The Query without Limit and ExclusiveStartKey (those are this helper's job). */
  input: Omit<QueryCommandInput, 'Limit' | 'ExclusiveStartKey'>;
  /** The key attributes of the table or index queried: what a cursor is made of. */
  keyAttributes: readonly string[];
  /** The partition attribute and the value queried, so a cursor from another partition is refused. */
  partition: { attribute: string; value: string };
  limit: number;
  startKey?: Record<string, unknown>;
  /** Filters applied in memory, for conditions DynamoDB cannot express (e.g. "expired by the clock"). */
  keep?: (item: Item) => boolean;
}

export interface PagedResult<Item> {
  items: Item[];
  /** The key to continue after, or undefined on the last page. */
  nextKey?: Record<string, unknown>;
}

// Heavily filtered queries stop after this many round trips and hand back a cursor instead of a full page,
// so one list call can never turn into an unbounded scan.
const MAX_ROUND_TRIPS = 25;
const FILTERED_READ_STEP = 50;

/**
 * Reads one page of a Query, refilling it across DynamoDB pages when filters drop items. It reads one item
 * more than asked to know whether another page exists, and builds the cursor from the last item returned
 * (not from DynamoDB's LastEvaluatedKey), so filtered items after it are looked at again on the next page.
 */
export async function queryPage<Item extends StoredItem>(query: PagedQuery<Item>): Promise<PagedResult<Item>> {
  const exclusiveStartKey = query.startKey ? checkedStartKey(query) : undefined;
  const client = dynamoDocumentClient();
  const kept: Item[] = [];
  let startKey = exclusiveStartKey;
  const filtered = query.keep !== undefined || query.input.FilterExpression !== undefined;
  for (let trip = 0; trip < MAX_ROUND_TRIPS; trip++) {
    const wanted = query.limit + 1 - kept.length;
    // A filtered query reads ahead in bigger steps: most of what it reads may be dropped.
    const readLimit = filtered ? Math.max(wanted, FILTERED_READ_STEP) : wanted;
    const result = await client.send(new QueryCommand({ ...query.input, Limit: readLimit, ExclusiveStartKey: startKey }));
    for (const item of (result.Items ?? []) as Item[]) {
      if (!query.keep || query.keep(item)) kept.push(item);
    }
    if (kept.length > query.limit) {
      const items = kept.slice(0, query.limit);
      return { items, nextKey: keyOf(items[items.length - 1], query.keyAttributes) };
    }
    startKey = result.LastEvaluatedKey;
    if (!startKey) return { items: kept };
  }
  // Out of round trips: return what was found; the cursor continues where reading stopped.
  return { items: kept, nextKey: startKey };
}

/** A Query that reads every item of its key range: all of the input but the start key, which `queryPages` follows. */
export type WholeQuery = Omit<QueryCommandInput, 'ExclusiveStartKey'>;

/**
 * Every page of a Query, in order, following DynamoDB's LastEvaluatedKey until the key range is read: for work that
 * needs all of it (a deletion's sweep, the gateway's admission policies), never for a list a client pages through.
 * `Limit` (items per page) and `ProjectionExpression` pass through, so a sweep can work a page at a time.
 */
export async function* queryPages(query: WholeQuery): AsyncGenerator<StoredItem[]> {
  const client = dynamoDocumentClient();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new QueryCommand({ ...query, ExclusiveStartKey: startKey }));
    yield (page.Items ?? []) as StoredItem[];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** Every item of a Query's key range (all its pages), each made a record by `toRecord`. */
export async function queryAll<Item>(query: WholeQuery, toRecord: (item: StoredItem) => Item): Promise<Item[]> {
  const records: Item[] = [];
  for await (const items of queryPages(query)) for (const item of items) records.push(toRecord(item));
  return records;
}

function keyOf(item: StoredItem, attributes: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(attributes.map((attribute) => [attribute, item[attribute]]));
}

/** A cursor is client input: it must name exactly this query's key attributes, inside this partition. */
function checkedStartKey<Item>(query: PagedQuery<Item>): Record<string, unknown> {
  const startKey = query.startKey ?? {};
  const names = Object.keys(startKey).sort();
  const expected = [...query.keyAttributes].sort();
  const wellFormed =
    names.length === expected.length &&
    names.every((name, i) => name === expected[i] && typeof startKey[name] === 'string') &&
    startKey[query.partition.attribute] === query.partition.value;
  if (!wellFormed) throw badRequest('invalid_cursor', 'cursor does not belong to this list; pass next_cursor from the previous page unchanged', 'cursor');
  return startKey;
}

/**
 * The query of a `gsi1` list — the children of one parent (keys of a workspace, prompts of a workspace, …) —
 * with the cursor rules that go with it; spread it into `queryPage` and add `limit`, `startKey`, `keep`.
 */
export function gsi1Children(table: string, partition: string, order: 'oldest-first' | 'newest-first' = 'oldest-first') {
  return {
    input: {
      TableName: table,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :partition',
      ExpressionAttributeValues: { ':partition': partition },
      ...(order === 'newest-first' ? { ScanIndexForward: false } : {}),
    },
    keyAttributes: ['pk', 'sk', 'gsi1pk', 'gsi1sk'] as const,
    partition: { attribute: 'gsi1pk', value: partition },
  };
}

/** The query of the items of one partition whose sort key starts with `prefix` (members of a workspace, …). */
export function prefixedItems(table: string, partition: string, prefix: string) {
  return {
    input: {
      TableName: table,
      KeyConditionExpression: 'pk = :partition AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':partition': partition, ':prefix': prefix },
    },
    keyAttributes: ['pk', 'sk'] as const,
    partition: { attribute: 'pk', value: partition },
  };
}
