import { Agent as HttpsAgent } from 'node:https';
import * as z from 'zod';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { TableDefinition } from '../../shared/store/table-definitions.js';
import { InvalidSettingsError, settings } from '../../shared/settings.js';
import { storeHttpsAgentOptions } from '../../shared/store/store-tls.js';
import { forkStoreProcess } from './store/child-store.js';
import { listenDynalite } from './store/dynalite-server.js';
import { startHousekeeping, type Housekeeping, type HousekeepingPlan, type HousekeepingReport } from './store/housekeeping.js';

export interface EmbeddedStore {
  endpoint: string;
  close(): Promise<void>;
}

/** What the local runtime got from startEmbeddedStore, and who keeps its data bounded. */
export interface LocalStore extends EmbeddedStore {
  /** `child`: dynalite in its own process (default); `in-process`: in gw's; `external`: GW_DYNAMODB_ENDPOINT. */
  kind: 'child' | 'in-process' | 'external';
  /** The store process's pid (child mode). */
  pid?: number;
  /** The store process's memory (child mode): for measurements. */
  memory?(): Promise<NodeJS.MemoryUsage>;
  /** Starts (or replaces) the TTL sweep where the data lives; absent for an external store. */
  housekeeping?: {
    start(plan: HousekeepingPlan): Promise<void>;
    /** One full pass now (tests, and whoever wants the store trimmed at once). */
    pass(): Promise<HousekeepingReport>;
    stop(): Promise<void>;
  };
}

const storeModeSchema = z.enum(['child', 'in-process']).default('child');

/** Endpoints of the stores this process started: server.ts exports each one as GW_DYNAMODB_ENDPOINT. */
const ownEndpoints = new Set<string>();
const openStores = new Map<string, LocalStore>();

/**
 * The local runtime's store. When GW_DYNAMODB_ENDPOINT was set before start (not by an earlier store of this
 * process), that DynamoDB-compatible server is used and nothing is started. Otherwise dynalite is started,
 * persisted under `dataDir` or in memory when `dataDir` is `:memory:`: in its own process by default
 * (GW_LOCAL_STORE=child), so its CPU and its data stay out of the gateway's process, or in this process with
 * GW_LOCAL_STORE=in-process. Read before settings are (they are applied after the store is known).
 */
export async function startEmbeddedStore(dataDir: string): Promise<LocalStore> {
  const external = process.env.GW_DYNAMODB_ENDPOINT;
  if (external && !ownEndpoints.has(external)) return { kind: 'external', endpoint: external, close: async () => undefined };
  const mode = storeModeSchema.safeParse(process.env.GW_LOCAL_STORE || undefined);
  if (!mode.success) throw new InvalidSettingsError([`GW_LOCAL_STORE: must be child or in-process (got ${JSON.stringify(process.env.GW_LOCAL_STORE)})`]);
  const store = mode.data === 'child' ? await childStore(dataDir) : await inProcessStore(dataDir);
  ownEndpoints.add(store.endpoint);
  openStores.set(store.endpoint, store);
  const close = store.close;
  store.close = async () => {
    openStores.delete(store.endpoint);
    await close();
  };
  return store;
}

/** The store this process started at `endpoint` (still open), if any: reliability.ts sends it the plan. */
export function localStoreAt(endpoint: string): LocalStore | undefined {
  return openStores.get(endpoint);
}

async function childStore(dataDir: string): Promise<LocalStore> {
  const child = await forkStoreProcess(dataDir);
  return {
    kind: 'child',
    endpoint: child.endpoint,
    pid: child.pid,
    memory: () => child.memory(),
    close: () => child.close(),
    housekeeping: {
      start: async (plan) => void (await child.request({ op: 'housekeeping', plan })),
      pass: async () => (await child.request({ op: 'pass' }))!,
      stop: async () => void (await child.request({ op: 'stop-housekeeping' }).catch(() => undefined)),
    },
  };
}

async function inProcessStore(dataDir: string): Promise<LocalStore> {
  const server = await listenDynalite(dataDir);
  const endpoint = `http://127.0.0.1:${server.port}`;
  let housekeeping: Housekeeping | undefined;
  return {
    kind: 'in-process',
    endpoint,
    close: async () => {
      await housekeeping?.stop();
      await server.close();
    },
    housekeeping: {
      start: async (plan) => {
        await housekeeping?.stop();
        housekeeping = startHousekeeping(endpoint, plan);
      },
      pass: () => {
        if (!housekeeping) return Promise.reject(new Error('no housekeeping plan was sent'));
        return housekeeping.pass();
      },
      stop: async () => {
        await housekeeping?.stop();
        housekeeping = undefined;
      },
    },
  };
}

/** Creates every table that does not exist yet, from the same definitions the CDK stack uses. */
export async function ensureTables(endpoint: string, region: string, tables: ReadonlyArray<{ definition: TableDefinition; name: string }>): Promise<void> {
  // An external store behind TLS (GW_DYNAMODB_ENDPOINT=https://…) is reached with the DB_SSL settings, as the gateway reaches it.
  const requestHandler = endpoint.startsWith('https:') ? new NodeHttpHandler({ httpsAgent: new HttpsAgent(storeHttpsAgentOptions(settings())) }) : undefined;
  const client = new DynamoDBClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, requestHandler });
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
