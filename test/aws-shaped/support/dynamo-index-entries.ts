import { request as httpRequest } from 'node:http';

/**
 * The global-index entries DynamoDB writes with an item write, which it bills as write units of their own and the
 * embedded store does not count (issue #44: the cost model assumed one per write from an older design). For each
 * write, the item is read before and after (straight from the store, unrecorded); an index whose key attributes the
 * old or the new item carries costs one entry each (an update that leaves an index key as it was: one), as
 * DynamoDB's developer guide describes index writes ("Provisioned throughput considerations for global secondary
 * indexes").
 */
type Item = Record<string, unknown>;
interface TableSchema {
  keys: string[];
  indexes: string[][];
}

export interface IndexEntriesRecorder {
  /** Call before forwarding a write; the returned function, after it has been applied, counts its index entries. */
  beforeWrite(action: string, input: Record<string, unknown>): Promise<(() => Promise<number>) | undefined>;
}

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

export function indexEntriesRecorder(dynaliteUrl: string): IndexEntriesRecorder {
  const schemas = new Map<string, Promise<TableSchema>>();
  const call = (target: string, body: unknown) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const outgoing = httpRequest(`${dynaliteUrl}/`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': `DynamoDB_20120810.${target}`,
          // dynalite wants a signature's shape, not a valid one.
          authorization: 'AWS4-HMAC-SHA256 Credential=AKIDOPERATOR/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
          'x-amz-date': '20260101T000000Z',
        },
      }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (part: Buffer) => parts.push(part));
        answer.on('end', () => resolve(JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as Record<string, unknown>));
      });
      outgoing.on('error', reject);
      outgoing.end(JSON.stringify(body));
    });
  const schemaOf = (table: string) => {
    let schema = schemas.get(table);
    if (!schema) {
      schema = call('DescribeTable', { TableName: table }).then((answer) => {
        const description = answer.Table as { KeySchema: Array<{ AttributeName: string }>; GlobalSecondaryIndexes?: Array<{ KeySchema: Array<{ AttributeName: string }> }> };
        return { keys: description.KeySchema.map((key) => key.AttributeName), indexes: (description.GlobalSecondaryIndexes ?? []).map((index) => index.KeySchema.map((key) => key.AttributeName)) };
      });
      schemas.set(table, schema);
    }
    return schema;
  };
  const read = async (table: string, key: Item) => ((await call('GetItem', { TableName: table, Key: key, ConsistentRead: true })).Item as Item | undefined) ?? undefined;

  /** One item write: its table and key (an item's key attributes for a put). */
  const tracked = async (table: string, key: Item | undefined, item: Item | undefined) => {
    const schema = await schemaOf(table);
    const itemKey = key ?? Object.fromEntries(schema.keys.map((name) => [name, item![name]]));
    const before = await read(table, itemKey);
    return async () => {
      const after = await read(table, itemKey);
      let entries = 0;
      for (const index of schema.indexes) {
        const has = (candidate: Item | undefined) => candidate !== undefined && index.every((name) => candidate[name] !== undefined);
        const same = has(before) && has(after) && index.every((name) => JSON.stringify(before![name]) === JSON.stringify(after![name]));
        entries += same ? 1 : Number(has(before)) + Number(has(after));
      }
      return entries;
    };
  };

  return {
    async beforeWrite(action, input) {
      if (!WRITES.has(action)) return undefined;
      const pending: Array<Promise<() => Promise<number>>> = [];
      if (action === 'BatchWriteItem') {
        for (const [table, requests] of Object.entries(input.RequestItems as Record<string, Array<{ PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }>>)) {
          for (const request of requests) pending.push(tracked(table, request.DeleteRequest?.Key, request.PutRequest?.Item));
        }
      } else if (action === 'TransactWriteItems') {
        for (const entry of input.TransactItems as Array<Record<string, { TableName: string; Key?: Item; Item?: Item } | undefined>>) {
          const write = entry.Put ?? entry.Update ?? entry.Delete;
          if (write) pending.push(tracked(write.TableName, write.Key, write.Item));
        }
      } else {
        pending.push(tracked(input.TableName as string, input.Key as Item | undefined, input.Item as Item | undefined));
      }
      const afters = await Promise.all(pending);
      return async () => (await Promise.all(afters.map((after) => after()))).reduce((sum, count) => sum + count, 0);
    },
  };
}
