import { BatchWriteItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

const DELETE_BATCH = 25;
const MAX_UNPROCESSED_ROUNDS = 5;

/** Deletes items by key, 25 per BatchWriteItem, sending unprocessed ones again. */
export async function deleteItems(client: DynamoDBClient, table: string, keys: Array<Record<string, AttributeValue>>): Promise<void> {
  for (let index = 0; index < keys.length; index += DELETE_BATCH) {
    let requests = keys.slice(index, index + DELETE_BATCH).map((Key) => ({ DeleteRequest: { Key } }));
    for (let round = 0; requests.length > 0; round++) {
      if (round >= MAX_UNPROCESSED_ROUNDS) throw new Error(`${requests.length} deletes stayed unprocessed in ${table}`);
      const result = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
      requests = (result.UnprocessedItems?.[table] ?? []) as typeof requests;
    }
  }
}
