import { Agent as HttpsAgent } from 'node:https';
import { recordedClient } from '../../../shared/store/recording/sdk-recording-middleware.js';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException, type TableDescription } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { TableDefinition } from '../../../shared/store/table-definitions.js';
import { settings } from '../../../shared/settings.js';
import { storeHttpsAgentOptions } from '../../../shared/store/store-tls.js';

/** How long the first start waits for a fresh external store to finish creating its tables. */
const ACTIVE_TIMEOUT_MS = 120_000;
const FIRST_POLL_MS = 100;
const MAX_POLL_MS = 2_000;

/**
 * Creates every table that does not exist yet, from the same definitions the CDK stack uses, and returns once
 * every table (and its indexes) is ACTIVE. Creating is asynchronous on DynamoDB and on DynamoDB-compatible stores
 * (a table is CREATING for a moment and answers ResourceNotFoundException to reads and writes), so a first start
 * against a fresh external store (GW_DYNAMODB_ENDPOINT) would otherwise fail its first write. dynalite creates at
 * once: there the wait is one DescribeTable per table.
 */
export async function ensureTables(endpoint: string, region: string, tables: ReadonlyArray<{ definition: TableDefinition; name: string }>): Promise<void> {
  // The DB_SSL settings are checked against this very endpoint before the first call, whatever its scheme: an
  // http endpoint under DB_SSL=REQUIRED (or VERIFY_*) is refused here, before any table is created in plaintext.
  // An external store behind TLS (GW_DYNAMODB_ENDPOINT=https://…) is then reached with them, as the gateway reaches it.
  const tls = storeHttpsAgentOptions({ ...settings(), GW_DYNAMODB_ENDPOINT: endpoint });
  const requestHandler = endpoint.startsWith('https:') ? new NodeHttpHandler({ httpsAgent: new HttpsAgent(tls) }) : undefined;
  // Recorded like every client (outside any function: the local bootstrap, which has no role on AWS).
  const client = recordedClient(new DynamoDBClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, requestHandler }), 'dynamodb');
  try {
    const pending: string[] = [];
    for (const { definition, name } of tables) {
      const existing = await describeTable(client, name);
      if (existing && isActive(existing)) continue;
      if (!existing) await client.send(createTableCommand(definition, name));
      pending.push(name);
    }
    await waitUntilActive(client, pending);
  } finally {
    client.destroy();
  }
}

function createTableCommand(definition: TableDefinition, name: string): CreateTableCommand {
  const attributes = new Set([definition.partitionKey, definition.sortKey]);
  for (const index of definition.globalIndexes) {
    attributes.add(index.partitionKey);
    attributes.add(index.sortKey);
  }
  return new CreateTableCommand({
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
  });
}

/** The table and each of its global indexes are ACTIVE (a store that reports no status counts as ready). */
function isActive(table: TableDescription): boolean {
  const statuses = [table.TableStatus, ...(table.GlobalSecondaryIndexes ?? []).map((index) => index.IndexStatus)];
  return statuses.every((status) => status === undefined || status === 'ACTIVE');
}

/** Polls DescribeTable (backing off from 100 ms to 2 s) until every table is ACTIVE; a store stuck longer fails the start. */
async function waitUntilActive(client: DynamoDBClient, names: readonly string[]): Promise<void> {
  const deadline = Date.now() + ACTIVE_TIMEOUT_MS;
  let waiting = [...names];
  let delay = FIRST_POLL_MS;
  while (waiting.length > 0) {
    const described = await Promise.all(waiting.map(async (name) => ({ name, table: await describeTable(client, name) })));
    waiting = described.filter(({ table }) => !table || !isActive(table)).map(({ name }) => name);
    if (waiting.length === 0) return;
    if (Date.now() > deadline) throw new Error(`the store did not make these tables ACTIVE within ${ACTIVE_TIMEOUT_MS / 1000} s: ${waiting.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, MAX_POLL_MS);
  }
}

async function describeTable(client: DynamoDBClient, name: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: name }))).Table ?? {};
  } catch (error) {
    if (error instanceof ResourceNotFoundException || (error as { name?: string }).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}
