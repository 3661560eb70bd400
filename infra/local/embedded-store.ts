import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import type { TableDefinition } from '../../shared/store/table-definitions.js';

export interface EmbeddedStore {
  endpoint: string;
  close(): Promise<void>;
}

/** Starts dynalite in this process: persisted under `dataDir`, or in memory when `dataDir` is `:memory:`. */
export async function startEmbeddedStore(dataDir: string): Promise<EmbeddedStore> {
  const inMemory = dataDir === ':memory:';
  const path = inMemory ? undefined : `${dataDir}/dynamodb`;
  if (path) mkdirSync(path, { recursive: true });
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets of the SDK client would otherwise hold the close open for seconds.
        server.closeAllConnections();
      }),
  };
}

/** Creates every table that does not exist yet, from the same definitions the CDK stack uses. */
export async function ensureTables(endpoint: string, region: string, tables: ReadonlyArray<{ definition: TableDefinition; name: string }>): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    for (const { definition, name } of tables) {
      if (await tableExists(client, name)) continue;
      const attributes = new Set([definition.partitionKey, definition.sortKey]);
      for (const index of definition.globalIndexes) {
        attributes.add(index.partitionKey);
        attributes.add(index.sortKey);
      }
      await client.send(
        new CreateTableCommand({
          TableName: name,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [...attributes].map((attribute) => ({ AttributeName: attribute, AttributeType: 'S' })),
          KeySchema: [
            { AttributeName: definition.partitionKey, KeyType: 'HASH' },
            { AttributeName: definition.sortKey, KeyType: 'RANGE' },
          ],
          GlobalSecondaryIndexes: definition.globalIndexes.length
            ? definition.globalIndexes.map((index) => ({
                IndexName: index.indexName,
                KeySchema: [
                  { AttributeName: index.partitionKey, KeyType: 'HASH' },
                  { AttributeName: index.sortKey, KeyType: 'RANGE' },
                ],
                Projection: { ProjectionType: 'ALL' },
              }))
            : undefined,
        }),
      );
    }
  } finally {
    client.destroy();
  }
}

async function tableExists(client: DynamoDBClient, name: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: name }));
    return true;
  } catch (error) {
    if (error instanceof ResourceNotFoundException || (error as { name?: string }).name === 'ResourceNotFoundException') return false;
    throw error;
  }
}
