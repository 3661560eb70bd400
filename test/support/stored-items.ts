import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../../shared/store/dynamo-client.js';

/**
 * Every item of every table of the embedded store, read through the real AWS SDK, as one string: what a
 * sentinel scan searches for a secret that must never be stored in plaintext. Runs in the test's process, which
 * shares the store endpoint with the local gw it started.
 */
export async function everyStoredItem(): Promise<string> {
  const client = dynamoDocumentClient();
  const tables = (await client.send(new ListTablesCommand({}))).TableNames ?? [];
  if (tables.length === 0) throw new Error('the embedded store has no tables: is the local gw running in this process?');
  const texts: string[] = [];
  for (const table of tables) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(new ScanCommand({ TableName: table, ExclusiveStartKey: startKey }));
      texts.push(JSON.stringify(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }
  return texts.join('\n');
}
